// The top-accounts list (GET /api/v2/addresses) pages through coin holders by balance descending,
// then address ascending, as Blockscout orders them: one index in exactly that order, over holders
// only (most addresses hold no coin), serves any page with one bounded scan. A mixed-direction,
// partial index cannot be declared in schema.graphql, so a future `migration:generate` will
// propose dropping it: keep it. Its cost is on the indexer's balance updates, which can no longer
// be heap-only (HOT) updates: one more index write per address touched.
module.exports = class TopAccounts1795432800001 {
    name = 'TopAccounts1795432800001'

    async up(db) {
        await db.query(`CREATE INDEX "address_top_accounts" ON "address" ("balance" DESC, "id") WHERE "balance" > 0`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."address_top_accounts"`)
    }
}
