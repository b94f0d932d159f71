/**
 * Every block where an address's coin balance rose, within a range: the coin transfers that make up
 * a late deposit (docs/bridge/lifecycle.md#extra-and-late-deposits). No log shows a coin transfer, so
 * the range is bisected on historical state. A deposit address is an account of ours with no code: only
 * its own transactions lower its balance, and each raises its nonce. So a sub-range whose two ends hold
 * the same balance and the same nonce saw nothing arrive (no fall could have hidden a rise); any other
 * is split until single blocks remain. A deposit and its own gather, or a gather and an extra deposit
 * of the same amount, are thus never taken for "nothing happened".
 */

export interface BalanceRise {
    blockNumber: bigint
    /** How much the balance rose in that block (base units); net of what the address itself sent in that block. */
    amount: bigint
}

/** The address's state after a block: its balance and its nonce (how many transactions it has sent). */
export interface AccountState {
    balance: bigint
    nonce: number
}

/**
 * `stateAt` answers undefined for a block the node holds no state for: a sub-range that starts there
 * is split towards the oldest block with state, and a rise in the block right after the last one
 * without state is not found. Newest rises are found first; at most `limit` rises, and at most
 * `maxReads` state reads, so a busy address costs a bounded number of requests. Returned oldest first.
 */
export async function balanceRises(
    stateAt: (blockNumber: bigint) => Promise<AccountState | undefined>,
    from: bigint,
    to: bigint,
    limit: number,
    maxReads = limit * 40
): Promise<BalanceRise[]> {
    const rises: BalanceRise[] = []
    // Block 0's balances are the genesis allocation, not transfers.
    if (from < 1n) from = 1n
    if (from > to || limit <= 0) return rises
    let reads = 0
    const read = async (blockNumber: bigint) => {
        reads++
        return stateAt(blockNumber)
    }
    const same = (a: AccountState, b: AccountState) => a.balance === b.balance && a.nonce === b.nonce
    // The range (lo, hi]: blocks lo + 1 … hi, with the state after block lo and after block hi.
    const search = async (lo: bigint, before: AccountState | undefined, hi: bigint, after: AccountState | undefined): Promise<void> => {
        // No state at the end: none before it either (a node keeps the recent blocks' state).
        if (rises.length >= limit || after === undefined || (before !== undefined && same(before, after))) return
        if (hi === lo + 1n) {
            if (before !== undefined && after.balance > before.balance) rises.push({ blockNumber: hi, amount: after.balance - before.balance })
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
