import { RequestHandler } from 'express'
import { Pool } from 'pg'
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { matchedRoute } from './api-doc'

/** The process's Prometheus metrics, served at GET /metrics: names and labels in docs/operations.md */

/** The one registry of this process; every module registers its metrics here. */
export const registry = new Registry()

let collecting = false

/** Node's own metrics (CPU, heap, event loop lag, GC), and the `service` label on every series. Once per process. */
export function collectProcessMetrics(service: string): void {
    if (collecting) return
    collecting = true
    registry.setDefaultLabels({ service })
    collectDefaultMetrics({ register: registry })
}

/** Seconds, from a quick request to a long batch: one set of buckets for every duration, so dashboards compare them. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

/** A histogram of durations in seconds, registered in the process's registry. */
export function durationHistogram<L extends string>(name: string, help: string, labelNames: readonly L[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets: DURATION_BUCKETS, registers: [registry] })
}

const requestDuration = durationHistogram('http_request_duration_seconds',
    'HTTP requests by method, route template (`unmatched` when no route answered) and status code', ['method', 'route', 'status'])

/**
 * Times every request; mount it first. The route label is the documented template the request
 * matched, never the URL itself, so a client cannot create series by inventing paths.
 */
export function timeRequests(): RequestHandler {
    return (req, res, next) => {
        const end = requestDuration.startTimer()
        res.once('finish', () => end({ method: req.method, route: matchedRoute(req) ?? 'unmatched', status: String(res.statusCode) }))
        next()
    }
}

const pools = new Map<string, Pool>()

function poolGauge(name: string, help: string, read: (pool: Pool) => number): void {
    new Gauge({
        name,
        help,
        labelNames: ['pool'] as const,
        registers: [registry],
        collect() {
            this.reset()
            for (const [label, pool] of pools) this.set({ pool: label }, read(pool))
        },
    })
}

poolGauge('db_pool_connections', 'Connections the pool holds (idle and in use)', (pool) => pool.totalCount)
poolGauge('db_pool_idle_connections', 'Connections of the pool waiting for a query', (pool) => pool.idleCount)
poolGauge('db_pool_waiting_clients', 'Queries waiting for a connection of the pool', (pool) => pool.waitingCount)

/** Reports pool's use under the `pool` label `name` on every scrape; a later pool of the same name replaces it. */
export function observePool(name: string, pool: Pool): void {
    pools.set(name, pool)
}
