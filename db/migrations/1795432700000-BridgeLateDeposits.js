// Bridge (hand-written): deposits that arrive at the address of a swap that has
// already ended (completed, failed, expired). Each is confirmed, gathered into the vault and refunded
// on its own, keyed by its id here: the sender's purposes late_gather:<id> / late_refund:<id> allow
// one live transaction per late deposit, so a swap may receive several over time and none is paid twice.
module.exports = class BridgeLateDeposits1795432700000 {
    name = 'BridgeLateDeposits1795432700000'

    async up(db) {
        // amount: base units of the swap's source asset seen at the address; block_*: where it was
        // seen (its transfer's block when known, else the head block whose balance showed it).
        await db.query(`CREATE TABLE "bridge_late_deposit" (
            "id" bigserial NOT NULL,
            "swap_id" uuid NOT NULL,
            "chain" text NOT NULL,
            "asset" text NOT NULL,
            "amount" numeric(78,0) NOT NULL,
            "tx_hash" text,
            "block_number" bigint NOT NULL,
            "block_hash" text NOT NULL,
            "state" text NOT NULL,
            "gather_tx_hash" text, "gathered_amount" numeric(78,0),
            "refund_address" text, "refund_tx_hash" text, "refund_amount" numeric(78,0),
            "error" text,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_bridge_late_deposit" PRIMARY KEY ("id"),
            CONSTRAINT "CHK_bridge_late_deposit_state" CHECK ("state" IN ('detected', 'confirmed', 'gathered', 'refunded', 'held', 'dropped')),
            CONSTRAINT "FK_bridge_late_deposit_swap" FOREIGN KEY ("swap_id") REFERENCES "bridge_swap" ("id") ON DELETE CASCADE)`)
        // One open late deposit per swap: the next is looked for once this one is refunded (a held
        // one stays at the address for an operator, and stops the watch of that address).
        await db.query(`CREATE UNIQUE INDEX "UQ_bridge_late_deposit_open" ON "bridge_late_deposit" ("swap_id") WHERE "state" IN ('detected', 'confirmed', 'gathered', 'held')`)
        await db.query(`CREATE INDEX "IDX_bridge_late_deposit_work" ON "bridge_late_deposit" ("updated_at") WHERE "state" IN ('detected', 'confirmed', 'gathered')`)
        // The late-deposit watch's list: swaps of a chain that ended within the watch window.
        await db.query(`CREATE INDEX "IDX_bridge_swap_ended" ON "bridge_swap" ("source_chain", "finished_at") WHERE "finished_at" IS NOT NULL`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."IDX_bridge_swap_ended"`)
        await db.query(`DROP TABLE "bridge_late_deposit"`)
    }
}
