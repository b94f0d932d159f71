import { EngineContext } from './context'
import { Swap } from './lifecycle'
import { TxRecord } from './sender'
import { LACKED_GAS } from './vault'

/**
 * The payout: one transfer of the locked amount from the target vault to target_wallet. At most
 * one payout transaction per swap can be live (sender.ts); after a crash the stored transaction is
 * found and rebroadcast, never signed again. A replacement is signed only when the first can
 * provably never land (refused by the node, or its nonce taken by another transaction).
 */

export type PayoutProgress =
    | { state: 'sent'; tx: TxRecord }
    | { state: 'waiting'; tx?: TxRecord }
    | { state: 'done'; tx: TxRecord }
    | { state: 'failed'; reason: string }

export async function sendPayout(ctx: EngineContext, swap: Swap): Promise<PayoutProgress> {
    const adapter = ctx.adapter(swap.targetChain)
    const asset = ctx.asset(swap.targetChain, swap.targetToken)
    const result = await ctx.sender.send(adapter, swap.id, 'payout', {
        from: { kind: 'vault' },
        to: swap.targetWallet,
        asset,
        amount: swap.lockedTargetAmount!,
    })
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
    if (tx.status === 'confirmed') return { state: 'done', tx }
    const state = await ctx.sender.track(adapter, tx)
    if (state.kind === 'confirmed') return { state: 'done', tx }
    if (state.kind === 'reverted') return { state: 'failed', reason: `the payout transaction ${tx.hash} reverted on the target chain` }
    if (state.kind === 'dead') return sendPayout(ctx, swap)
    return { state: 'waiting', tx }
}
