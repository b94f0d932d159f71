// Indexes the chain data API's keyset pages need: holders by (value, holder) so page 1,000 of
// /tokens/{h}/holders costs what page 1 costs, tokens by (holder_count, id) for /tokens, and
// case-insensitive prefix search on token names and symbols. The first two are declared in
// schema.graphql (TypeORM names); the expression indexes cannot be, so a future
// `migration:generate` will propose dropping them: keep them.
module.exports = class ChainApiIndexes1795431500000 {
    name = 'ChainApiIndexes1795431500000'

    async up(db) {
        await db.query(`DROP INDEX "public"."IDX_30f335fe68b4d358d11d2ef797"`)
        await db.query(`CREATE INDEX "IDX_7c21555903f844ca1c1dd0d265" ON "token_balance" ("token", "value", "holder") `)
        await db.query(`CREATE INDEX "IDX_6c6ebc714c1c8ad156e3a82281" ON "token" ("holder_count", "id") `)
        await db.query(`CREATE INDEX "token_name_prefix" ON "token" (lower("name") text_pattern_ops)`)
        await db.query(`CREATE INDEX "token_symbol_prefix" ON "token" (lower("symbol") text_pattern_ops)`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."token_symbol_prefix"`)
        await db.query(`DROP INDEX "public"."token_name_prefix"`)
        await db.query(`DROP INDEX "public"."IDX_6c6ebc714c1c8ad156e3a82281"`)
        await db.query(`DROP INDEX "public"."IDX_7c21555903f844ca1c1dd0d265"`)
        await db.query(`CREATE INDEX "IDX_30f335fe68b4d358d11d2ef797" ON "token_balance" ("token", "value") `)
    }
}
