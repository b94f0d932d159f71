import { Counter, Gauge } from 'prom-client'
import { durationHistogram, registry } from '../common/service/metrics'
import { CHECK_TIMEOUT_MS } from '../common/service/ready-checks'
import { withTimeout } from '../common/with-timeout'
import { Batch } from './batch'

/** The indexer's metrics, beside Node's own on its health port's GET /metrics: docs/operations.md#indexer */

/** Rows of one committed batch, by table; the tables a batch appends to, and those it creates or updates rows of. */
export type RowsByTable = Record<string, number>

/** rows plus batch's, counted before the batch is written: writing releases the largest lists as it goes. */
export function addRows(rows: RowsByTable, batch: Batch): RowsByTable {
    const counts: RowsByTable = {
        block: batch.blocks.length,
        transaction: batch.transactions.length,
        log: batch.logs.length,
        internal_transaction: batch.internalTransactions.length,
        token_transfer: batch.tokenTransfers.length,
        swap: batch.amm.swaps.length,
        trade: batch.amm.trades.length,
        mint: batch.amm.mints.length,
        burn: batch.amm.burns.length,
        verified_contract: batch.verifiedContracts.length,
        token: batch.newTokens.size,
        pair: batch.amm.newPairs.size,
        token_balance: batch.balances.size,
        address: batch.addresses.size,
    }
    for (const [table, count] of Object.entries(counts)) counts[table] = count + (rows[table] ?? 0)
    return counts
}

export interface IndexerReadings {
    /** The node's head; rejects when the node does not answer. */
    chainHead(): Promise<{ number: number; timestamp: number }>
    /** The last committed block and its timestamp (seconds), from the database; null before the first. */
    indexedHead(): Promise<{ number: number; timestamp: number } | null>
}

const rowsWritten = new Counter({
    name: 'indexer_rows_written_total',
    help: 'Rows committed, by table (appended, created or updated)',
    labelNames: ['table'] as const,
    registers: [registry],
})

const batchDuration = durationHistogram('indexer_batch_duration_seconds',
    'Time to write and commit one batch; `mode` is `final` (batches of a backfill) or `hot` (blocks near the head, one transaction each)', ['mode'])

/** Records one committed batch. */
export function batchCommitted(mode: 'final' | 'hot', rows: RowsByTable, seconds: number): void {
    for (const [table, count] of Object.entries(rows)) if (count > 0) rowsWritten.inc({ table }, count)
    batchDuration.observe({ mode }, seconds)
}

/**
 * Head, indexed height and lag, read on each scrape: the node's head with a bound on time, the
 * indexed head from the database. A figure that cannot be known (the node or the database does
 * not answer) is NaN: never a 0 that would read as "caught up".
 */
export function observeHeights(readings: IndexerReadings): void {
    let scrape: Promise<{ head: { number: number; timestamp: number } | null; indexed: { number: number; timestamp: number } | null }> | undefined
    /** One reading per scrape, shared by the four gauges (each collect() runs once per scrape). */
    const read = () => {
        scrape ??= Promise.all([
            withTimeout(readings.chainHead(), CHECK_TIMEOUT_MS).catch(() => null),
            withTimeout(readings.indexedHead(), CHECK_TIMEOUT_MS).catch(() => null),
        ]).then(([head, indexed]) => ({ head, indexed })).finally(() => setImmediate(() => (scrape = undefined)))
        return scrape
    }
    const gauge = (name: string, help: string, value: (r: Awaited<ReturnType<typeof read>>) => number | null) => new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
            this.set(value(await read()) ?? NaN)
        },
    })
    gauge('indexer_head_height', "The node's head block", (r) => r.head?.number ?? null)
    gauge('indexer_indexed_height', 'The last block committed (final or not)', (r) => r.indexed?.number ?? null)
    gauge('indexer_lag_blocks', "Blocks between the node's head and the last committed block", (r) =>
        r.head && r.indexed ? Math.max(0, r.head.number - r.indexed.number) : null)
    gauge('indexer_lag_seconds', "Seconds between the timestamps of the node's head block and the last committed block", (r) =>
        r.head && r.indexed ? Math.max(0, r.head.timestamp - r.indexed.timestamp) : null)
}
