import { EngineContext } from './context'
import { advanceGather } from './gather'
import { Swap, update } from './lifecycle'

/**
 * The refund of a failed swap whose deposit arrived (spec 3.1): when a refund_address was given,
 * the deposit goes back there, on the source chain, in the source token. The funds are first
 * gathered into the vault if they were not yet (one path for every failure point), then the
 * gathered amount is sent from the vault, which pays the network fee. The swap stays failed;
 * the refund is recorded with the events refund_sent (with its transaction) or refund_failed.
 */
export async function advanceRefund(ctx: EngineContext, swap: Swap): Promise<'done' | 'waiting'> {
    let current = swap
    if (current.gatheredAmount === null) {
        const gather = await advanceGather(ctx, current)
        if (gather.state === 'failed') {
            await update(ctx.pool, swap.id, 'failed', { refund_status: 'failed' }, { event: 'refund_failed', data: { reason: gather.reason } })
            return 'done'
        }
        if (gather.state !== 'done') return 'waiting'
        const gathered = await update(ctx.pool, swap.id, 'failed', { gathered_amount: gather.tx.amount, gather_tx_hash: gather.tx.hash })
        if (!gathered) return 'done'
        current = gathered
    }
    const adapter = ctx.adapter(current.sourceChain)
    const asset = ctx.asset(current.sourceChain, current.sourceToken)
    const request = { from: { kind: 'vault' as const }, to: current.refundAddress!, asset, amount: current.gatheredAmount! }
    let tx = await ctx.sender.live(current.id, 'refund')
    if (!tx) {
        const result = await ctx.sender.send(adapter, current.id, 'refund', request)
        if (result.kind === 'rejected') {
            await update(ctx.pool, swap.id, 'failed', { refund_status: 'failed' }, {
                event: 'refund_failed',
                data: { reason: result.insufficientFunds ? 'the source vault lacked gas for the refund' : result.reason.slice(0, 200) },
            })
            return 'done'
        }
        tx = result.tx
    }
    const state = tx.status === 'confirmed' ? { kind: 'confirmed' as const } : await ctx.sender.track(adapter, tx)
    if (state.kind === 'confirmed') {
        await update(ctx.pool, swap.id, 'failed', { refund_status: 'sent', refund_tx_hash: tx.hash, refund_amount: tx.amount }, {
            event: 'refund_sent', txHash: tx.hash, data: { refund_address: current.refundAddress },
        })
        return 'done'
    }
    if (state.kind === 'reverted') {
        await update(ctx.pool, swap.id, 'failed', { refund_status: 'failed' }, { event: 'refund_failed', txHash: tx.hash, data: { reason: 'the refund transaction reverted' } })
        return 'done'
    }
    return 'waiting'
}
