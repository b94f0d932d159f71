import { ReadyCheck } from '../../common/service/ready-checks'
import { ChainContext } from './context'
import { Recent } from '../../common/recent'

/** How long one reading of the node's head serves the probes that follow. */
const NODE_HEAD_TTL_MS = 2000

/**
 * The api's part of `GET /ready`: the indexer's last block is within maxLag blocks of the node's
 * head, so what the API serves is current (docs/operations.md#health-and-readiness). The indexed
 * head comes from the database; the node is asked at most once per NODE_HEAD_TTL_MS.
 */
export function indexerLagCheck(ctx: ChainContext, maxLag: number): ReadyCheck {
    const nodeHead = new Recent<bigint>(NODE_HEAD_TTL_MS)
    return async () => {
        const [indexed, head] = await Promise.all([
            ctx.head.get().catch(() => {
                throw new Error('indexed head unreadable')
            }),
            nodeHead.get(() => ctx.node.getBlockNumber({ cacheTime: 0 })).catch(() => {
                throw new Error('node unreachable')
            }),
        ])
        const behind = Number(head) - indexed.number
        if (behind > maxLag) throw new Error(`indexer behind by ${behind} blocks`)
    }
}
