// Bridge, fifth step (hand-written): operator holds and the evidence rules of the sender.
module.exports = class BridgeHolds1795432500000 {
    name = 'BridgeHolds1795432500000'

    async up(db) {
        // A swap the engine will not move on its own until an operator has looked (a nonce used by
        // nobody we know, a gathered deposit a reorganisation took away): why, and since when.
        await db.query(`ALTER TABLE "bridge_swap" ADD "hold_reason" text, ADD "held_at" TIMESTAMP WITH TIME ZONE`)
        // When the node first said a stored transaction can never land. The verdict counts only
        // when a later look, at least a worker pass apart, says the same (one read is no evidence).
        await db.query(`ALTER TABLE "bridge_tx" ADD "suspect_since" TIMESTAMP WITH TIME ZONE`)
        // The sender's nonce floor and the "which of ours used this nonce" lookup.
        await db.query(`CREATE INDEX "IDX_bridge_tx_nonce" ON "bridge_tx" ("chain", "from_address", "nonce") WHERE "nonce" IS NOT NULL`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."IDX_bridge_tx_nonce"`)
        await db.query(`ALTER TABLE "bridge_tx" DROP COLUMN "suspect_since"`)
        await db.query(`ALTER TABLE "bridge_swap" DROP COLUMN "held_at", DROP COLUMN "hold_reason"`)
    }
}
