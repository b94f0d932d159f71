// The DeFi entity model (issue 38, docs/indexer.md#defi-entities), hand-written: relations for
// pairs, swaps and buckets (token0 -> token0_id, pair -> pair_id), figures on token and pair,
// trades, mints, burns, pair/token/dex day data, and LP positions as a view over token_balance.
// Rows indexed before: swaps get their trader and their trade (grouped as the indexer groups
// them), tokens and pairs the figures that follow from their swaps and reserves; what needs the
// events' history (mints, burns, token and pair day data, candles, reserves in quote units) starts
// at the upgrade: docs/operations.md#upgrade-notes says how to re-index for it.

/** `amount` (base units) in whole units of a token of `decimals` decimals, exactly, trailing zeros trimmed. */
const whole = (amount, decimals) => `trim_scale(${amount} * ('1e-' || COALESCE(${decimals}, 0))::numeric)`

/** A price (num / den in whole units) truncated to 18 fractional digits, exactly; NULL when den is 0. */
const price = (num, numDecimals, den, denDecimals) =>
    `CASE WHEN ${den} = 0 THEN NULL ELSE trim_scale(div(${num} * ('1e' || (COALESCE(${denDecimals}, 0) + 18))::numeric, ` +
    `${den} * ('1e' || COALESCE(${numDecimals}, 0))::numeric) * 1e-18) END`

