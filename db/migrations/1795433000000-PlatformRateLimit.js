// Wallet platform (hand-written): per-IP request budgets (registrations) beside the failure counts
// of platform_auth_failure; rate-limiter-flexible's table layout (docs/platform-api.md, Limits).
module.exports = class PlatformRateLimit1795433000000 {
    name = 'PlatformRateLimit1795433000000'

    async up(db) {
        await db.query(`CREATE TABLE "platform_rate_limit" ("key" character varying(255) NOT NULL, "points" integer NOT NULL DEFAULT 0, "expire" bigint, CONSTRAINT "PK_platform_rate_limit" PRIMARY KEY ("key"))`)
    }

    async down(db) {
        await db.query(`DROP TABLE "platform_rate_limit"`)
    }
}
