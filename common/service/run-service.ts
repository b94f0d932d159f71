import { createLogger, Logger, setLogService } from '../logger'
import { routeSubsquidLogs } from '../subsquid-logs'
import { collectProcessMetrics } from './metrics'

/** What a service's start function gets: its logger, and where to register what must be closed on the way out. */
export interface Service {
    log: Logger
    /**
     * Registers closers. On SIGTERM or SIGINT each call's closers run together, calls in reverse
     * order (the last thing started stops first), once; then the process exits with 0.
     */
    onStop(...closers: Array<() => unknown>): void
}

/** Past this, a stop that hangs (a connection that never closes) gives up and exits with 1. */
const STOP_TIMEOUT_MS = 10_000

/**
 * Runs one process (api, bridge, indexer): start() builds it and registers its closers; its metrics
 * carry `service="<name>"` and so does every log line, Subsquid's included (docs/operations.md). A start
 * that fails is logged as `<name> failed to start` and exits with 1.
 */
export function runService(name: string, start: (service: Service) => Promise<void>): void {
    setLogService(name)
    routeSubsquidLogs()
    const log = createLogger(name)
    collectProcessMetrics(name)
    const groups: Array<Array<() => unknown>> = []
    let stopping = false
    const stop = async () => {
        if (stopping) return
        stopping = true
        setTimeout(() => {
            log.error({ timeoutMs: STOP_TIMEOUT_MS }, `${name} did not stop in time`)
            process.exit(1)
        }, STOP_TIMEOUT_MS).unref()
        for (const group of groups.reverse()) {
            const results = await Promise.allSettled(group.map(async (close) => close()))
            for (const result of results) {
                if (result.status === 'rejected') log.error({ err: result.reason }, 'failed to stop cleanly')
            }
        }
        process.exit(0)
    }
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
    start({ log, onStop: (...closers) => groups.push(closers) }).catch((err) => {
        log.fatal({ err }, `${name} failed to start`)
        process.exit(1)
    })
}
