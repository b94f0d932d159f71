// NFT ownership (docs/indexer.md#nfts): one token_instance row per (token, token id) with the ERC-721
// owner and the id's transfer count, ERC-1155 balances per (token, token id, holder) in nft_balance,
// the position of an ERC-1155 TransferBatch row within its log, and each token's instance count.
// instance_count keeps its default of 0 so that rows written without it (fixtures, benches) are tokens without NFTs.
// A database indexed before keeps its ERC-721 transfers: their instances are filled from them (the
// owner is the receiver of each id's last transfer), so the routes answer without a re-index.
module.exports = class Nfts1795435300000 {
    name = 'Nfts1795435300000'

    async up(db) {
        await db.query(`ALTER TABLE "token_transfer" ADD "batch_index" integer`)
        await db.query(`ALTER TABLE "token" ADD "instance_count" integer NOT NULL DEFAULT 0`)
        await db.query(`CREATE TABLE "token_instance" ("id" character varying NOT NULL, "token" text NOT NULL, "token_id" numeric NOT NULL, "owner" text, "transfer_count" integer NOT NULL, "first_block" integer NOT NULL, CONSTRAINT "PK_1efd90529b969a83f9e52f4de44" PRIMARY KEY ("id"))`)
        await db.query(`CREATE UNIQUE INDEX "IDX_4269e0d34295c77b56da8d0fab" ON "token_instance" ("token", "token_id") `)
        await db.query(`CREATE INDEX "IDX_6ba744146e54d3cd705e47418b" ON "token_instance" ("owner", "token", "token_id") `)
        await db.query(`CREATE TABLE "nft_balance" ("id" character varying NOT NULL, "token" text NOT NULL, "token_id" numeric NOT NULL, "holder" text NOT NULL, "value" numeric NOT NULL, CONSTRAINT "PK_011bcf0e8b36671d116dc7ca4d3" PRIMARY KEY ("id"))`)
        await db.query(`CREATE INDEX "IDX_79502242dc5910c40566aaffab" ON "nft_balance" ("token", "token_id", "value", "holder") `)
        await db.query(`CREATE INDEX "IDX_d354d32af7a959e67a27635f2e" ON "nft_balance" ("holder", "token", "token_id") `)
        // An ERC-1155's holders per token id, largest first (/tokens/{h}/holders). TypeORM names an index by its sorted
        // columns, so this one would take the name of (token, token_id, value, holder): it is named here instead.
        await db.query(`CREATE INDEX "nft_balance_token_holders" ON "nft_balance" ("token", "value", "holder", "token_id") `)
        // An instance's transfers, newest first; partial: ERC-20 rows (most of the table) have no token id.
        await db.query(`CREATE INDEX "token_transfer_instance" ON "token_transfer" ("token", "token_id", "block_number", "log_index") WHERE token_id IS NOT NULL`)
        await db.query(`
            INSERT INTO token_instance (id, token, token_id, owner, transfer_count, first_block)
            SELECT token || '-' || token_id::text, token, token_id, (array_agg("to" ORDER BY id DESC))[1], count(*)::int, min(block_number)
              FROM token_transfer WHERE token_type = 'ERC-721' AND token_id IS NOT NULL
             GROUP BY token, token_id`)
        await db.query(`
            UPDATE token k SET instance_count = i.n
              FROM (SELECT token, count(*)::int AS n FROM token_instance GROUP BY token) i
             WHERE k.id = i.token`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."token_transfer_instance"`)
        await db.query(`DROP INDEX "public"."nft_balance_token_holders"`)
        await db.query(`DROP TABLE "nft_balance"`)
        await db.query(`DROP TABLE "token_instance"`)
        await db.query(`ALTER TABLE "token" DROP COLUMN "instance_count"`)
        await db.query(`ALTER TABLE "token_transfer" DROP COLUMN "batch_index"`)
    }
}
