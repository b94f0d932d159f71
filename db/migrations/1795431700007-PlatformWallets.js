// Wallet platform tables (hand-written). Addresses are stored lowercase; secrets only as ciphertext or verifiers.
module.exports = class PlatformWallets1795431700007 {
    name = 'PlatformWallets1795431700007'

    async up(db) {
        // kdf names the password hashing parameters, so they can be raised later without breaking old rows.
        await db.query(`CREATE TABLE "platform_user" ("user_id" text NOT NULL, "kdf" text NOT NULL, "salt" bytea NOT NULL, "verifier" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_platform_user" PRIMARY KEY ("user_id"))`)
        await db.query(`CREATE TABLE "platform_wallet" ("address" text NOT NULL, "user_id" text NOT NULL, "origin" text NOT NULL, "key_salt" bytea NOT NULL, "key_iv" bytea NOT NULL, "key_ciphertext" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_platform_wallet" PRIMARY KEY ("address"), CONSTRAINT "FK_platform_wallet_user" FOREIGN KEY ("user_id") REFERENCES "platform_user" ("user_id"))`)
        await db.query(`CREATE INDEX "IDX_platform_wallet_user" ON "platform_wallet" ("user_id", "created_at")`)
        await db.query(`CREATE TABLE "platform_token" ("address" text NOT NULL, "user_id" text NOT NULL, "deployer" text NOT NULL, "name" text NOT NULL, "symbol" text NOT NULL, "description" text NOT NULL, "decimals" integer NOT NULL, "total_supply" numeric NOT NULL, "buying_fee" integer NOT NULL, "selling_fee" integer NOT NULL, "fee_address" text, "mintable" boolean NOT NULL, "destination" text NOT NULL, "transaction_hash" text NOT NULL, "transfer_hash" text, "block_number" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_platform_token" PRIMARY KEY ("address"), CONSTRAINT "FK_platform_token_user" FOREIGN KEY ("user_id") REFERENCES "platform_user" ("user_id"))`)
        await db.query(`CREATE INDEX "IDX_platform_token_created" ON "platform_token" ("created_at", "address")`)
        // The layout rate-limiter-flexible's RateLimiterPostgres expects (it is told the table exists).
        await db.query(`CREATE TABLE "platform_auth_failure" ("key" character varying(255) NOT NULL, "points" integer NOT NULL DEFAULT 0, "expire" bigint, CONSTRAINT "PK_platform_auth_failure" PRIMARY KEY ("key"))`)
    }

    async down(db) {
        await db.query(`DROP TABLE "platform_auth_failure"`)
        await db.query(`DROP INDEX "public"."IDX_platform_token_created"`)
        await db.query(`DROP TABLE "platform_token"`)
        await db.query(`DROP INDEX "public"."IDX_platform_wallet_user"`)
        await db.query(`DROP TABLE "platform_wallet"`)
        await db.query(`DROP TABLE "platform_user"`)
    }
}
