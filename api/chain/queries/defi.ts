import { Db } from '../db'

/**
 * Reads of the indexer's DeFi aggregates (`pair`, `token`, `pair_hour_data`, `pair_day_data`,
 * `token_day_data`, `dex_day_data`), which the explorer API's /defi routes serve; the volume and
 * price rules behind them are in docs/indexer.md. Amounts come back as exact text.
 */

export interface PairRow {
    id: string
    token0: string
    token1: string
    reserve0: string
    reserve1: string
    volume_total: string
    swaps_total: number
    symbol0: string | null
    symbol1: string | null
    name0: string | null
    name1: string | null
    decimals0: number | null
    decimals1: number | null
    volume_24h: string
    swaps_24h: number
    /** The factory that created the pair (its address row's creator); null before the indexer saw the creation. */
    factory: string | null
}

/** Every pair with its tokens' symbols, names and decimals, its factory, and its volume and swaps summed over the hourly buckets from `since` on. */
export async function pairsWithRecentVolume(db: Db, since: Date): Promise<PairRow[]> {
    const { rows } = await db.query<PairRow>(
        `SELECT p.id, p.token0_id AS token0, p.token1_id AS token1, p.reserve0::text, p.reserve1::text, p.volume_total::text, p.swaps_total,
                t0.symbol AS symbol0, t1.symbol AS symbol1, t0.name AS name0, t1.name AS name1, t0.decimals AS decimals0, t1.decimals AS decimals1,
                COALESCE(h.volume, 0)::text AS volume_24h, COALESCE(h.swaps, 0)::int AS swaps_24h, a.creator AS factory
         FROM pair p
         LEFT JOIN token t0 ON t0.id = p.token0_id
         LEFT JOIN token t1 ON t1.id = p.token1_id
         LEFT JOIN address a ON a.id = p.id
         -- Per pair, its last hours by the (pair, hour) index: flat however long the history.
         LEFT JOIN LATERAL (
             SELECT sum(volume) AS volume, sum(swaps) AS swaps FROM pair_hour_data WHERE pair_id = p.id AND hour >= $1
         ) h ON true`,
        [since]
    )
    return rows
}

export interface DailyVolumeRow {
    /** the UTC day, YYYY-MM-DD */
    id: string
    /** per hop */
    volume: string
    swaps: number
    /** per trade */
    trade_volume_quote: string
    trades: number
}

/** The daily volume rows of the days first..last (YYYY-MM-DD); a day without swaps has none. */
export async function dailyVolume(db: Db, first: string, last: string): Promise<DailyVolumeRow[]> {
    const { rows } = await db.query<DailyVolumeRow>(
        'SELECT id, volume::text, swaps, trade_volume_quote::text, trades FROM dex_day_data WHERE id >= $1 AND id <= $2',
        [first, last]
    )
    return rows
}

/** A pool's own figures beyond the list's (GET /defi/pools/{address}). */
export interface PoolDetailRow {
    token0_price: string | null
    token1_price: string | null
    volume_token0: string
    volume_token1: string
    total_supply: string
    created_block: number
    created_transaction: string
}

export async function poolDetail(db: Db, address: string): Promise<PoolDetailRow | undefined> {
    const { rows } = await db.query<PoolDetailRow>(
        `SELECT token0_price::text, token1_price::text, volume_token0::text, volume_token1::text, total_supply::text,
                created_block, created_transaction
         FROM pair WHERE id = $1`,
        [address]
    )
    return rows[0]
}

export type Interval = 'hour' | 'day'

/** One bucket of a pool's history; amounts are base units, prices whole token0 per whole token1. */
export interface PoolBucketRow {
    start: Date
    volume_quote: string
    swaps: number
    volume_token0: string
    volume_token1: string
    reserve0: string
    reserve1: string
    reserve_quote: string
    price_open: string | null
    price_high: string | null
    price_low: string | null
    price_close: string | null
}

const POOL_BUCKETS = {
    hour: { table: 'pair_hour_data', start: 'hour', volume: 'volume' },
    day: { table: 'pair_day_data', start: '"date"', volume: 'volume_quote' },
} as const

