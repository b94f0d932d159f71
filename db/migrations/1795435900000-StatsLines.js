// The stats service's lines (docs/stats-api.md): per-day aggregates the indexer keeps in the same
// commit as the blocks it counts, the (day|week|ever, sender) facts behind active and new accounts,
// the coin holder count beside the coin supply, and the per-day count of the verifications the API
// writes (verified_contract_day, written in the statement that records the verification).
// Filled here from the rows already indexed, each in one pass over its table; the coin supply and
// holders at each past day's end are not in the rows (only today's values are set): days before
// the migration carry no value, which the lines show as the value before them.
const DAY = `to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
const WEEK = `to_char(date_trunc('week', "timestamp" AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`

module.exports = class StatsLines1795435900000 {
    name = 'StatsLines1795435900000'

    async up(db) {
        for (const column of ['block_size', 'gas_price']) {
            await db.query(`ALTER TABLE "daily_chain_activity" ADD "${column}" numeric NOT NULL DEFAULT 0`)
        }
        for (const column of ['active_accounts', 'active_accounts_week', 'new_accounts', 'new_contracts', 'verified_contracts']) {
            await db.query(`ALTER TABLE "daily_chain_activity" ADD "${column}" integer NOT NULL DEFAULT 0`)
        }
        await db.query(`ALTER TABLE "daily_chain_activity" ADD "coin_supply" numeric`)
        await db.query(`ALTER TABLE "daily_chain_activity" ADD "coin_holders" integer`)
        await db.query(`ALTER TABLE "chain_counters" ADD "coin_holders" integer NOT NULL DEFAULT 0`)
        await db.query(`CREATE TABLE "account_activity" ("id" character varying NOT NULL, CONSTRAINT "PK_account_activity" PRIMARY KEY ("id"))`)
        await db.query(`CREATE TABLE "verified_contract_day" ("id" character varying NOT NULL, "date" TIMESTAMP WITH TIME ZONE NOT NULL, "count" integer NOT NULL, CONSTRAINT "PK_verified_contract_day" PRIMARY KEY ("id"))`)

        // Days a Monday's week count or a verification lands on may have no blocks: they get a row of zeros.
        const ensureDays = async (select) => db.query(
            `INSERT INTO "daily_chain_activity" ("id", "date", "blocks", "transactions", "gas_used", "fees")
             SELECT d, (d || 'T00:00:00Z')::timestamptz, 0, 0, 0, 0 FROM (${select}) s(d) ON CONFLICT ("id") DO NOTHING`
        )
        await db.query(
            `UPDATE "daily_chain_activity" a SET "block_size" = s.size
               FROM (SELECT ${DAY} AS day, sum("size") AS size FROM "block" GROUP BY 1) s WHERE a.id = s.day`
        )
        await db.query(
            `UPDATE "daily_chain_activity" a SET "gas_price" = s.price
               FROM (SELECT ${DAY} AS day, sum("effective_gas_price") AS price FROM "transaction" GROUP BY 1) s WHERE a.id = s.day`
        )
        await db.query(`INSERT INTO "account_activity" ("id") SELECT DISTINCT 'D:' || ${DAY} || ':' || "from" FROM "transaction"`)
        await db.query(`INSERT INTO "account_activity" ("id") SELECT DISTINCT 'W:' || ${WEEK} || ':' || "from" FROM "transaction"`)
        await db.query(`INSERT INTO "account_activity" ("id") SELECT DISTINCT 'A:' || "from" FROM "transaction"`)
        await db.query(
            `UPDATE "daily_chain_activity" a SET "active_accounts" = s.n
               FROM (SELECT ${DAY} AS day, count(DISTINCT "from") AS n FROM "transaction" GROUP BY 1) s WHERE a.id = s.day`
        )
        await ensureDays(`SELECT DISTINCT ${WEEK} FROM "transaction"`)
        await db.query(
            `UPDATE "daily_chain_activity" a SET "active_accounts_week" = s.n
               FROM (SELECT ${WEEK} AS week, count(DISTINCT "from") AS n FROM "transaction" GROUP BY 1) s WHERE a.id = s.week`
        )
        await db.query(
            `UPDATE "daily_chain_activity" a SET "new_accounts" = s.n
               FROM (SELECT day, count(*) AS n FROM (SELECT "from", min(${DAY}) AS day FROM "transaction" GROUP BY 1) f GROUP BY 1) s
              WHERE a.id = s.day`
        )
        // A contract counts on the day of its creation transaction (a re-creation at the same address counts once here).
        await db.query(
            `UPDATE "daily_chain_activity" a SET "new_contracts" = s.n
               FROM (SELECT to_char(t."timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS n
                       FROM "address" c JOIN "transaction" t ON t.id = c.creation_transaction
                      WHERE c.is_contract GROUP BY 1) s
              WHERE a.id = s.day`
        )
        // The API's verifications are those a submission passed (contract_verification); the rest are the indexer's own.
        const BY_API = `EXISTS (SELECT 1 FROM "contract_verification" j WHERE j.address = v.id AND j.status = 'pass')`
        await db.query(
            `UPDATE "daily_chain_activity" a SET "verified_contracts" = s.n
               FROM (SELECT to_char(v."verified_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS n
                       FROM "verified_contract" v WHERE NOT ${BY_API} GROUP BY 1) s
              WHERE a.id = s.day`
        )
        await db.query(
            `INSERT INTO "verified_contract_day" ("id", "date", "count")
             SELECT day, (day || 'T00:00:00Z')::timestamptz, count(*)
               FROM (SELECT to_char(v."verified_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM "verified_contract" v WHERE ${BY_API}) d
              GROUP BY day`
        )
        await db.query(`UPDATE "chain_counters" SET "coin_holders" = (SELECT count(*) FROM "address" WHERE "balance" > 0)`)
        await db.query(
            `UPDATE "daily_chain_activity" SET "coin_supply" = c.coin_supply, "coin_holders" = c.coin_holders
               FROM "chain_counters" c WHERE c.id = 'chain' AND "daily_chain_activity".id = to_char(c.last_block_timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
        )
        // The defaults (0) stay: the indexer always writes every column, and a row written by other
        // code that predates them (a test's or a bench's hand-made counters) still means "none counted".
    }

    async down(db) {
        await db.query(`DROP TABLE "verified_contract_day"`)
        await db.query(`DROP TABLE "account_activity"`)
        await db.query(`ALTER TABLE "chain_counters" DROP COLUMN "coin_holders"`)
        for (const column of ['block_size', 'gas_price', 'active_accounts', 'active_accounts_week', 'new_accounts', 'new_contracts', 'verified_contracts', 'coin_supply', 'coin_holders']) {
            await db.query(`ALTER TABLE "daily_chain_activity" DROP COLUMN "${column}"`)
        }
    }
}
