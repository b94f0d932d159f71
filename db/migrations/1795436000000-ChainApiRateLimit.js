// Chain data API (hand-written): per-IP budgets of its costly public routes (the CSV exports),
// in rate-limiter-flexible's table layout, so every api replica draws on one budget (docs/chain-api.md#csv-export).
module.exports = class ChainApiRateLimit1795436000000 {
    name = 'ChainApiRateLimit1795436000000'

    async up(db) {
        await db.query(`CREATE TABLE "chain_api_rate_limit" ("key" character varying(255) NOT NULL, "points" integer NOT NULL DEFAULT 0, "expire" bigint, CONSTRAINT "PK_chain_api_rate_limit" PRIMARY KEY ("key"))`)
    }

    async down(db) {
        await db.query(`DROP TABLE "chain_api_rate_limit"`)
    }
}
