/**
 * Every block where an address's coin balance rose, within a range: the coin transfers that make up
 * a late deposit (docs/bridge/lifecycle.md#extra-and-late-deposits). No log shows a coin transfer, so
 * the range is bisected on historical balances: a sub-range whose end balance differs from its start
 * balance is split until single blocks remain; one whose ends are equal is not looked into (a rise and
 * a fall that cancel exactly inside it, such as a deposit and its own gather, are not seen).
 */

export interface BalanceRise {
    blockNumber: bigint
    /** How much the balance rose in that block (base units). */
    amount: bigint
}

/**
 * `balanceAt` answers undefined for a block the node holds no state for: a sub-range that starts
 * there is split towards the oldest block with state, and a rise in the block right after the last
 * one without state is not found. Newest rises are found first; at most `limit` rises, and at
 * most `maxReads` balance reads, so a busy address costs a bounded number of requests. Returned oldest first.
 */
export async function balanceRises(
    balanceAt: (blockNumber: bigint) => Promise<bigint | undefined>,
    from: bigint,
    to: bigint,
    limit: number,
    maxReads = limit * 40
): Promise<BalanceRise[]> {
    const rises: BalanceRise[] = []
    if (from < 1n) from = 1n
    if (from > to || limit <= 0) return rises
    let reads = 0
    const read = async (blockNumber: bigint) => {
        reads++
        return balanceAt(blockNumber)
    }
    // The range (lo, hi]: blocks lo + 1 … hi, with the balance after block lo and after block hi.
    const search = async (lo: bigint, before: bigint | undefined, hi: bigint, after: bigint | undefined): Promise<void> => {
        // No state at the end: none before it either (a node keeps the recent blocks' state).
        if (rises.length >= limit || after === undefined || before === after) return
        if (hi === lo + 1n) {
            if (before !== undefined && after > before) rises.push({ blockNumber: hi, amount: after - before })
            return
        }
        if (reads >= maxReads) return
        const mid = (lo + hi) / 2n
        const middle = await read(mid)
        await search(mid, middle, hi, after)
        await search(lo, before, mid, middle)
    }
    await search(from - 1n, await read(from - 1n), to, await read(to))
    return rises.sort((a, b) => (a.blockNumber < b.blockNumber ? -1 : a.blockNumber > b.blockNumber ? 1 : 0))
}
