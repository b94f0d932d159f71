// Bridge (hand-written): the least payout a swap accepts at the rate lock.
module.exports = class BridgeRateBound1795432600000 {
    name = 'BridgeRateBound1795432600000'

    async up(db) {
        // Base units of the target token. Null for swaps created before the bound existed: they
        // lock at whatever the rate is, as they were promised.
        await db.query(`ALTER TABLE "bridge_swap" ADD "min_target_amount" numeric(78,0)`)
    }

    async down(db) {
        await db.query(`ALTER TABLE "bridge_swap" DROP COLUMN "min_target_amount"`)
    }
}
