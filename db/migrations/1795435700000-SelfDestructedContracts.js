// Self-destructed contracts (docs/indexer.md#self-destructed-contracts): whether a contract's code was
// gone when read after a selfdestruct frame, cleared by a later creation at the address. Rows indexed
// before keep null (a reindex fills them): the API then shows such a contract as it did before, created
// with success.
module.exports = class SelfDestructedContracts1795435700000 {
    name = 'SelfDestructedContracts1795435700000'

    async up(db) {
        await db.query(`ALTER TABLE "address" ADD "self_destructed" boolean`)
    }

    async down(db) {
        await db.query(`ALTER TABLE "address" DROP COLUMN "self_destructed"`)
    }
}
