import { Logger } from '../common/logger'
import { ProgressLine } from './progress-line'

/**
 * After `npm start` has printed its banner: the indexer's way through the chain, read from its own
 * health port (GET /metrics for the heights, GET /ready for "caught up"), as a progress line until
 * it follows the head. Never in place: the services write to the same terminal by then.
 */
export async function reportIndexing(healthUrl: string, log: Logger, stopping: () => boolean, pollMs = 1000): Promise<void> {
    const line = new ProgressLine('indexing the chain', log, { inPlace: false, logEveryMs: 3000 })
    while (!stopping()) {
        const ready = await fetch(`${healthUrl}/ready`).then((r) => r.status === 200, () => false)
        const heights = await fetch(`${healthUrl}/metrics`).then((r) => r.text()).then(indexerHeights, () => undefined)
        if (ready) {
            line.done(`caught up${heights ? ` at block ${heights.indexed}` : ''}: the explorer has the whole history`)
            return
        }
        if (heights) line.update(heights.indexed, heights.head, `block ${heights.indexed} of ${heights.head}`)
        await new Promise((resolve) => setTimeout(resolve, pollMs))
    }
}

/** The two gauges of the indexer's Prometheus text (docs/operations.md#indexer), when it reports both. */
export function indexerHeights(text: string): { indexed: number; head: number } | undefined {
    const gauge = (name: string) => {
        const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'm').exec(text)
        return match ? Number(match[1]) : undefined
    }
    const indexed = gauge('indexer_indexed_height')
    const head = gauge('indexer_head_height')
    return indexed === undefined || head === undefined ? undefined : { indexed, head }
}