module.exports = class DefiEntities1795433700000 {
    name = 'DefiEntities1795433700000'

    async up(db) {
        await db.query(`ALTER TABLE "token"
            ADD "trade_volume" numeric NOT NULL DEFAULT 0, ADD "trade_volume_quote" numeric NOT NULL DEFAULT 0,
            ADD "swap_count" integer NOT NULL DEFAULT 0, ADD "derived_quote" numeric, ADD "total_liquidity" numeric NOT NULL DEFAULT 0`)

        await db.query(`ALTER TABLE "pair" RENAME COLUMN "token0" TO "token0_id"`)
        await db.query(`ALTER TABLE "pair" RENAME COLUMN "token1" TO "token1_id"`)
        await db.query(`ALTER TABLE "pair"
            ADD "reserve0_decimal" numeric NOT NULL DEFAULT 0, ADD "reserve1_decimal" numeric NOT NULL DEFAULT 0,
            ADD "token0_price" numeric, ADD "token1_price" numeric, ADD "reserve_quote" numeric NOT NULL DEFAULT 0,
            ADD "volume_token0" numeric NOT NULL DEFAULT 0, ADD "volume_token1" numeric NOT NULL DEFAULT 0,
            ADD "total_supply" numeric NOT NULL DEFAULT 0`)
        await db.query(`CREATE INDEX "IDX_pair_token0" ON "pair" ("token0_id")`)
        await db.query(`CREATE INDEX "IDX_pair_token1" ON "pair" ("token1_id")`)

        await db.query(`ALTER TABLE "swap" RENAME COLUMN "pair" TO "pair_id"`)
        await db.query(`ALTER TABLE "swap" ADD "trader" text NOT NULL DEFAULT '', ADD "trade_id" character varying NOT NULL DEFAULT ''`)
        await db.query(`CREATE INDEX "IDX_swap_trader" ON "swap" ("trader", "block_number", "log_index")`)
        await db.query(`CREATE INDEX "IDX_swap_trade" ON "swap" ("trade_id")`)

        await db.query(`CREATE TABLE "trade" ("id" character varying NOT NULL, "block_number" integer NOT NULL,
            "timestamp" TIMESTAMP WITH TIME ZONE NOT NULL, "transaction_hash" text NOT NULL, "trader" text NOT NULL,
            "recipient" text NOT NULL, "token_in_id" character varying NOT NULL, "token_out_id" character varying NOT NULL,
            "amount_in" numeric NOT NULL, "amount_out" numeric NOT NULL, "amount_in_decimal" numeric NOT NULL,
            "amount_out_decimal" numeric NOT NULL, "volume_quote" numeric NOT NULL, "hops" integer NOT NULL,
            CONSTRAINT "PK_trade" PRIMARY KEY ("id"))`)
        await db.query(`CREATE INDEX "IDX_trade_trader" ON "trade" ("trader", "block_number", "id")`)
        await db.query(`CREATE INDEX "IDX_trade_timestamp" ON "trade" ("timestamp")`)
        await db.query(`CREATE INDEX "IDX_trade_token_in" ON "trade" ("token_in_id")`)
        await db.query(`CREATE INDEX "IDX_trade_token_out" ON "trade" ("token_out_id")`)

        for (const table of ['mint', 'burn']) {
            await db.query(`CREATE TABLE "${table}" ("id" character varying NOT NULL, "pair_id" character varying NOT NULL,
                "block_number" integer NOT NULL, "timestamp" TIMESTAMP WITH TIME ZONE NOT NULL, "log_index" integer NOT NULL,
                "transaction_hash" text NOT NULL, "sender" text NOT NULL, "to" text ${table === 'burn' ? 'NOT NULL' : ''},
                "amount0" numeric NOT NULL, "amount1" numeric NOT NULL, "liquidity" numeric NOT NULL, "amount_quote" numeric NOT NULL,
                CONSTRAINT "PK_${table}" PRIMARY KEY ("id"))`)
            await db.query(`CREATE INDEX "IDX_${table}_pair" ON "${table}" ("pair_id", "block_number", "log_index")`)
            await db.query(`CREATE INDEX "IDX_${table}_to" ON "${table}" ("to", "block_number")`)
        }

        await db.query(`ALTER TABLE "pair_hour" RENAME TO "pair_hour_data"`)
        await db.query(`ALTER TABLE "pair_hour_data" RENAME COLUMN "pair" TO "pair_id"`)
        const bucket = `ADD "volume_token0" numeric NOT NULL DEFAULT 0, ADD "volume_token1" numeric NOT NULL DEFAULT 0,
            ADD "reserve0" numeric NOT NULL DEFAULT 0, ADD "reserve1" numeric NOT NULL DEFAULT 0,
            ADD "reserve0_decimal" numeric NOT NULL DEFAULT 0, ADD "reserve1_decimal" numeric NOT NULL DEFAULT 0,
            ADD "reserve_quote" numeric NOT NULL DEFAULT 0,
            ADD "price_open" numeric, ADD "price_high" numeric, ADD "price_low" numeric, ADD "price_close" numeric`
        await db.query(`ALTER TABLE "pair_hour_data" ${bucket}`)
        await db.query(`CREATE TABLE "pair_day_data" ("id" character varying NOT NULL, "pair_id" character varying NOT NULL,
            "date" TIMESTAMP WITH TIME ZONE NOT NULL, "volume_quote" numeric NOT NULL, "swaps" integer NOT NULL,
            CONSTRAINT "PK_pair_day_data" PRIMARY KEY ("id"))`)
        await db.query(`ALTER TABLE "pair_day_data" ${bucket}`)
        await db.query(`CREATE UNIQUE INDEX "IDX_pair_day_data_pair_date" ON "pair_day_data" ("pair_id", "date")`)
        await db.query(`CREATE TABLE "token_day_data" ("id" character varying NOT NULL, "token_id" character varying NOT NULL,
            "date" TIMESTAMP WITH TIME ZONE NOT NULL, "volume" numeric NOT NULL, "volume_quote" numeric NOT NULL, "swaps" integer NOT NULL,
            "price_open" numeric, "price_high" numeric, "price_low" numeric, "price_close" numeric,
            "total_liquidity" numeric NOT NULL, "liquidity_quote" numeric NOT NULL, CONSTRAINT "PK_token_day_data" PRIMARY KEY ("id"))`)
        await db.query(`CREATE UNIQUE INDEX "IDX_token_day_data_token_date" ON "token_day_data" ("token_id", "date")`)

        await db.query(`ALTER TABLE "daily_volume" RENAME TO "dex_day_data"`)
        await db.query(`ALTER TABLE "dex_day_data" ADD "trade_volume_quote" numeric NOT NULL DEFAULT 0, ADD "trades" integer NOT NULL DEFAULT 0,
            ADD "liquidity_quote" numeric NOT NULL DEFAULT 0, ADD "pair_count" integer NOT NULL DEFAULT 0`)

        await db.query(`CREATE VIEW "liquidity_position" AS
            SELECT b.id, b.token AS pair_id, b.holder AS "user", b.value AS liquidity_token_balance
            FROM token_balance b JOIN pair p ON p.id = b.token`)

        await this.backfill(db)
        // The entities name every column; the defaults only filled the rows of before. The token's
        // keep theirs: most tokens are in no pair, and 0 is their figure, whoever writes the row.
        for (const [table, columns] of Object.entries({
            pair: ['reserve0_decimal', 'reserve1_decimal', 'reserve_quote', 'volume_token0', 'volume_token1', 'total_supply'],
            swap: ['trader', 'trade_id'],
            pair_hour_data: ['volume_token0', 'volume_token1', 'reserve0', 'reserve1', 'reserve0_decimal', 'reserve1_decimal', 'reserve_quote'],
            pair_day_data: ['volume_token0', 'volume_token1', 'reserve0', 'reserve1', 'reserve0_decimal', 'reserve1_decimal', 'reserve_quote'],
            dex_day_data: ['trade_volume_quote', 'trades', 'liquidity_quote', 'pair_count'],
        })) {
            await db.query(`ALTER TABLE "${table}" ${columns.map((c) => `ALTER COLUMN "${c}" DROP DEFAULT`).join(', ')}`)
        }
    }

    /** What follows from the rows already indexed (a no-op on an empty database). */
    async backfill(db) {
        await db.query(`UPDATE swap s SET trader = t."from" FROM transaction t WHERE t.id = s.transaction_hash`)
        // Trades: a swap starts one unless the previous swap of its transaction sent its output to this pair.
        await db.query(`UPDATE swap s SET trade_id = g.trade_id FROM (
            SELECT id, max(CASE WHEN starts THEN id END) OVER (PARTITION BY transaction_hash ORDER BY id) AS trade_id FROM (
                SELECT id, transaction_hash, lag("to") OVER (PARTITION BY transaction_hash ORDER BY id) IS DISTINCT FROM pair_id AS starts FROM swap
            ) x) g WHERE g.id = s.id`)
        const hop = `SELECT s.*, CASE WHEN s.amount0_in > 0 THEN p.token0_id ELSE p.token1_id END AS token_in,
                CASE WHEN s.amount0_in > 0 THEN s.amount0_in ELSE s.amount1_in END AS amount_in,
                CASE WHEN s.amount0_in > 0 THEN p.token1_id ELSE p.token0_id END AS token_out,
                CASE WHEN s.amount0_in > 0 THEN s.amount1_out ELSE s.amount0_out END AS amount_out
            FROM swap s JOIN pair p ON p.id = s.pair_id`
        await db.query(`INSERT INTO trade (id, block_number, timestamp, transaction_hash, trader, recipient, token_in_id, token_out_id,
                amount_in, amount_out, amount_in_decimal, amount_out_decimal, volume_quote, hops)
            SELECT f.id, f.block_number, f.timestamp, f.transaction_hash, f.trader, l."to", f.token_in, l.token_out, f.amount_in, l.amount_out,
                ${whole('f.amount_in', 'ti.decimals')}, ${whole('l.amount_out', 'tout.decimals')},
                CASE WHEN f.volume > 0 THEN f.volume ELSE l.volume END, g.hops
            FROM (SELECT trade_id, count(*)::int AS hops, max(id) AS last FROM swap GROUP BY trade_id) g
            JOIN (${hop}) f ON f.id = g.trade_id
            JOIN (${hop}) l ON l.id = g.last
            LEFT JOIN token ti ON ti.id = f.token_in LEFT JOIN token tout ON tout.id = l.token_out`)

        await db.query(`UPDATE pair p SET volume_token0 = v.v0, volume_token1 = v.v1 FROM (
            SELECT pair_id, sum(amount0_in + amount0_out) AS v0, sum(amount1_in + amount1_out) AS v1 FROM swap GROUP BY pair_id
        ) v WHERE v.pair_id = p.id`)
        await db.query(`UPDATE pair p SET total_supply = COALESCE(lp.total_supply, 0),
                reserve0_decimal = ${whole('p.reserve0', 't0.decimals')}, reserve1_decimal = ${whole('p.reserve1', 't1.decimals')},
                token0_price = ${price('p.reserve0', 't0.decimals', 'p.reserve1', 't1.decimals')},
                token1_price = ${price('p.reserve1', 't1.decimals', 'p.reserve0', 't0.decimals')}
            FROM token t0, token t1, token lp WHERE t0.id = p.token0_id AND t1.id = p.token1_id AND lp.id = p.id`)
        await db.query(`UPDATE token t SET trade_volume = v.volume, trade_volume_quote = v.quote, swap_count = v.swaps FROM (
            SELECT token, sum(amount) AS volume, sum(volume) AS quote, count(*)::int AS swaps FROM (
                SELECT p.token0_id AS token, s.amount0_in + s.amount0_out AS amount, s.volume FROM swap s JOIN pair p ON p.id = s.pair_id
                UNION ALL SELECT p.token1_id, s.amount1_in + s.amount1_out, s.volume FROM swap s JOIN pair p ON p.id = s.pair_id
            ) hops GROUP BY token
        ) v WHERE v.token = t.id`)
        await db.query(`UPDATE token t SET total_liquidity = l.total FROM (
            SELECT token, sum(reserve) AS total FROM (
                SELECT token0_id AS token, reserve0 AS reserve FROM pair UNION ALL SELECT token1_id, reserve1 FROM pair
            ) r GROUP BY token
        ) l WHERE l.token = t.id`)
        await db.query(`UPDATE dex_day_data d SET trades = x.trades, trade_volume_quote = x.volume FROM (
            SELECT to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS trades, sum(volume_quote) AS volume FROM trade GROUP BY 1
        ) x WHERE x.day = d.id`)
    }

    async down(db) {
        await db.query(`DROP VIEW "liquidity_position"`)
        await db.query(`ALTER TABLE "dex_day_data" DROP COLUMN "trade_volume_quote", DROP COLUMN "trades", DROP COLUMN "liquidity_quote", DROP COLUMN "pair_count"`)
        await db.query(`ALTER TABLE "dex_day_data" RENAME TO "daily_volume"`)
        await db.query(`DROP TABLE "token_day_data"`)
        await db.query(`DROP TABLE "pair_day_data"`)
        await db.query(`ALTER TABLE "pair_hour_data" DROP COLUMN "volume_token0", DROP COLUMN "volume_token1", DROP COLUMN "reserve0", DROP COLUMN "reserve1",
            DROP COLUMN "reserve0_decimal", DROP COLUMN "reserve1_decimal", DROP COLUMN "reserve_quote",
            DROP COLUMN "price_open", DROP COLUMN "price_high", DROP COLUMN "price_low", DROP COLUMN "price_close"`)
        await db.query(`ALTER TABLE "pair_hour_data" RENAME COLUMN "pair_id" TO "pair"`)
        await db.query(`ALTER TABLE "pair_hour_data" RENAME TO "pair_hour"`)
        await db.query(`DROP TABLE "burn"`)
        await db.query(`DROP TABLE "mint"`)
        await db.query(`DROP TABLE "trade"`)
        await db.query(`DROP INDEX "IDX_swap_trade"`)
        await db.query(`DROP INDEX "IDX_swap_trader"`)
        await db.query(`ALTER TABLE "swap" DROP COLUMN "trader", DROP COLUMN "trade_id"`)
        await db.query(`ALTER TABLE "swap" RENAME COLUMN "pair_id" TO "pair"`)
        await db.query(`DROP INDEX "IDX_pair_token1"`)
        await db.query(`DROP INDEX "IDX_pair_token0"`)
        await db.query(`ALTER TABLE "pair" DROP COLUMN "reserve0_decimal", DROP COLUMN "reserve1_decimal", DROP COLUMN "token0_price", DROP COLUMN "token1_price",
            DROP COLUMN "reserve_quote", DROP COLUMN "volume_token0", DROP COLUMN "volume_token1", DROP COLUMN "total_supply"`)
        await db.query(`ALTER TABLE "pair" RENAME COLUMN "token1_id" TO "token1"`)
        await db.query(`ALTER TABLE "pair" RENAME COLUMN "token0_id" TO "token0"`)
        await db.query(`ALTER TABLE "token" DROP COLUMN "trade_volume", DROP COLUMN "trade_volume_quote", DROP COLUMN "swap_count",
            DROP COLUMN "derived_quote", DROP COLUMN "total_liquidity"`)
    }
}
