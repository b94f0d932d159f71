import { Address, Hex, PublicClient } from 'viem'

/** One call of a parity-style trace (trace_block), as far as coin movements go. */
interface ParityTrace {
    type: string
    action: { to?: string; value?: string; refundAddress?: string; balance?: string }
    error?: string
    traceAddress: number[]
    transactionHash?: string
}

/** One frame of geth's callTracer (debug_traceBlockByNumber). */
interface CallFrame {
    to?: string
    value?: string
    error?: string
    calls?: CallFrame[]
}

/**
 * Every successful transaction of a block that sends coin straight to `address` (its `to`, a value),
 * with that value: several transfers in one block are told apart here, where a balance shows only
 * their sum. Coin moved by a contract's internal call is not among them (coinTransferTx finds it).
 */
export async function directCoinPayments(
    client: PublicClient,
    block: { transactions: { hash: Hex; to: Address | null; value: bigint }[] },
    address: Address
): Promise<{ hash: Hex; value: bigint }[]> {
    const target = address.toLowerCase()
    const paid: { hash: Hex; value: bigint }[] = []
    for (const tx of block.transactions) {
        if (tx.to?.toLowerCase() !== target || tx.value === 0n) continue
        const receipt = await client.getTransactionReceipt({ hash: tx.hash })
        if (receipt.status === 'success') paid.push({ hash: tx.hash, value: tx.value })
    }
    return paid
}

/**
 * The transaction of a block that moved coin to `address`: a direct transfer, else one whose
 * trace shows it (parity's trace_block, else geth's call tracer); null when the node cannot trace.
 */
export async function coinTransferTx(
    client: PublicClient,
    block: { number: bigint | null; transactions: { hash: Hex; to: Address | null; value: bigint }[] },
    address: Address
): Promise<string | null> {
    const target = address.toLowerCase()
    for (const tx of block.transactions) {
        if (tx.to?.toLowerCase() !== target || tx.value === 0n) continue
        // A reverted transaction moved no coin.
        const receipt = await client.getTransactionReceipt({ hash: tx.hash })
        if (receipt.status === 'success') return tx.hash
    }
    const tag = `0x${block.number!.toString(16)}`
    try {
        const traces = (await client.request({ method: 'trace_block' as any, params: [tag] as any })) as ParityTrace[]
        // A call whose own frame or any enclosing frame failed moved nothing.
        const failed = traces.filter((t) => t.error).map((t) => `${t.transactionHash}:${t.traceAddress.join('.')}`)
        const undone = (t: ParityTrace) => failed.some((f) => {
            const [hash, path] = f.split(':')
            const mine = t.traceAddress.join('.')
            return hash === t.transactionHash && (path === '' || mine === path || mine.startsWith(`${path}.`))
        })
        for (const t of traces) {
            const to = t.type === 'suicide' ? t.action.refundAddress : t.type === 'call' ? t.action.to : undefined
            const value = BigInt((t.type === 'suicide' ? t.action.balance : t.action.value) ?? '0x0')
            if (to?.toLowerCase() === target && value > 0n && !undone(t) && t.transactionHash) return t.transactionHash
        }
        return null
    } catch {
        // No parity traces on this node; try geth's call tracer.
    }
    try {
        const results = (await client.request({
            method: 'debug_traceBlockByNumber' as any, params: [tag, { tracer: 'callTracer' }] as any,
        })) as { txHash?: string; result: CallFrame }[]
        const pays = (frame: CallFrame): boolean =>
            !frame.error && ((frame.to?.toLowerCase() === target && BigInt(frame.value ?? '0x0') > 0n) || (frame.calls ?? []).some(pays))
        return results.find((r) => r.txHash && pays(r.result))?.txHash ?? null
    } catch {
        return null
    }
}
