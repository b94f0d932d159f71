import { NotReady, ReadyCheck } from '../../common/service/ready-checks'
import { ChainContext } from './context'
import { chainCounters } from './queries/stats'
import { Recent } from '../../common/recent'

/** How long one reading of the node's head serves the probes that follow. */
const NODE_HEAD_TTL_MS = 2000

/** The indexed head committed in a database: its counters row (-1 before the first commit). */
async function committedHead(db: ChainContext['db'], what: string): Promise<number> {
    const row = await chainCounters(db).catch(() => {
        // The driver's message names the host and port: not for an anonymous caller.
        throw new Error(`${what} unreadable`)
    })
    return row?.last_block ?? -1
}

/**
 * The api's part of `GET /ready`: the indexer's last block is within maxLag blocks of the node's
 * head, so what the API serves is current (docs/operations.md#health-and-readiness). The indexed
 * head is what the indexer committed on the primary (the replicas' lag behind it is
 * replicaLagCheck's); the node is asked at most once per NODE_HEAD_TTL_MS.
 */
export function indexerLagCheck(ctx: ChainContext, maxLag: number): ReadyCheck {
    const nodeHead = new Recent<bigint>(NODE_HEAD_TTL_MS)
    return async () => {
        const [indexed, head] = await Promise.all([
            committedHead(ctx.pool, 'indexed head'),
            nodeHead.get(() => ctx.node.getBlockNumber({ cacheTime: 0 })).catch(() => {
                throw new Error('node unreachable')
            }),
        ])
        const behind = Number(head) - indexed
        if (behind > maxLag) throw new Error(`indexer behind by ${behind} blocks`)
    }
}

/** One replica's place behind the primary, as `GET /ready` reports it. */
export interface ReplicaLag {
    /** Its position in CHAIN_API_READ_DATABASE_URL, from 1 (never its address: the probe is anonymous). */
    replica: number
    /** Its indexed head; null when it did not answer. */
    head: number | null
    /** The primary's indexed head minus its own; null when it did not answer. */
    lag_blocks: number | null
}

/**
 * With read replicas: each replica's indexed head (its counters row, read there, uncached) is
 * within maxLag blocks of the primary's, and the lag of each is reported under `details.replicas`
 * whether or not it is. A replica past maxLag, or not answering, fails the check: a share of the
 * requests would be answered from it (docs/production.md#read-replicas-for-the-chain-data-api).
 */
export function replicaLagCheck(ctx: ChainContext, maxLag: number): ReadyCheck {
    return async () => {
        // The replicas first: a commit between the two reads then shows as lag, never as a replica ahead.
        const replicas = await Promise.all(ctx.readDbs.map((db) => committedHead(db, 'replica head').catch(() => null)))
        const primary = await committedHead(ctx.pool, 'indexed head')
        const lags: ReplicaLag[] = replicas.map((head, i) => ({ replica: i + 1, head, lag_blocks: head === null ? null : Math.max(0, primary - head) }))
        const failing = lags.filter((r) => r.lag_blocks === null || r.lag_blocks > maxLag)
        if (failing.length > 0) {
            const why = failing.map((r) => (r.lag_blocks === null ? `replica ${r.replica} unreachable` : `replica ${r.replica} behind by ${r.lag_blocks} blocks`))
            throw new NotReady(why.join(', '), lags)
        }
        return lags
    }
}
