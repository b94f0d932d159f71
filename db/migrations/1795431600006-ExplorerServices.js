// Tables of the explorer services API: accounts, sessions, mailed codes and reset tokens,
// watchlists, the two public forms, and the shared rate-limit counters. Hand-written: none of these
// are indexer entities, so they are not in schema.graphql.
module.exports = class ExplorerServices1795431600006 {
    name = 'ExplorerServices1795431600006'

    async up(db) {
        await db.query(`CREATE TABLE "explorer_account" (
            "id" uuid NOT NULL DEFAULT gen_random_uuid(),
            "email" text NOT NULL,
            "name" text,
            "password_hash" text NOT NULL,
            "email_verified_at" TIMESTAMP WITH TIME ZONE,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_explorer_account" PRIMARY KEY ("id"),
            CONSTRAINT "UQ_explorer_account_email" UNIQUE ("email")
        )`)
        await db.query(`CREATE TABLE "explorer_session" (
            "id" uuid NOT NULL,
            "account_id" uuid NOT NULL,
            "remember" boolean NOT NULL,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
            "revoked_at" TIMESTAMP WITH TIME ZONE,
            CONSTRAINT "PK_explorer_session" PRIMARY KEY ("id"),
            CONSTRAINT "FK_explorer_session_account" FOREIGN KEY ("account_id") REFERENCES "explorer_account" ("id") ON DELETE CASCADE
        )`)
        await db.query(`CREATE INDEX "IDX_explorer_session_account" ON "explorer_session" ("account_id")`)
        await db.query(`CREATE TABLE "explorer_email_challenge" (
            "id" uuid NOT NULL DEFAULT gen_random_uuid(),
            "account_id" uuid NOT NULL,
            "purpose" text NOT NULL,
            "code_hash" bytea,
            "token_hash" bytea NOT NULL,
            "attempts" integer NOT NULL DEFAULT 0,
            "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
            "consumed_at" TIMESTAMP WITH TIME ZONE,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_explorer_email_challenge" PRIMARY KEY ("id"),
            CONSTRAINT "CHK_explorer_email_challenge_purpose" CHECK ("purpose" IN ('verify_email', 'reset_password')),
            CONSTRAINT "FK_explorer_email_challenge_account" FOREIGN KEY ("account_id") REFERENCES "explorer_account" ("id") ON DELETE CASCADE
        )`)
        await db.query(`CREATE INDEX "IDX_explorer_email_challenge_account" ON "explorer_email_challenge" ("account_id", "purpose")`)
        await db.query(`CREATE TABLE "explorer_watchlist" (
            "account_id" uuid NOT NULL,
            "address" text NOT NULL,
            "name" text,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_explorer_watchlist" PRIMARY KEY ("account_id", "address"),
            CONSTRAINT "CHK_explorer_watchlist_address" CHECK ("address" ~ '^0x[0-9a-f]{40}$'),
            CONSTRAINT "FK_explorer_watchlist_account" FOREIGN KEY ("account_id") REFERENCES "explorer_account" ("id") ON DELETE CASCADE
        )`)
        await db.query(`CREATE TABLE "explorer_support_request" (
            "id" uuid NOT NULL DEFAULT gen_random_uuid(),
            "kind" text NOT NULL,
            "name" text NOT NULL,
            "email" text NOT NULL,
            "subject" text NOT NULL,
            "message" text NOT NULL,
            "client_ip" text,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_explorer_support_request" PRIMARY KEY ("id"),
            CONSTRAINT "CHK_explorer_support_request_kind" CHECK ("kind" IN ('support', 'application'))
        )`)
        await db.query(`CREATE INDEX "IDX_explorer_support_request_created" ON "explorer_support_request" ("created_at")`)
        await db.query(`CREATE TABLE "explorer_newsletter_subscriber" (
            "email" text NOT NULL,
            "client_ip" text,
            "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT "PK_explorer_newsletter_subscriber" PRIMARY KEY ("email")
        )`)
        // The layout rate-limiter-flexible's RateLimiterPostgres expects (it is told the table exists).
        await db.query(`CREATE TABLE "explorer_rate_limit" (
            "key" varchar(255) NOT NULL,
            "points" integer NOT NULL DEFAULT 0,
            "expire" bigint,
            CONSTRAINT "PK_explorer_rate_limit" PRIMARY KEY ("key")
        )`)
    }

    async down(db) {
        await db.query(`DROP TABLE "explorer_rate_limit"`)
        await db.query(`DROP TABLE "explorer_newsletter_subscriber"`)
        await db.query(`DROP TABLE "explorer_support_request"`)
        await db.query(`DROP TABLE "explorer_watchlist"`)
        await db.query(`DROP TABLE "explorer_email_challenge"`)
        await db.query(`DROP TABLE "explorer_session"`)
        await db.query(`DROP TABLE "explorer_account"`)
    }
}
