// Indexes behind every order the chain data API accepts, so each page is one bounded range scan
// (docs/decisions.md, Bounded queries). Hand-written (mixed directions cannot be declared in
// schema.graphql), so a future `migration:generate` will propose dropping them: keep them.
// - An address's transactions by value or fee (/api/v2/addresses/{hash}/transactions?sort=value|fee):
//   one per (side, sort); the created_contract side needs none (an address is created at most a
//   few times). Cost: four more index writes per transaction on the indexer.
// - The token list (/api/v2/tokens, holder count either way, then name, then address): names are
//   at most 256 characters (the indexer cuts them), well inside a btree entry.
module.exports = class SortIndexes1795433000002 {
    name = 'SortIndexes1795433000002'

    async up(db) {
        for (const side of ['from', 'to']) {
            for (const sort of ['value', 'fee']) {
                await db.query(`CREATE INDEX "transaction_${side}_by_${sort}" ON "transaction" ("${side}", "${sort}", "block_number", "index")`)
            }
        }
        await db.query(`CREATE INDEX "token_list_desc" ON "token" ("holder_count" DESC, "name" ASC NULLS LAST, "id")`)
        await db.query(`CREATE INDEX "token_list_asc" ON "token" ("holder_count" ASC, "name" ASC NULLS LAST, "id")`)
    }

    async down(db) {
        for (const side of ['from', 'to']) {
            for (const sort of ['value', 'fee']) {
                await db.query(`DROP INDEX "public"."transaction_${side}_by_${sort}"`)
            }
        }
        await db.query(`DROP INDEX "public"."token_list_desc"`)
        await db.query(`DROP INDEX "public"."token_list_asc"`)
    }
}
