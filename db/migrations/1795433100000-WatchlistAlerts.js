// Watchlist alerts (hand-written): per entry, which transfers mail its owner; the alert outbox, one
// row per (account, address, block), and the last final block the alerts were made up to
// (docs/explorer-api.md#watchlist-alerts).
module.exports = class WatchlistAlerts1795433100000 {
    name = 'WatchlistAlerts1795433100000'

    async up(db) {
        await db.query(`ALTER TABLE "explorer_watchlist"
            ADD COLUMN "notify_native_incoming" boolean NOT NULL DEFAULT true,
            ADD COLUMN "notify_native_outgoing" boolean NOT NULL DEFAULT true,
            ADD COLUMN "notify_erc20_incoming" boolean NOT NULL DEFAULT true,
            ADD COLUMN "notify_erc20_outgoing" boolean NOT NULL DEFAULT true,
            ADD COLUMN "notify_erc721_incoming" boolean NOT NULL DEFAULT true,
            ADD COLUMN "notify_erc721_outgoing" boolean NOT NULL DEFAULT true,
            ADD COLUMN "notify_email" boolean NOT NULL DEFAULT false,
            ADD COLUMN "alerts_from_block" integer`)
        await db.query(`CREATE INDEX "IDX_explorer_watchlist_email" ON "explorer_watchlist" ("address") WHERE "notify_email"`)
        await db.query(`CREATE TABLE "explorer_alert_cursor" (
            "id" smallint NOT NULL DEFAULT 1,
            "block_number" integer NOT NULL,
            CONSTRAINT "PK_explorer_alert_cursor" PRIMARY KEY ("id"),
            CONSTRAINT "CHK_explorer_alert_cursor_single" CHECK ("id" = 1)
        )`)
        await db.query(`CREATE TABLE "explorer_alert" (
            "id" bigserial NOT NULL,
            "account_id" uuid NOT NULL,
            "address" text NOT NULL,
            "block_number" integer NOT NULL,
            "transfers" jsonb NOT NULL,
            "state" text NOT NULL,
            "attempts" integer NOT NULL DEFAULT 0,
            "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "sent_at" TIMESTAMP WITH TIME ZONE,
            CONSTRAINT "PK_explorer_alert" PRIMARY KEY ("id"),
            CONSTRAINT "UQ_explorer_alert_block" UNIQUE ("account_id", "address", "block_number"),
            CONSTRAINT "CHK_explorer_alert_state" CHECK ("state" IN ('pending', 'sent', 'capped', 'failed')),
            CONSTRAINT "FK_explorer_alert_account" FOREIGN KEY ("account_id") REFERENCES "explorer_account" ("id") ON DELETE CASCADE
        )`)
        await db.query(`CREATE INDEX "IDX_explorer_alert_pending" ON "explorer_alert" ("next_attempt_at") WHERE "state" = 'pending'`)
        await db.query(`CREATE INDEX "IDX_explorer_alert_account_day" ON "explorer_alert" ("account_id", "created_at")`)
    }

    async down(db) {
        await db.query(`DROP TABLE "explorer_alert"`)
        await db.query(`DROP TABLE "explorer_alert_cursor"`)
        await db.query(`DROP INDEX "IDX_explorer_watchlist_email"`)
        await db.query(`ALTER TABLE "explorer_watchlist" DROP COLUMN "notify_native_incoming", DROP COLUMN "notify_native_outgoing",
            DROP COLUMN "notify_erc20_incoming", DROP COLUMN "notify_erc20_outgoing", DROP COLUMN "notify_erc721_incoming",
            DROP COLUMN "notify_erc721_outgoing", DROP COLUMN "notify_email", DROP COLUMN "alerts_from_block"`)
    }
}
