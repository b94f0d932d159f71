import { RequestListener } from 'http'
import { operationsListener } from '../common/service/operations-port'
import { CHECK_TIMEOUT_MS } from '../common/service/ready-checks'
import { withTimeout } from '../common/with-timeout'

/** Whether the indexer is following the chain, for `GET /ready`: docs/RELIABILITY.md#readiness (and /health, /metrics: docs/operations.md) */

export interface ReadinessProbes {
    /** The last block the indexer committed (final or not), -1 before the first. */
    indexedHeight(): number
    /** The node's head; rejects when the node does not answer. */
    chainHead(): Promise<number>
    /** Resolves when the database answers a query. */
    pingDatabase(): Promise<void>
    /** Most blocks behind the head at which the indexer still counts as following. */
    maxLag: number
}

export interface ReadinessReport {
    ready: boolean
    /** `following`, `behind by N blocks`, `stopped: …`, `standby: …`, `starting: …`, `database unreachable`, `node unreachable`. */
    status: string
    indexed: number
    head: number | null
    /** Times the processor loop failed and was restarted since the process started. */
    restarts: number
}

export class Readiness {
    restarts = 0
    private stopped?: string

    constructor(private readonly probes: ReadinessProbes) {}

    /**
     * Where this indexer stands with the database's indexer lock (singleton.ts). Until the lock is
     * ours, the height read from the database is another indexer's work: `acquiring` (no other holder
     * seen yet) and `standby` (waiting for the holder to stop) both answer 503, since a standby
     * answering 200 `following` would take traffic it cannot serve.
     */
    lock: 'acquiring' | 'standby' | 'holding' = 'acquiring'

    /** Ingestion has stopped for good; the process stays up to say why. */
    stop(reason: string): void {
        this.stopped = reason
    }

    async report(): Promise<ReadinessReport> {
        const indexed = this.probes.indexedHeight()
        const base = { indexed, restarts: this.restarts }
        if (this.stopped) return { ...base, ready: false, status: `stopped: ${this.stopped}`, head: null }
        if (this.lock === 'standby') return { ...base, ready: false, status: 'standby: another indexer holds this database', head: null }
        if (this.lock === 'acquiring') return { ...base, ready: false, status: 'starting: taking the database\'s indexer lock', head: null }
        const database = await withTimeout(this.probes.pingDatabase(), CHECK_TIMEOUT_MS).then(() => true, () => false)
        if (!database) return { ...base, ready: false, status: 'database unreachable', head: null }
        const head = await withTimeout(this.probes.chainHead(), CHECK_TIMEOUT_MS).catch(() => null)
        if (head === null) return { ...base, ready: false, status: 'node unreachable', head }
        const behind = Math.max(0, head - indexed)
        if (behind > this.probes.maxLag) return { ...base, ready: false, status: `behind by ${behind} blocks`, head }
        return { ...base, ready: true, status: 'following', head }
    }

    /** `GET /ready`: 200 when following, 503 otherwise, the JSON body says which; `GET /health`; `GET /metrics`. */
    handler(): RequestListener {
        return operationsListener('indexer', () => this.report())
    }
}
