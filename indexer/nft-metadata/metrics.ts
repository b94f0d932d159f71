import { Counter, Gauge } from 'prom-client'
import { registry } from '../../common/service/metrics'

/** The NFT metadata fetcher's metrics, on the indexer's GET /metrics: docs/operations.md#indexer */

const attempts = new Counter({
    name: 'indexer_nft_metadata_attempts_total',
    help: 'Metadata attempts by outcome: `fetched` (document stored) or `failed` (recorded, retried with backoff)',
    labelNames: ['outcome'] as const,
    registers: [registry],
})

/** Counts one attempt. */
export function attemptEnded(outcome: 'fetched' | 'failed'): void {
    attempts.inc({ outcome })
}

/** Rows counted by the due gauge at most: counting is a scan, and a scrape must stay cheap. */
export const DUE_COUNT_CAP = 100_000

/** Registers the gauges of one fetcher: instances in hand, and instances due in the database (up to DUE_COUNT_CAP). */
export function observeFetcher(readings: { inHand(): number; due(): Promise<number> }): void {
    new Gauge({
        name: 'indexer_nft_metadata_in_hand',
        help: 'Instances the fetcher holds: waiting for a host slot or being fetched',
        registers: [registry],
        collect() {
            this.set(readings.inHand())
        },
    })
    new Gauge({
        name: 'indexer_nft_metadata_due',
        help: `Instances whose next attempt is due, counted up to ${DUE_COUNT_CAP} (NaN while the database does not answer)`,
        registers: [registry],
        async collect() {
            this.set(await readings.due().catch(() => NaN))
        },
    })
}
