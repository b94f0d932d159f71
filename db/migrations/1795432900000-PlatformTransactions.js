// Wallet platform (hand-written): every transaction the platform signs is stored before it is
// broadcast, so a crash or a lost answer never loses it nor reuses its nonce (docs/sending.md).
module.exports = class PlatformTransactions1795432900000 {
    name = 'PlatformTransactions1795432900000'

    async up(db) {
        // The columns the shared sender works on are bridge_tx's; request_id and step name the plan the transaction belongs to.
        await db.query(`CREATE TABLE "platform_tx" (
            "id" bigserial NOT NULL,
            "request_id" uuid NOT NULL,
            "step" integer NOT NULL,
            "chain" text NOT NULL,
            "from_address" text NOT NULL,
            "to_address" text,
            "nonce" bigint,
            "tx_hash" text NOT NULL,
            "raw" text NOT NULL,
            "status" text NOT NULL,
            "error" text,
            "block_number" bigint,
            "suspect_since" TIMESTAMP WITH TIME ZONE,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_platform_tx" PRIMARY KEY ("id"),
            CONSTRAINT "UQ_platform_tx_step" UNIQUE ("request_id", "step"))`)
        await db.query(`CREATE INDEX "IDX_platform_tx_sender" ON "platform_tx" ("chain", "from_address") WHERE "status" IN ('signed', 'broadcast')`)
        await db.query(`CREATE INDEX "IDX_platform_tx_nonce" ON "platform_tx" ("chain", "from_address", "nonce") WHERE "nonce" IS NOT NULL`)
        await db.query(`CREATE INDEX "IDX_platform_tx_hash" ON "platform_tx" ("tx_hash")`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."IDX_platform_tx_hash"`)
        await db.query(`DROP INDEX "public"."IDX_platform_tx_nonce"`)
        await db.query(`DROP INDEX "public"."IDX_platform_tx_sender"`)
        await db.query(`DROP TABLE "platform_tx"`)
    }
}
