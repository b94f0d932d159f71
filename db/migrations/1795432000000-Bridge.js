// Bridge tables (hand-written). Amounts are integers in the token's base units (numeric(78,0) holds
// any uint256); addresses are stored as the chain writes them (EVM: checksummed).
module.exports = class Bridge1795432000000 {
    name = 'Bridge1795432000000'

    async up(db) {
        // One HD seed per chain family, sealed with AES-256-GCM under a key derived from MASTER_KEY.
        await db.query(`CREATE TABLE "bridge_key_seed" ("family" text NOT NULL, "iv" bytea NOT NULL, "ciphertext" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_bridge_key_seed" PRIMARY KEY ("family"))`)
        // Deposit key indexes: one sequence for every family, so an index is never handed out twice.
        await db.query(`CREATE SEQUENCE "bridge_deposit_index_seq" AS bigint MINVALUE 0 START WITH 0`)
        await db.query(`CREATE TABLE "bridge_swap" (
            "id" uuid NOT NULL,
            "status" text NOT NULL,
            "source_chain" text NOT NULL, "source_token" text NOT NULL,
            "target_chain" text NOT NULL, "target_token" text NOT NULL,
            "source_amount" numeric(78,0) NOT NULL,
            "target_wallet" text NOT NULL,
            "refund_address" text,
            "route_kind" text NOT NULL,
            "route" jsonb NOT NULL,
            "fee_bps" integer NOT NULL,
            "quoted_target_amount" numeric(78,0),
            "deposit_family" text NOT NULL,
            "deposit_index" bigint NOT NULL,
            "deposit_address" text NOT NULL,
            "watch_from_block" bigint NOT NULL,
            "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
            "deposit_tx_hash" text, "deposit_amount" numeric(78,0), "deposit_block" bigint, "deposit_block_hash" text,
            "deposit_block_time" TIMESTAMP WITH TIME ZONE,
            "locked_target_amount" numeric(78,0), "fee_amount" numeric(78,0), "rate" text, "rate_detail" jsonb,
            "rate_locked_at" TIMESTAMP WITH TIME ZONE,
            "gather_tx_hash" text, "gathered_amount" numeric(78,0),
            "payout_tx_hash" text,
            "refund_status" text, "refund_tx_hash" text, "refund_amount" numeric(78,0),
            "error_message" text,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "finished_at" TIMESTAMP WITH TIME ZONE,
            CONSTRAINT "PK_bridge_swap" PRIMARY KEY ("id"),
            CONSTRAINT "UQ_bridge_swap_deposit_key" UNIQUE ("deposit_family", "deposit_index"))`)
        // The engine's work list: swaps not yet finished, and failed swaps whose refund is still owed.
        await db.query(`CREATE INDEX "IDX_bridge_swap_active" ON "bridge_swap" ("status", "created_at") WHERE "status" NOT IN ('completed', 'expired') AND ("status" <> 'failed' OR "refund_status" = 'pending')`)
        await db.query(`CREATE INDEX "IDX_bridge_swap_deposit_address" ON "bridge_swap" (lower("deposit_address"))`)
        // The lifecycle history, and the outbox of every consumer (WebSocket fan-out now, webhooks later):
        // each row is written in the transaction that moves the swap, and announced with NOTIFY bridge_event.
        await db.query(`CREATE TABLE "bridge_swap_event" (
            "id" bigserial NOT NULL,
            "swap_id" uuid NOT NULL,
            "event" text NOT NULL,
            "status" text NOT NULL,
            "tx_hash" text,
            "data" jsonb NOT NULL DEFAULT '{}',
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
            CONSTRAINT "PK_bridge_swap_event" PRIMARY KEY ("id"),
            CONSTRAINT "FK_bridge_swap_event_swap" FOREIGN KEY ("swap_id") REFERENCES "bridge_swap" ("id") ON DELETE CASCADE)`)
        await db.query(`CREATE INDEX "IDX_bridge_swap_event_swap" ON "bridge_swap_event" ("swap_id", "id")`)
        // Every transaction the bridge signs, stored before it is broadcast, so a restart rebroadcasts
        // the same bytes instead of signing again.
        await db.query(`CREATE TABLE "bridge_tx" (
            "id" bigserial NOT NULL,
            "swap_id" uuid NOT NULL,
            "purpose" text NOT NULL,
            "attempt" integer NOT NULL,
            "chain" text NOT NULL,
            "from_address" text NOT NULL,
            "to_address" text NOT NULL,
            "asset" text NOT NULL,
            "amount" numeric(78,0) NOT NULL,
            "nonce" bigint,
            "tx_hash" text NOT NULL,
            "raw" text NOT NULL,
            "status" text NOT NULL,
            "error" text,
            "block_number" bigint,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_bridge_tx" PRIMARY KEY ("id"),
            CONSTRAINT "UQ_bridge_tx_attempt" UNIQUE ("swap_id", "purpose", "attempt"),
            CONSTRAINT "FK_bridge_tx_swap" FOREIGN KEY ("swap_id") REFERENCES "bridge_swap" ("id") ON DELETE CASCADE)`)
        // At most one transaction per swap and purpose that can still land: the database itself refuses a second payout.
        // (Gas top-ups are exempt: a gather may need a second one when fees rise.)
        await db.query(`CREATE UNIQUE INDEX "UQ_bridge_tx_live" ON "bridge_tx" ("swap_id", "purpose") WHERE "status" NOT IN ('rejected', 'dead') AND "purpose" <> 'gather_gas'`)
        await db.query(`CREATE INDEX "IDX_bridge_tx_sender" ON "bridge_tx" ("chain", "from_address") WHERE "status" IN ('signed', 'broadcast')`)
        // The layout rate-limiter-flexible's RateLimiterPostgres expects (it is told the table exists).
        await db.query(`CREATE TABLE "bridge_rate_limit" ("key" character varying(255) NOT NULL, "points" integer NOT NULL DEFAULT 0, "expire" bigint, CONSTRAINT "PK_bridge_rate_limit" PRIMARY KEY ("key"))`)
    }

    async down(db) {
        await db.query(`DROP TABLE "bridge_rate_limit"`)
        await db.query(`DROP INDEX "public"."IDX_bridge_tx_sender"`)
        await db.query(`DROP INDEX "public"."UQ_bridge_tx_live"`)
        await db.query(`DROP TABLE "bridge_tx"`)
        await db.query(`DROP INDEX "public"."IDX_bridge_swap_event_swap"`)
        await db.query(`DROP TABLE "bridge_swap_event"`)
        await db.query(`DROP INDEX "public"."IDX_bridge_swap_deposit_address"`)
        await db.query(`DROP INDEX "public"."IDX_bridge_swap_active"`)
        await db.query(`DROP TABLE "bridge_swap"`)
        await db.query(`DROP SEQUENCE "bridge_deposit_index_seq"`)
        await db.query(`DROP TABLE "bridge_key_seed"`)
    }
}
