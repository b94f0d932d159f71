import { Logger } from '../common/logger'
import { CHECK_TIMEOUT_MS } from '../common/service/ready-checks'
import { withTimeout } from '../common/with-timeout'

/**
 * One log line every few seconds while the indexer backfills: blocks done of the node's head,
 * blocks per second since the last line, and when it will have caught up at that pace
 * (docs/operations.md#backfill-progress). Silent once it follows the head.
 */
export class BackfillProgress {
    private last?: { at: number; height: number }

    constructor(
        private readonly log: Logger,
        /** The node's head; may reject (the line then says so). */
        private readonly chainHead: () => Promise<number>,
        /** Blocks behind the head within which the indexer is following, not backfilling. */
        private readonly followingWithin: number,
        private readonly everyMs = 10_000,
        private readonly now: () => number = Date.now,
    ) {}

    /** A batch up to `height` was committed; logs a line when everyMs have passed since the last. */
    async committed(height: number): Promise<void> {
        const now = this.now()
        if (!this.last) {
            this.last = { at: now, height }
            return
        }
        if (now - this.last.at < this.everyMs) return
        const since = this.last
        this.last = { at: now, height }
        const blocksPerSecond = ((height - since.height) * 1000) / (now - since.at)
        const head = await withTimeout(this.chainHead(), CHECK_TIMEOUT_MS).catch(() => null)
        if (head === null) {
            this.log.info({ indexed: height, blocksPerSecond: round(blocksPerSecond) }, 'backfill progress (the node did not say its head)')
            return
        }
        const behind = Math.max(0, head - height)
        if (behind <= this.followingWithin) return
        const etaSeconds = blocksPerSecond > 0 ? Math.round(behind / blocksPerSecond) : null
        this.log.info(
            { indexed: height, head, behind, percent: round((100 * height) / Math.max(head, 1)), blocksPerSecond: round(blocksPerSecond), etaSeconds },
            `backfill ${height} of ${head} (${behind} behind), ${round(blocksPerSecond)} blocks/s, ${etaSeconds === null ? 'no progress' : `caught up in ${duration(etaSeconds)}`}`,
        )
    }
}

const round = (n: number) => Math.round(n * 10) / 10

function duration(seconds: number): string {
    if (seconds < 120) return `${seconds} s`
    if (seconds < 7200) return `${Math.round(seconds / 60)} min`
    return `${round(seconds / 3600)} h`
}
