import { DepositCheck, UnpayableTransferError } from '../chains/adapter'
import { Swap } from '../store/swaps'
import { TxRecord } from '../store/transactions'
import { EngineContext } from './context'
import { OperatorHoldError } from './hold'
import { LACKED_GAS } from './vault'

/**
 * The payout, one transfer of the locked amount from the target vault, done once final there
 * (docs/bridge/lifecycle.md#payout). Every decision about it is made here, from the swap's status,
 * its live payout transaction and whether the deposit it pays for still stands; steps.ts only
 * records the outcome.
 */

/**
 * A reorg deeper than the finality rule took the credited deposit away after it was gathered:
 * nothing is paid, and the swap is held for an operator (the vault holds what the gather moved,
 * which may or may not still be there), never closed silently.
 */
export const DEPOSIT_GONE = 'the deposit is no longer in the source chain (a reorganisation deeper than its finality rule)'

export type PayoutProgress =
    /** A payout stands that the swap may not have recorded yet: the first one, or the replacement of a dead one. */
    | { state: 'sent'; tx: TxRecord }
    | { state: 'waiting'; tx?: TxRecord }
    | { state: 'done'; tx: TxRecord; blockNumber: bigint; confirmations: number }
    | { state: 'failed'; reason: string }

/**
 * The swap's deposit against the source chain's finality rule: still in the chain, where, and how
 * deep. Asked once more before the first payout (below), and by steps.ts when the deposit is
 * confirmed. 'orphaned' is passed on only when a second look agrees; until then it reads as 'pending'.
 */
export async function checkSourceDeposit(ctx: EngineContext, swap: Swap): Promise<DepositCheck> {
    const check = await ctx.adapter(swap.sourceChain).checkDeposit(
        { txHash: swap.depositTxHash, blockNumber: swap.depositBlock!, blockHash: swap.depositBlockHash!, amount: swap.depositAmount! },
        ctx.config.networks[swap.sourceChain]!.finality
    )
    const key = `deposit-gone:${swap.id}:${swap.depositBlockHash}`
    if (check.state !== 'orphaned') {
        await ctx.secondLook.forget(key)
        return check
    }
    return (await ctx.secondLook.agrees(key)) ? check : { state: 'pending', confirmations: 0 }
}

/**
 * The payout's next move. In vault_locked: send the first payout (the deposit checked once more
 * before anything is signed), or return the one already signed. In payout_processing: follow the
 * live payout to its final block ('done'), a final revert ('failed'), or its death (a replacement
 * is sent: 'sent' with the new transaction).
 */
export async function advancePayout(ctx: EngineContext, swap: Swap): Promise<PayoutProgress> {
    const tx = await ctx.sender.live(swap.id, 'payout')
    if (swap.status === 'vault_locked') {
        if (!tx) {
            // The deposit once more, right before anything is paid: a reorg deeper than the finality rule must not be paid for.
            const check = await checkSourceDeposit(ctx, swap)
            if (check.state === 'orphaned') throw new OperatorHoldError(DEPOSIT_GONE, { deposit_block: swap.depositBlock!.toString(), deposit_block_hash: swap.depositBlockHash })
            // Final once already: a node that now says otherwise (behind, or mid-reorg) is waited out.
            if (check.state !== 'final') return { state: 'waiting' }
        }
        return send(ctx, swap)
    }
    // The last one was found dead: sign the replacement.
    if (!tx) return send(ctx, swap)
    const state = await ctx.sender.track(ctx.adapter(swap.targetChain), tx, ctx.config.networks[swap.targetChain]!.finality)
    if (state.kind === 'confirmed') return state.final ? { state: 'done', tx, blockNumber: state.blockNumber, confirmations: state.confirmations } : { state: 'waiting', tx }
    if (state.kind === 'reverted') {
        return state.final ? { state: 'failed', reason: `the payout transaction ${tx.hash} reverted on the target chain` } : { state: 'waiting', tx }
    }
    if (state.kind === 'dead') return send(ctx, swap)
    return { state: 'waiting', tx }
}

/** Signs and broadcasts the payout, or rebroadcasts the live one (the sender never signs twice). */
async function send(ctx: EngineContext, swap: Swap): Promise<PayoutProgress> {
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
