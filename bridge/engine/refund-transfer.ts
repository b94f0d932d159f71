import { InsufficientForFeeError, UnpayableTransferError } from '../chains/adapter'
import { Asset } from '../config'
import { ChainName } from '../registry'
import { Purpose, TxRecord } from '../store/transactions'
import { EngineContext } from './context'

/**
 * The transfer that pays a gathered deposit back from the vault, followed until final by the chain's
 * rule: a failed swap's refund (refund.ts) and a late deposit's (late.ts). What an outcome means
 * (a retry with backoff, a note on the row) and how it is worded is the caller's.
 */

/** What to pay back, to whom, and the purpose its transaction is kept under. */
export interface RefundOrder {
    /** The swap the transaction is stored under (bridge_tx.swap_id). */
    swapId: string
    purpose: Purpose
    chain: ChainName
    asset: Asset
    to: string
    amount: bigint
}

export type RefundTransfer =
    /** The refund is in a final block. */
    | { kind: 'done'; tx: TxRecord }
    | { kind: 'waiting' }
    /** The node refused the transfer outright; nothing was sent. */
    | { kind: 'refused'; reason: string; insufficientFunds: boolean }
    /** The vault cannot pay its fee, or the network's rules forbid the transfer; nothing was signed. */
    | { kind: 'unpayable'; error: InsufficientForFeeError | UnpayableTransferError }
    /** Reverted in a final block: marked dead, so that the next attempt signs anew. */
    | { kind: 'reverted'; tx: TxRecord }

/** Sends the refund unless one is live, then follows it; one step. */
export async function advanceRefundTransfer(ctx: EngineContext, order: RefundOrder): Promise<RefundTransfer> {
    const adapter = ctx.adapter(order.chain)
    let tx = await ctx.sender.live(order.swapId, order.purpose)
    if (!tx) {
        let result
        try {
            result = await ctx.sender.send(adapter, order.swapId, order.purpose, { from: { kind: 'vault' }, to: order.to, asset: order.asset, amount: order.amount })
        } catch (err) {
            if (err instanceof InsufficientForFeeError || err instanceof UnpayableTransferError) return { kind: 'unpayable', error: err }
            throw err
        }
        if (result.kind === 'rejected') return { kind: 'refused', reason: result.reason, insufficientFunds: result.insufficientFunds }
        tx = result.tx
    }
    const state = await ctx.sender.track(adapter, tx, ctx.config.networks[order.chain]!.finality)
    if (state.kind === 'confirmed' && state.final) return { kind: 'done', tx }
    if (state.kind === 'reverted' && state.final) {
        // It moved nothing and never will, so the next attempt may sign anew.
        await ctx.sender.markDead(tx.id, `reverted in block ${state.blockNumber}`)
        return { kind: 'reverted', tx }
    }
    return { kind: 'waiting' }
}
