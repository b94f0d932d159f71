/** How the native coin moves within a block, one rule for the indexer's balance history and the chain API's state changes: docs/indexer.md#native-balance-history */

export interface CoinTransaction {
    hash: string
    from: string
    to: string | null
    createdContract: string | null
    value: bigint
    /** 1 success, 0 reverted */
    status: number
    gasUsed: bigint
    effectiveGasPrice: bigint
    /** What an EIP-4844 transaction burns for its blobs (blob gas used × blob gas price), charged to its sender; 0 or absent for other types. */
    blobFee?: bigint
}

export interface CoinFrame {
    /** null for frames outside any transaction (block rewards) */
    transactionHash: string | null
    traceAddress: number[]
    type: string
    from: string
    to: string | null
    createdContract: string | null
    value: bigint
    error: string | null
}

export interface CoinMovement {
    address: string
    /** positive: received */
    amount: bigint
    transaction: string | null
}

/**
 * Whether each frame's effects stand: a frame is undone when it or any frame above it failed, even
 * if it succeeded itself. Frames come depth first, so a parent is always seen before its children.
 */
export function effectiveSuccess(frames: readonly CoinFrame[]): boolean[] {
    const failed = new Set<string>()
    // Keys are built only once some frame failed: most blocks have none, and a backfill sees millions of frames.
    return frames.map((frame) => {
        const undone = frame.error !== null || (failed.size > 0 && frame.traceAddress.length > 0 &&
            failed.has(`${frame.transactionHash}:${frame.traceAddress.slice(0, -1).join('.')}`))
        if (undone) failed.add(`${frame.transactionHash}:${frame.traceAddress.join('.')}`)
        return !undone
    })
}

/** The block's movements in chain order: per transaction its fee, then its frames. Zero amounts are left out. */
export function coinMovements(
    block: { miner: string; baseFeePerGas: bigint | null },
    transactions: readonly CoinTransaction[],
    frames: readonly CoinFrame[] | undefined
): CoinMovement[] {
    const movements: CoinMovement[] = []
    const move = (address: string, amount: bigint, transaction: string | null) => {
        if (amount !== 0n) movements.push({ address, amount, transaction })
    }
    const baseFee = block.baseFeePerGas ?? 0n
    const byTransaction = new Map<string | null, { frame: CoinFrame; stands: boolean }[]>()
    if (frames) {
        const stands = effectiveSuccess(frames)
        frames.forEach((frame, i) => {
            const list = byTransaction.get(frame.transactionHash) ?? []
            list.push({ frame, stands: stands[i] })
            byTransaction.set(frame.transactionHash, list)
        })
    }
    for (const tx of transactions) {
        move(tx.from, -(tx.gasUsed * tx.effectiveGasPrice + (tx.blobFee ?? 0n)), tx.hash)
        move(block.miner, tx.gasUsed * (tx.effectiveGasPrice - baseFee), tx.hash)
        if (!frames) {
            if (tx.status === 1 && tx.value > 0n) {
                move(tx.from, -tx.value, tx.hash)
                move((tx.to ?? tx.createdContract)!, tx.value, tx.hash)
            }
            continue
        }
        for (const { frame, stands } of byTransaction.get(tx.hash) ?? []) {
            if (stands) frameMovements(frame, move)
        }
    }
    for (const { frame, stands } of byTransaction.get(null) ?? []) {
        if (stands) frameMovements(frame, move)
    }
    return movements
}

function frameMovements(frame: CoinFrame, move: (address: string, amount: bigint, transaction: string | null) => void): void {
    if (frame.value === 0n) return
    switch (frame.type) {
        case 'call':
        case 'selfdestruct':
            move(frame.from, -frame.value, frame.transactionHash)
            move(frame.to!, frame.value, frame.transactionHash)
            break
        case 'create':
        case 'create2':
            move(frame.from, -frame.value, frame.transactionHash)
            if (frame.createdContract) move(frame.createdContract, frame.value, frame.transactionHash)
            break
        case 'reward':
            move(frame.to!, frame.value, null)
            break
    }
}
