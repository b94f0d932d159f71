import { Db } from '../db'

/**
 * Reads of the indexer's DeFi aggregates (`pair`, `pair_hour_data`, `dex_day_data`), which the
 * explorer API's /defi routes serve; the volume rule behind them is in docs/indexer.md.
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
    decimals0: number | null
    decimals1: number | null
    volume_24h: string
    swaps_24h: number
}

/** Every pair with its tokens' symbols and decimals, and its volume and swaps summed over the hourly buckets from `since` on. */
export async function pairsWithRecentVolume(db: Db, since: Date): Promise<PairRow[]> {
    const { rows } = await db.query<PairRow>(
        `SELECT p.id, p.token0_id AS token0, p.token1_id AS token1, p.reserve0::text, p.reserve1::text, p.volume_total::text, p.swaps_total,
                t0.symbol AS symbol0, t1.symbol AS symbol1, t0.decimals AS decimals0, t1.decimals AS decimals1,
                COALESCE(h.volume, 0)::text AS volume_24h, COALESCE(h.swaps, 0)::int AS swaps_24h
         FROM pair p
         LEFT JOIN token t0 ON t0.id = p.token0_id
         LEFT JOIN token t1 ON t1.id = p.token1_id
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
    volume: string
    swaps: number
}

/** The daily volume rows of the days first..last (YYYY-MM-DD); a day without swaps has none. */
export async function dailyVolume(db: Db, first: string, last: string): Promise<DailyVolumeRow[]> {
    const { rows } = await db.query<DailyVolumeRow>(
        'SELECT id, volume::text, swaps FROM dex_day_data WHERE id >= $1 AND id <= $2',
        [first, last]
    )
    return rows
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
