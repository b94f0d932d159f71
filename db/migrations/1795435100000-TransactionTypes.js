// Every transaction type (docs/indexer.md#transaction-types): the fields of EIP-2930, EIP-4844 and
// EIP-7702 transactions, the blob gas of blocks, and an EOA's EIP-7702 delegation. Rows indexed
// before keep nulls (a reindex fills them). The partial index serves /transactions?type=blob_transaction
// without scanning a table in which blob transactions are rare.
module.exports = class TransactionTypes1795435100000 {
    name = 'TransactionTypes1795435100000'

    async up(db) {
        await db.query(`ALTER TABLE "block" ADD "blob_gas_used" numeric, ADD "excess_blob_gas" numeric, ADD "blob_gas_price" numeric`)
        await db.query(`ALTER TABLE "transaction" ADD "chain_id" numeric, ADD "access_list" jsonb, ADD "max_fee_per_blob_gas" numeric,
            ADD "blob_versioned_hashes" jsonb, ADD "blob_gas_used" numeric, ADD "blob_gas_price" numeric, ADD "authorization_list" jsonb`)
        await db.query(`ALTER TABLE "address" ADD "delegated_to" text, ADD "delegation_block" integer`)
        await db.query(`CREATE INDEX "IDX_transaction_blob" ON "transaction" ("block_number", "index") WHERE "type" = 3`)
    }

    async down(db) {
        await db.query(`DROP INDEX "IDX_transaction_blob"`)
        await db.query(`ALTER TABLE "address" DROP COLUMN "delegated_to", DROP COLUMN "delegation_block"`)
        await db.query(`ALTER TABLE "transaction" DROP COLUMN "chain_id", DROP COLUMN "access_list", DROP COLUMN "max_fee_per_blob_gas",
            DROP COLUMN "blob_versioned_hashes", DROP COLUMN "blob_gas_used", DROP COLUMN "blob_gas_price", DROP COLUMN "authorization_list"`)
        await db.query(`ALTER TABLE "block" DROP COLUMN "blob_gas_used", DROP COLUMN "excess_blob_gas", DROP COLUMN "blob_gas_price"`)
    }
}
