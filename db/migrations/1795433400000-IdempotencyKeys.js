// Idempotency keys (hand-written; common/service/idempotency.ts, docs/platform-api.md "Retries and
// idempotency"): one row per (scope, key), where scope is "platform:<user id>" or "bridge:<client
// key>". The first request of a key claims it (in_flight); its final answer is kept (done) and
// replayed to every retry with the same request. request_ids are the platform requests (platform_tx
// request_id) the holder started signing, so a retry after a crash finds what was signed.
module.exports = class IdempotencyKeys1795433400000 {
    name = 'IdempotencyKeys1795433400000'

    async up(db) {
        await db.query(`CREATE TABLE "idempotency_key" (
            "scope" text NOT NULL,
            "key" text NOT NULL,
            "fingerprint" text NOT NULL,
            "state" text NOT NULL CHECK ("state" IN ('in_flight', 'done')),
            "owner" text NOT NULL,
            "request_ids" text[] NOT NULL DEFAULT '{}',
            "status" integer,
            "headers" jsonb,
            "body" text,
            "created_at" timestamp with time zone NOT NULL DEFAULT now(),
            "completed_at" timestamp with time zone,
            CONSTRAINT "PK_idempotency_key" PRIMARY KEY ("scope", "key"))`)
        await db.query(`CREATE INDEX "IDX_idempotency_key_created" ON "idempotency_key" ("created_at")`)
    }

    async down(db) {
        await db.query(`DROP TABLE "idempotency_key"`)
    }
}
