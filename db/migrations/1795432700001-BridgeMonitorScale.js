// Bridge (hand-written): the deposit monitor's cursor survives a restart, and a client's
// waiting swaps can be counted.
module.exports = class BridgeMonitorScale1795432700001 {
    name = 'BridgeMonitorScale1795432700001'

    async up(db) {
        // The last block of each source chain the monitor has scanned with every swap then waiting.
        // Without it a restart rescans from the oldest waiting swap, on nodes that may no longer hold that state.
        await db.query(`CREATE TABLE "bridge_monitor_cursor" (
            "chain" text NOT NULL,
            "block" bigint NOT NULL,
            "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_bridge_monitor_cursor" PRIMARY KEY ("chain"))`)
        // Who created the swap (the address the HTTP layer sees, as its rate limiter does); null for swaps made before.
        await db.query(`ALTER TABLE "bridge_swap" ADD "client_ip" text`)
        await db.query(`CREATE INDEX "IDX_bridge_swap_pending_ip" ON "bridge_swap" ("client_ip") WHERE "status" = 'pending_deposit'`)
        // The monitor's list of one chain's waiting swaps.
        await db.query(`CREATE INDEX "IDX_bridge_swap_pending_chain" ON "bridge_swap" ("source_chain", "created_at") WHERE "status" = 'pending_deposit'`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."IDX_bridge_swap_pending_chain"`)
        await db.query(`DROP INDEX "public"."IDX_bridge_swap_pending_ip"`)
        await db.query(`ALTER TABLE "bridge_swap" DROP COLUMN "client_ip"`)
        await db.query(`DROP TABLE "bridge_monitor_cursor"`)
    }
}
