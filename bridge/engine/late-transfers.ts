/**
 * Which transfers into a swap's address make up a late deposit: the address's balance is what is
 * gathered and refunded (one gather, one refund, one network fee), and these are the transfers the
 * swap lists under it so that a user finds each of their own. docs/bridge/lifecycle.md#extra-and-late-deposits
 */

/** At most this many transfers are looked for and listed per late deposit; the rest of the balance is unattributed. */
export const MAX_LATE_TRANSFERS = 20

/** A transfer into the address, as an adapter's scan saw it (base units). */
export interface TransferSeen {
    txHash: string | null
    amount: bigint
    blockNumber: bigint
    blockHash: string
}

export interface LateTransfer {
    txHash: string
    amount: bigint
    blockNumber: bigint
    blockHash: string
}

export interface Attribution {
    /** Oldest first. */
    transfers: LateTransfer[]
    /** The part of the balance no listed transfer accounts for (older than the scan range, a coin arrival the node cannot trace…). */
    unattributed: bigint
}

/**
 * The transfers of `seen` that account for `balance`. Not candidates: a transfer without a hash
 * (nothing to show), one named in `excluded` (the swap's credited deposit, transfers already listed on
 * earlier late deposits of the swap), and repeats of one hash.
 *
 * What sits at the address is what arrived last (what came before was gathered), so the newest are
 * taken first, each that still fits in what is left of the balance, until the balance is accounted
 * for. When they cannot account for all of it, a single transfer equal to the whole balance is taken
 * instead (the rule before several were listed); failing that, what was taken is kept and the rest is
 * unattributed. At most `limit` transfers.
 */
export function attributeBalance(balance: bigint, seen: TransferSeen[], excluded: ReadonlySet<string>, limit = MAX_LATE_TRANSFERS): Attribution {
    const hashes = new Set<string>()
    const candidates: LateTransfer[] = []
    for (const s of seen) {
        if (s.txHash === null || s.amount <= 0n || excluded.has(s.txHash) || hashes.has(s.txHash)) continue
        hashes.add(s.txHash)
        candidates.push({ txHash: s.txHash, amount: s.amount, blockNumber: s.blockNumber, blockHash: s.blockHash })
    }
    // Newest first; within a block, the later in the scan's order first (a stable sort keeps it).
    const newestFirst = candidates.map((c, i) => ({ c, i }))
        .sort((a, b) => (a.c.blockNumber === b.c.blockNumber ? b.i - a.i : a.c.blockNumber > b.c.blockNumber ? -1 : 1))
        .map(({ c }) => c)
    const taken: LateTransfer[] = []
    let left = balance
    for (const c of newestFirst) {
        if (left === 0n || taken.length === limit) break
        if (c.amount > left) continue
        taken.push(c)
        left -= c.amount
    }
    if (left !== 0n) {
        const whole = newestFirst.find((c) => c.amount === balance)
        if (whole) return { transfers: [whole], unattributed: 0n }
    }
    return { transfers: taken.reverse(), unattributed: left }
}