/**
 * A pool's buckets from `from` to `to` (their starts, inclusive), and the last bucket before
 * `from`: what the pool stood at when the range began. Both by the (pair, start) unique index.
 */
export async function poolBuckets(db: Db, pair: string, interval: Interval, from: Date, to: Date): Promise<{ before?: PoolBucketRow; rows: PoolBucketRow[] }> {
    const { table, start, volume } = POOL_BUCKETS[interval]
    const columns = `${start} AS start, ${volume}::text AS volume_quote, swaps, volume_token0::text, volume_token1::text,
        reserve0::text, reserve1::text, reserve_quote::text, price_open::text, price_high::text, price_low::text, price_close::text`
    const [before, range] = await Promise.all([
        db.query<PoolBucketRow>(`SELECT ${columns} FROM ${table} WHERE pair_id = $1 AND ${start} < $2 ORDER BY ${start} DESC LIMIT 1`, [pair, from]),
        db.query<PoolBucketRow>(`SELECT ${columns} FROM ${table} WHERE pair_id = $1 AND ${start} >= $2 AND ${start} <= $3 ORDER BY ${start}`, [pair, from, to]),
    ])
    return { before: before.rows[0], rows: range.rows }
}

/** A token of at least one pool, with its AMM figures (GET /defi/tokens). */
export interface DefiTokenRow {
    id: string
    symbol: string | null
    name: string | null
    decimals: number | null
    /** whole STABLE per whole token, null when unpriced */
    derived_quote: string | null
    trade_volume: string
    trade_volume_quote: string
    swap_count: number
    total_liquidity: string
    pools: number
}

/** Every token of a pool (few: one per side of each pair), or the one asked. */
export async function defiTokens(db: Db, address?: string): Promise<DefiTokenRow[]> {
    const { rows } = await db.query<DefiTokenRow>(
        `SELECT t.id, t.symbol, t.name, t.decimals, t.derived_quote::text, t.trade_volume::text, t.trade_volume_quote::text,
                t.swap_count, t.total_liquidity::text, p.pools
         FROM (SELECT token, count(*)::int AS pools FROM (
                   SELECT token0_id AS token FROM pair UNION ALL SELECT token1_id FROM pair
               ) sides GROUP BY token) p
         JOIN token t ON t.id = p.token
         ${address === undefined ? '' : 'WHERE t.id = $1'}`,
        address === undefined ? [] : [address]
    )
    return rows
}

/** One day of a token's history; amounts are base units, prices whole STABLE per whole token. */
export interface TokenBucketRow {
    start: Date
    volume: string
    volume_quote: string
    swaps: number
    total_liquidity: string
    liquidity_quote: string
    price_open: string | null
    price_high: string | null
    price_low: string | null
    price_close: string | null
}

/** A token's days from `from` to `to` (inclusive), and the last day before `from`, by the (token, date) unique index. */
export async function tokenBuckets(db: Db, token: string, from: Date, to: Date): Promise<{ before?: TokenBucketRow; rows: TokenBucketRow[] }> {
    const columns = `"date" AS start, volume::text, volume_quote::text, swaps, total_liquidity::text, liquidity_quote::text,
        price_open::text, price_high::text, price_low::text, price_close::text`
    const [before, range] = await Promise.all([
        db.query<TokenBucketRow>(`SELECT ${columns} FROM token_day_data WHERE token_id = $1 AND "date" < $2 ORDER BY "date" DESC LIMIT 1`, [token, from]),
        db.query<TokenBucketRow>(`SELECT ${columns} FROM token_day_data WHERE token_id = $1 AND "date" >= $2 AND "date" <= $3 ORDER BY "date"`, [token, from, to]),
    ])
    return { before: before.rows[0], rows: range.rows }
}

/** Pairs in which any of the holders has LP tokens, by the indexer's balances (the wallet platform's positions). */
export async function pairsHeldBy(db: Db, holders: string[]): Promise<string[]> {
    const { rows } = await db.query<{ id: string }>(
        `SELECT DISTINCT p.id FROM pair p JOIN token_balance b ON b.token = p.id
         WHERE b.holder = ANY($1) AND b.value > 0 ORDER BY p.id`,
        [holders.map((holder) => holder.toLowerCase())]
    )
    return rows.map((row) => row.id)
}
