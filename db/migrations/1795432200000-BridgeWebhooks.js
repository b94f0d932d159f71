// Bridge webhooks (hand-written): subscriptions with sealed signing secrets, the events recorded
// from the lifecycle outbox, and the delivery queue with its per-attempt history.
module.exports = class BridgeWebhooks1795432200000 {
    name = 'BridgeWebhooks1795432200000'

    async up(db) {
        await db.query(`CREATE TABLE "bridge_webhook_subscription" (
            "id" uuid NOT NULL DEFAULT gen_random_uuid(),
            "url" text NOT NULL,
            "event_types" text[],
            "description" text NOT NULL DEFAULT '',
            "method" text NOT NULL DEFAULT 'POST',
            "active" boolean NOT NULL DEFAULT true,
            "failure_count" integer NOT NULL DEFAULT 0,
            "failed_events" integer NOT NULL DEFAULT 0,
            "failing_since" TIMESTAMP WITH TIME ZONE,
            "last_success_at" TIMESTAMP WITH TIME ZONE,
            "last_failure_at" TIMESTAMP WITH TIME ZONE,
            "disabled_at" TIMESTAMP WITH TIME ZONE,
            "disabled_reason" text,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_bridge_webhook_subscription" PRIMARY KEY ("id"))`)
        // Signing secrets, sealed with AES-256-GCM under a key derived from MASTER_KEY (never stored in
        // clear). expires_at is null for the current secret; a rotated-out one keeps signing until it.
        await db.query(`CREATE TABLE "bridge_webhook_secret" (
            "id" bigserial NOT NULL,
            "subscription_id" uuid NOT NULL,
            "iv" bytea NOT NULL,
            "ciphertext" bytea NOT NULL,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "expires_at" TIMESTAMP WITH TIME ZONE,
            CONSTRAINT "PK_bridge_webhook_secret" PRIMARY KEY ("id"),
            CONSTRAINT "FK_bridge_webhook_secret_subscription" FOREIGN KEY ("subscription_id") REFERENCES "bridge_webhook_subscription" ("id") ON DELETE CASCADE)`)
        await db.query(`CREATE INDEX "IDX_bridge_webhook_secret_subscription" ON "bridge_webhook_secret" ("subscription_id")`)
        // One row per lifecycle event (and per test ping). swap_event_id is unique, so an event is
        // recorded once however many replicas fan it out. No foreign key to bridge_swap_event: the
        // webhook history must not stand in the way of the engine's own tables.
        await db.query(`CREATE TABLE "bridge_webhook_event" (
            "id" uuid NOT NULL DEFAULT gen_random_uuid(),
            "swap_event_id" bigint,
            "event" text NOT NULL,
            "swap_id" uuid,
            "body" text,
            "fanned_out_at" TIMESTAMP WITH TIME ZONE,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
            CONSTRAINT "PK_bridge_webhook_event" PRIMARY KEY ("id"),
            CONSTRAINT "UQ_bridge_webhook_event_swap_event" UNIQUE ("swap_event_id"))`)
        await db.query(`CREATE INDEX "IDX_bridge_webhook_event_fan_out" ON "bridge_webhook_event" ("swap_event_id") WHERE "fanned_out_at" IS NULL`)
        // The outbox feeds the webhooks from a trigger, in the transaction that writes the lifecycle
        // event: nothing is recorded for a rolled-back transition, nothing committed is ever missed,
        // and the engine needs no change. Deliveries are made from these rows by the dispatcher.
        await db.query(`CREATE FUNCTION "bridge_webhook_record_event"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO "bridge_webhook_event" ("swap_event_id", "event", "swap_id", "created_at")
                VALUES (NEW."id", NEW."event", NEW."swap_id", NEW."created_at")
                ON CONFLICT ("swap_event_id") DO NOTHING;
                RETURN NULL;
            END $$`)
        await db.query(`CREATE TRIGGER "TR_bridge_swap_event_webhook" AFTER INSERT ON "bridge_swap_event" FOR EACH ROW EXECUTE FUNCTION "bridge_webhook_record_event"()`)
        // The queue: one row per (event, subscription), claimed with FOR UPDATE SKIP LOCKED. A pending
        // row's next_attempt_at is when it is due, or, while an attempt is in flight, when that
        // attempt's lease runs out (so a replica that died mid-attempt hands it back by itself).
        await db.query(`CREATE TABLE "bridge_webhook_delivery" (
            "id" uuid NOT NULL DEFAULT gen_random_uuid(),
            "seq" bigserial NOT NULL,
            "event_id" uuid NOT NULL,
            "subscription_id" uuid NOT NULL,
            "state" text NOT NULL DEFAULT 'pending',
            "attempts" integer NOT NULL DEFAULT 0,
            "next_attempt_at" TIMESTAMP WITH TIME ZONE,
            "lease_token" uuid,
            "last_status" integer,
            "last_error" text,
            "last_attempt_at" TIMESTAMP WITH TIME ZONE,
            "delivered_at" TIMESTAMP WITH TIME ZONE,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_bridge_webhook_delivery" PRIMARY KEY ("id"),
            CONSTRAINT "UQ_bridge_webhook_delivery_event_subscription" UNIQUE ("event_id", "subscription_id"),
            CONSTRAINT "CHK_bridge_webhook_delivery_state" CHECK ("state" IN ('pending', 'delivered', 'undelivered')),
            CONSTRAINT "FK_bridge_webhook_delivery_event" FOREIGN KEY ("event_id") REFERENCES "bridge_webhook_event" ("id") ON DELETE CASCADE,
            CONSTRAINT "FK_bridge_webhook_delivery_subscription" FOREIGN KEY ("subscription_id") REFERENCES "bridge_webhook_subscription" ("id") ON DELETE CASCADE)`)
        await db.query(`CREATE INDEX "IDX_bridge_webhook_delivery_due" ON "bridge_webhook_delivery" ("next_attempt_at") WHERE "state" = 'pending'`)
        // A queue table churns (every row is updated at least twice): vacuum and analyze it after 1 % of
        // changes rather than the default 10-20 %, so its due index stays lean and its statistics current.
        await db.query(`ALTER TABLE "bridge_webhook_delivery" SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01)`)
        await db.query(`CREATE INDEX "IDX_bridge_webhook_delivery_history" ON "bridge_webhook_delivery" ("subscription_id", "seq")`)
        // Every attempt: when, how long, the HTTP status or the network error, and what was scheduled next (the
        // delay as the schedule chose it, and the time it gives).
        await db.query(`CREATE TABLE "bridge_webhook_attempt" (
            "id" bigserial NOT NULL,
            "delivery_id" uuid NOT NULL,
            "attempt" integer NOT NULL,
            "started_at" TIMESTAMP WITH TIME ZONE NOT NULL,
            "duration_ms" integer NOT NULL,
            "status" integer,
            "error" text,
            "next_attempt_at" TIMESTAMP WITH TIME ZONE,
            "retry_in_ms" integer,
            CONSTRAINT "PK_bridge_webhook_attempt" PRIMARY KEY ("id"),
            CONSTRAINT "FK_bridge_webhook_attempt_delivery" FOREIGN KEY ("delivery_id") REFERENCES "bridge_webhook_delivery" ("id") ON DELETE CASCADE)`)
        await db.query(`CREATE INDEX "IDX_bridge_webhook_attempt_delivery" ON "bridge_webhook_attempt" ("delivery_id", "attempt")`)
    }

    async down(db) {
        await db.query(`DROP INDEX "public"."IDX_bridge_webhook_attempt_delivery"`)
        await db.query(`DROP TABLE "bridge_webhook_attempt"`)
        await db.query(`DROP INDEX "public"."IDX_bridge_webhook_delivery_history"`)
        await db.query(`DROP INDEX "public"."IDX_bridge_webhook_delivery_due"`)
        await db.query(`DROP TABLE "bridge_webhook_delivery"`)
        await db.query(`DROP TRIGGER "TR_bridge_swap_event_webhook" ON "bridge_swap_event"`)
        await db.query(`DROP FUNCTION "bridge_webhook_record_event"()`)
        await db.query(`DROP INDEX "public"."IDX_bridge_webhook_event_fan_out"`)
        await db.query(`DROP TABLE "bridge_webhook_event"`)
        await db.query(`DROP INDEX "public"."IDX_bridge_webhook_secret_subscription"`)
        await db.query(`DROP TABLE "bridge_webhook_secret"`)
        await db.query(`DROP TABLE "bridge_webhook_subscription"`)
    }
}
