// Bridge (hand-written): the transfers that make up a late deposit (issue 35). A late deposit is the
// balance found at the address of an ended swap, gathered and refunded as one; when several transfers
// sit there at once, each is listed here so that the swap shows every one of them
// (docs/bridge/lifecycle.md#extra-and-late-deposits). transfers: [{tx_hash, amount (base units,
// string), block_number (string), block_hash}], oldest first; what they do not add up to is unattributed.
module.exports = class BridgeLateDepositTransfers1795433600000 {
    name = 'BridgeLateDepositTransfers1795433600000'

    async up(db) {
        await db.query(`ALTER TABLE "bridge_late_deposit" ADD "transfers" jsonb NOT NULL DEFAULT '[]'`)
        // A row recorded before: its one transfer, when it had found it, is the whole amount.
        await db.query(`UPDATE "bridge_late_deposit" SET "transfers" = jsonb_build_array(jsonb_build_object(
            'tx_hash', "tx_hash", 'amount', "amount"::text, 'block_number', "block_number"::text, 'block_hash', "block_hash"))
            WHERE "tx_hash" IS NOT NULL`)
    }

    async down(db) {
        await db.query(`ALTER TABLE "bridge_late_deposit" DROP COLUMN "transfers"`)
    }
}
