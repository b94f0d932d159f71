// Wallet platform (hand-written): a wallet's transactions newest first, keyset-paginated by id
// (GET /api/wallet/transactions/:address, docs/platform-api.md, History).
module.exports = class PlatformHistoryIndexes1795433500000 {
    name = 'PlatformHistoryIndexes1795433500000'

    async up(db) {
        await db.query(`CREATE INDEX "IDX_platform_tx_history" ON "platform_tx" ("from_address", "id")`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."IDX_platform_tx_history"`)
    }
}
