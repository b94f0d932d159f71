import { DepositSeen, DepositWatch } from './adapter'

/** [from, to] and its successors, each at most `width` blocks, until `last` (none when from > last). */
export function* blockRanges(from: bigint, last: bigint, width: bigint): Generator<[bigint, bigint]> {
    for (let start = from; start <= last; start += width) {
        yield [start, start + width - 1n < last ? start + width - 1n : last]
    }
}

/**
 * The deposits at many watched addresses, looked up a few addresses at a time (enough for hundreds
 * of waiting swaps without flooding the node), oldest block first.
 */
export async function scanWatches(
    watches: readonly DepositWatch[],
    parallel: number,
    depositsOf: (watch: DepositWatch) => Promise<DepositSeen[]>
): Promise<DepositSeen[]> {
    const seen: DepositSeen[] = []
    for (let i = 0; i < watches.length; i += parallel) {
        for (const deposits of await Promise.all(watches.slice(i, i + parallel).map(depositsOf))) seen.push(...deposits)
    }
    return seen.sort((a, b) => (a.blockNumber === b.blockNumber ? 0 : a.blockNumber < b.blockNumber ? -1 : 1))
}
