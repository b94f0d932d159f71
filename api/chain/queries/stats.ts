import { Db } from '../db'

/** Chain-wide figures: the indexer's counters row, per-block totals and per-day activity; see docs/chain-api.md. */

export interface ChainCountersRow {
    last_block: number
    last_block_timestamp: Date | null
    average_block_time: number
    blocks: number
    transactions: number
    addresses: number
}

/** The indexer's counters row; undefined before it has committed anything. */
export async function chainCounters(db: Db): Promise<ChainCountersRow | undefined> {
    const { rows } = await db.query<ChainCountersRow>(
        'SELECT last_block, last_block_timestamp, average_block_time, blocks, transactions, addresses FROM chain_counters WHERE id = $1',
        ['chain']
    )
    return rows[0]
}

/**
 * The coin held by every address the indexer has seen, as Blockscout computes it (its
 * AddressesCoinBalanceSum): the top-accounts page's total_supply and the Etherscan-style ethsupply.
 * The indexer keeps the sum in the same commit as the balances it sums, so it is never read from
 * the whole address table and never lags the rows.
 */
export async function coinSupply(db: Db): Promise<string> {
    const { rows } = await db.query<{ coin_supply: string }>('SELECT coin_supply::text FROM chain_counters WHERE id = $1', ['chain'])
    return rows[0]?.coin_supply ?? '0'
}

/** How the indexer reads call trees from its node (`trace_block`, `debug_traceBlockByHash`, `none`); null until it has reported it. */
export async function tracingMethod(db: Db): Promise<string | null> {
    const { rows } = await db.query<{ tracing: string | null }>('SELECT tracing FROM chain_counters WHERE id = $1', ['chain'])
    return rows[0]?.tracing ?? null
}

/** The 35th, 60th and 90th percentile of the effective gas price paid from block `from` on; null without transactions. */
export async function gasPricePercentiles(db: Db, from: number): Promise<string[] | null> {
    const { rows } = await db.query<{ p: string[] | null }>(
        `SELECT percentile_disc(ARRAY[0.35, 0.6, 0.9]) WITHIN GROUP (ORDER BY effective_gas_price) AS p
           FROM transaction WHERE block_number >= $1`,
        [from]
    )
    return rows[0].p
}

/** Gas used and gas limits summed from block `from` on, and the newest block's base fee. */
export async function blockGasSince(db: Db, from: number): Promise<{ used: string; lim: string; base_fee: string | null }> {
    const { rows } = await db.query<{ used: string; lim: string; base_fee: string | null }>(
        `SELECT COALESCE(SUM(gas_used), 0) AS used, COALESCE(SUM(gas_limit), 0) AS lim,
                (SELECT base_fee_per_gas FROM block ORDER BY number DESC LIMIT 1) AS base_fee
           FROM block WHERE number >= $1`,
        [from]
    )
    return rows[0]
}

/** All gas used, and the transactions and gas of yesterday (UTC), from the daily activity rows. */
export async function activityTotals(db: Db): Promise<{ gas_used: string; tx_yesterday: string; gas_yesterday: string }> {
    const { rows } = await db.query<{ gas_used: string; tx_yesterday: string; gas_yesterday: string }>(
        `SELECT COALESCE(SUM(gas_used), 0) AS gas_used,
                COALESCE(SUM(transactions) FILTER (WHERE date = date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 day'), 0) AS tx_yesterday,
                COALESCE(SUM(gas_used) FILTER (WHERE date = date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 day'), 0) AS gas_yesterday
           FROM daily_chain_activity`
    )
    return rows[0]
}

/** Transactions per UTC day of the last `days` days, newest first, every day present. */
export async function dailyTransactions(db: Db, days: number): Promise<{ date: string; transactions_count: number }[]> {
    const { rows } = await db.query<{ date: string; transactions_count: number }>(
        `SELECT to_char(d, 'YYYY-MM-DD') AS date, COALESCE(a.transactions, 0) AS transactions_count
           FROM generate_series(date_trunc('day', now() AT TIME ZONE 'UTC') - interval '${days - 1} days',
                                date_trunc('day', now() AT TIME ZONE 'UTC'), interval '1 day') AS d
           LEFT JOIN daily_chain_activity a ON a.id = to_char(d, 'YYYY-MM-DD')
          ORDER BY d DESC`
    )
    return rows
}

/**
 * Transactions and fees of the last 24 hours, summed from the per-block totals the indexer keeps
 * (about 43,000 rows at two-second blocks), so the transactions table is never scanned.
 */
export async function lastDayTransactions(db: Db): Promise<{ count: string; fees: string }> {
    const { rows } = await db.query<{ count: string; fees: string }>(
        `SELECT COALESCE(SUM(transaction_count), 0) AS count, COALESCE(SUM(transaction_fees), 0) AS fees
           FROM block WHERE timestamp > now() - interval '24 hours'`
    )
    return rows[0]
}
