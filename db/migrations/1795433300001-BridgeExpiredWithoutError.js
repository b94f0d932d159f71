// Bridge (hand-written): an expired swap has no error_message (the spec: null unless failed; the
// status and its swap_expired event say the window closed). Swaps expired before this release carry
// the old text; it is cleared so that /status and /swap/:id answer the same for every expired swap.
module.exports = class BridgeExpiredWithoutError1795433300001 {
    name = 'BridgeExpiredWithoutError1795433300001'

    async up(db) {
        await db.query(`UPDATE "bridge_swap" SET "error_message" = NULL
                        WHERE "status" = 'expired' AND "error_message" = 'no deposit arrived before the window closed'`)
    }

    async down() {
        // Nothing to restore: the text carried no information the status does not.
    }
}
