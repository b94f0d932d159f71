// The NFT metadata cache (docs/nft-metadata.md): one row per (token, token id) the fetcher found in
// token_transfer, with the token URI read from the chain, the fetched document and Blockscout's media
// fields taken from it, and the retry state. Not chain history: a reorganisation never undoes a row,
// so nothing here is in the indexer's hot-block change log. The discovery cursor is its own row, and
// the partial index lets the cursor walk NFT transfers only, never the ERC-20 ones between them.
module.exports = class NftMetadata1795435400000 {
    name = 'NftMetadata1795435400000'

    async up(db) {
        await db.query(`CREATE TABLE "nft_metadata" (
            "token" text NOT NULL,
            "token_id" numeric NOT NULL,
            "token_type" text NOT NULL,
            "status" text NOT NULL DEFAULT 'pending',
            "token_uri" text,
            "metadata" jsonb,
            "image_url" text,
            "animation_url" text,
            "external_app_url" text,
            "error" text,
            "attempts" integer NOT NULL DEFAULT 0,
            "attempted_at" TIMESTAMP WITH TIME ZONE,
            "next_attempt_at" TIMESTAMP WITH TIME ZONE,
            "fetched_at" TIMESTAMP WITH TIME ZONE,
            CONSTRAINT "nft_metadata_pkey" PRIMARY KEY ("token", "token_id"),
            CONSTRAINT "nft_metadata_status" CHECK ("status" IN ('pending', 'fetched', 'failed'))
        )`)
        await db.query(`CREATE INDEX "nft_metadata_due" ON "nft_metadata" ("next_attempt_at") WHERE "next_attempt_at" IS NOT NULL`)
        await db.query(`CREATE TABLE "nft_metadata_cursor" ("id" text NOT NULL, "block_number" integer NOT NULL, "log_index" integer NOT NULL, CONSTRAINT "nft_metadata_cursor_pkey" PRIMARY KEY ("id"))`)
        await db.query(`CREATE INDEX "token_transfer_nft_order" ON "token_transfer" ("block_number", "log_index") WHERE "token_id" IS NOT NULL`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."token_transfer_nft_order"`)
        await db.query(`DROP TABLE "nft_metadata_cursor"`)
        await db.query(`DROP TABLE "nft_metadata"`)
    }
}
