import { UnpayableTransferError } from '../chains/adapter'
import { EngineContext } from './context'
import { Swap } from '../store/swaps'
import { TxRecord } from '../store/transactions'
import { LACKED_GAS } from './vault'

/** The payout, one transfer of the locked amount from the target vault, done once final there: docs/bridge/lifecycle.md#payout */

export type PayoutProgress =
    | { state: 'sent'; tx: TxRecord }
    | { state: 'waiting'; tx?: TxRecord }
    | { state: 'done'; tx: TxRecord; blockNumber: bigint; confirmations: number }
    | { state: 'failed'; reason: string }

export async function sendPayout(ctx: EngineContext, swap: Swap): Promise<PayoutProgress> {
    const adapter = ctx.adapter(swap.targetChain)
    const asset = ctx.asset(swap.targetChain, swap.targetToken)
    let result
    try {
        result = await ctx.sender.send(adapter, swap.id, 'payout', { from: { kind: 'vault' }, to: swap.targetWallet, asset, amount: swap.lockedTargetAmount! })
    } catch (err) {
        // The target network's rules forbid this payout (below Bitcoin's dust, a Solana account left under rent): nothing was sent.
        if (err instanceof UnpayableTransferError) return { state: 'failed', reason: `the payout cannot be made on ${swap.targetChain}: ${err.message}` }
        throw err
    }
    if (result.kind === 'rejected') {
        // Refused outright: nothing was paid, so failing (and refunding) is safe.
        return { state: 'failed', reason: result.insufficientFunds ? LACKED_GAS : `the target chain refused the payout: ${result.reason.slice(0, 200)}` }
    }
    return { state: 'sent', tx: result.tx }
}

export async function trackPayout(ctx: EngineContext, swap: Swap): Promise<PayoutProgress> {
    const adapter = ctx.adapter(swap.targetChain)
    const tx = await ctx.sender.live(swap.id, 'payout')
    // The last one was found dead: sign the replacement.
    if (!tx) return sendPayout(ctx, swap)
    const state = await ctx.sender.track(adapter, tx, ctx.config.networks[swap.targetChain]!.finality)
    if (state.kind === 'confirmed') return state.final ? { state: 'done', tx, blockNumber: state.blockNumber, confirmations: state.confirmations } : { state: 'waiting', tx }
    if (state.kind === 'reverted') {
        return state.final ? { state: 'failed', reason: `the payout transaction ${tx.hash} reverted on the target chain` } : { state: 'waiting', tx }
    }
    if (state.kind === 'dead') return sendPayout(ctx, swap)
    return { state: 'waiting', tx }
}
