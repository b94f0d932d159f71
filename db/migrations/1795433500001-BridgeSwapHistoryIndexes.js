// Bridge (hand-written): swaps by target wallet or by refund address, newest first, keyset-paginated
// by (created_at, id) (GET /api/swaps, docs/bridge/lifecycle.md); scanned backwards.
module.exports = class BridgeSwapHistoryIndexes1795433500001 {
    name = 'BridgeSwapHistoryIndexes1795433500001'

    async up(db) {
        await db.query(`CREATE INDEX "IDX_bridge_swap_target_wallet" ON "bridge_swap" ("target_wallet", "created_at", "id")`)
        await db.query(`CREATE INDEX "IDX_bridge_swap_refund_address" ON "bridge_swap" ("refund_address", "created_at", "id") WHERE "refund_address" IS NOT NULL`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."IDX_bridge_swap_refund_address"`)
        await db.query(`DROP INDEX "public"."IDX_bridge_swap_target_wallet"`)
    }
}
