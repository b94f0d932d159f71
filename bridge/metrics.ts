import { Pool } from 'pg'
import { Counter, Gauge } from 'prom-client'
import { durationHistogram, registry } from '../common/service/metrics'
import { STATUSES } from './engine/lifecycle'

/** The bridge's metrics, beside the kit's on GET /metrics: docs/operations.md#bridge */

const monitorCycle = durationHistogram('bridge_monitor_cycle_duration_seconds',
    "One deposit-monitor cycle of a chain: its head read, deposit scan and late-deposit watch", ['chain'])

const webhookDeliveries = new Counter({
    name: 'bridge_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: `delivered`, `failed` (retried later) or `given_up` (no retry left)',
    labelNames: ['outcome'] as const,
    registers: [registry],
})

/** Times one chain's monitor cycle: call the result when it ends. */
export function startMonitorCycle(chain: string): () => void {
    const end = monitorCycle.startTimer({ chain })
    return () => void end()
}

export function webhookAttempted(outcome: 'delivered' | 'failed' | 'given_up'): void {
    webhookDeliveries.inc({ outcome })
}

/**
 * How long a figure read from the database serves scrapes: /metrics is on the public port, and
 * counting every swap by status is a scan, so callers can ask as often as they like and the
 * database is asked at most this often.
 */
const DATABASE_FIGURES_MS = 10_000

/** read(), reused for DATABASE_FIGURES_MS after it settles (a failed read is not kept). */
function everyFewSeconds<T>(read: () => Promise<T | undefined>): () => Promise<T | undefined> {
    let last: { at: number; value: Promise<T | undefined> } | undefined
    return () => {
        if (last && Date.now() - last.at < DATABASE_FIGURES_MS) return last.value
        const entry = { at: Date.now(), value: read() }
        last = entry
        void entry.value.then((v) => {
            if (v === undefined && last === entry) last = undefined
        })
        return entry.value
    }
}

/**
 * The gauges read from the database (every replica reports the same shared figures), at most once
 * per DATABASE_FIGURES_MS. While the database does not answer, swaps by status are left out and
 * the queue's figures are NaN; the rest of the scrape still answers.
 */
export function observeBridgeDatabase(pool: Pool): void {
    const readSwaps = everyFewSeconds(() => pool.query<{ status: string; count: string }>('SELECT status, count(*) AS count FROM bridge_swap GROUP BY status')
        .then((r) => r.rows, () => undefined))
    new Gauge({
        name: 'bridge_swaps',
        help: 'Swaps by status',
        labelNames: ['status'] as const,
        registers: [registry],
        async collect() {
            this.reset()
            const rows = await readSwaps()
            if (!rows) return
            const counts = new Map(rows.map((r) => [r.status, Number(r.count)]))
            for (const status of new Set([...STATUSES, ...counts.keys()])) this.set({ status }, counts.get(status) ?? 0)
        },
    })
    /** One query for the two queue gauges. */
    const readQueue = everyFewSeconds(() => pool.query<{ depth: string; oldest_seconds: number | null }>(
        `SELECT count(*) AS depth, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest_seconds FROM bridge_webhook_delivery
         WHERE state = 'pending' AND subscription_id = ANY (ARRAY(SELECT id FROM bridge_webhook_subscription WHERE active))`
    ).then(({ rows: [r] }) => ({ depth: Number(r.depth), oldestSeconds: r.oldest_seconds }), () => undefined))
    new Gauge({
        name: 'bridge_webhook_queue_depth',
        help: 'Webhook deliveries waiting to be delivered (to active subscriptions)',
        registers: [registry],
        async collect() {
            this.set((await readQueue())?.depth ?? NaN)
        },
    })
    new Gauge({
        name: 'bridge_webhook_oldest_pending_seconds',
        help: 'Age of the oldest webhook delivery still waiting (0 when none waits)',
        registers: [registry],
        async collect() {
            const queue = await readQueue()
            this.set(queue ? queue.oldestSeconds ?? 0 : NaN)
        },
    })
}
