// Bridge, second step (hand-written): the pool trade a route's pool leg makes from a vault, and
// automatic refund retries.
module.exports = class BridgePoolLegs1795432100000 {
    name = 'BridgePoolLegs1795432100000'

    async up(db) {
        // The pool leg as executed: pool, chain, tokens, amounts in, locked out, minimum out, actual
        // out, transaction. Null for routes without a pool leg, or until the trade is final.
        await db.query(`ALTER TABLE "bridge_swap" ADD "pool_trade" jsonb`)
        // A refund that could not be sent is tried again later (doubling delay) up to a bound; then
        // refund_status becomes 'failed' and an operator takes over (refund_error says why).
        await db.query(`ALTER TABLE "bridge_swap" ADD "refund_attempts" integer NOT NULL DEFAULT 0`)
        await db.query(`ALTER TABLE "bridge_swap" ADD "refund_retry_at" TIMESTAMP WITH TIME ZONE`)
        await db.query(`ALTER TABLE "bridge_swap" ADD "refund_error" text`)
    }

    async down(db) {
        await db.query(`ALTER TABLE "bridge_swap" DROP COLUMN "refund_error"`)
        await db.query(`ALTER TABLE "bridge_swap" DROP COLUMN "refund_retry_at"`)
        await db.query(`ALTER TABLE "bridge_swap" DROP COLUMN "refund_attempts"`)
        await db.query(`ALTER TABLE "bridge_swap" DROP COLUMN "pool_trade"`)
    }
}
