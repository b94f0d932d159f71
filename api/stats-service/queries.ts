import { Db } from '../chain/db'
import { Source } from './lines'

/**
 * Reads of the per-day aggregates behind the stats service's lines and counters. Every statement
 * reads per-day rows by their primary key (the day) or the one counters row: its cost follows the
 * number of days asked for, never the number of transactions.
 */

export interface PeriodRow {
    /** the period's first day, YYYY-MM-DD */
    period: string
    num: string
    den: string
    /** the period's last known value (for `last` lines), null when none of its days has one */
    last: string | null
}

/** Per period (date_trunc `unit`) of the days from..until (exclusive): the sums and the last known value. */
export async function periodFigures(db: Db, source: Source, unit: string, from: string, until: string): Promise<PeriodRow[]> {
    const { rows } = await db.query<PeriodRow>(
        `SELECT to_char(date_trunc($1, s.day::date), 'YYYY-MM-DD') AS period,
                COALESCE(sum(s.num), 0)::text AS num, COALESCE(sum(s.den), 0)::text AS den,
                ((array_agg(s.num ORDER BY s.day DESC) FILTER (WHERE s.num IS NOT NULL))[1])::text AS last
           FROM (${source}) s
          WHERE s.day >= $2 AND s.day < $3
          GROUP BY 1`,
        [unit, from, until]
    )
    return rows
}

/** The figure summed over the days before `day`: a growth line's start. */
export async function sumBefore(db: Db, source: Source, day: string): Promise<string> {
    const { rows } = await db.query<{ total: string }>(`SELECT COALESCE(sum(s.num), 0)::text AS total FROM (${source}) s WHERE s.day < $1`, [day])
    return rows[0].total
}

/** The last value known before `day`; null when none is. */
export async function lastBefore(db: Db, source: Source, day: string): Promise<string | null> {
    const { rows } = await db.query<{ value: string }>(
        `SELECT s.num::text AS value FROM (${source}) s WHERE s.day < $1 AND s.num IS NOT NULL ORDER BY s.day DESC LIMIT 1`,
        [day]
    )
    return rows[0]?.value ?? null
}

/** The first day with an indexed block; null before the indexer has committed one. */
export async function firstDay(db: Db): Promise<string | null> {
    const { rows } = await db.query<{ day: string | null }>('SELECT min(id) AS day FROM daily_chain_activity WHERE blocks > 0')
    return rows[0].day
}

export interface CounterFigures {
    blocks: number
    transactions: number
    addresses: number
    average_block_time: number
    coin_holders: number
    accounts: string
    contracts_today: string
    verified_today: string
    yesterday_transactions: string
}

/** The counters row and the per-day figures of today and yesterday (UTC day keys). */
export async function counterFigures(db: Db, today: string, yesterday: string): Promise<CounterFigures> {
    const { rows } = await db.query<CounterFigures>(
        `SELECT COALESCE(c.blocks, 0) AS blocks, COALESCE(c.transactions, 0) AS transactions, COALESCE(c.addresses, 0) AS addresses,
                COALESCE(c.average_block_time, 0) AS average_block_time, COALESCE(c.coin_holders, 0) AS coin_holders,
                (SELECT COALESCE(sum(new_accounts), 0) FROM daily_chain_activity)::text AS accounts,
                (SELECT COALESCE(sum(new_contracts), 0) FROM daily_chain_activity WHERE id = $1)::text AS contracts_today,
                (SELECT COALESCE(sum(n), 0) FROM (SELECT verified_contracts AS n FROM daily_chain_activity WHERE id = $1
                                                  UNION ALL SELECT count FROM verified_contract_day WHERE id = $1) v)::text AS verified_today,
                (SELECT COALESCE(sum(transactions), 0) FROM daily_chain_activity WHERE id = $2)::text AS yesterday_transactions
           FROM (SELECT 1) one LEFT JOIN chain_counters c ON c.id = 'chain'`,
        [today, yesterday]
    )
    return rows[0]
}

/** Token contracts the indexer knows (a table of contracts, not of events; counted at most every few minutes). */
export async function tokenCount(db: Db): Promise<string> {
    const { rows } = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM token')
    return rows[0].n
}
