// Revert data of failed transactions (docs/indexer.md#revert-data): the top-level call's error as
// traced, and the revert data, from the call tree or an eth_call replay when tracing is off. Rows
// indexed before keep nulls (a reindex fills them), as with the transaction types: the API then
// shows what it showed before, `execution reverted` without a reason.
module.exports = class RevertReasons1795435500000 {
    name = 'RevertReasons1795435500000'

    async up(db) {
        await db.query(`ALTER TABLE "transaction" ADD "error" text, ADD "revert_data" bytea`)
    }

    async down(db) {
        await db.query(`ALTER TABLE "transaction" DROP COLUMN "error", DROP COLUMN "revert_data"`)
    }
}
