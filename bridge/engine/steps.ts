import { formatUnits } from '../amounts'
import { EngineContext } from './context'
import { advanceGather } from './gather'
import { Swap } from '../store/swaps'
import { transition, update } from './lifecycle'
import { isProviderStatus, SwapStatus } from './statuses'
import { advancePayout, checkSourceDeposit } from './payout'
import { advancePoolTrade, NO_ROUTE } from './pool'
import { followProviderLeg, hasProviderLeg, PROVIDER_FUNDS_HELD, ProviderStepResult, startProviderLeg } from './provider-leg'
import { minimumFor } from './minimum'
import { NoLiquidityError } from './rates'
import { PriceUnavailableError } from '../prices'
import { ProviderRequestError } from '../providers/errors'
import { advanceRefund } from './refund'
import { lockVault } from './vault'

/**
 * One step of a swap past its deposit: each function looks at the swap's status and the chain,
 * does at most one thing, and says whether the swap can move on at once ('continue') or must wait
 * for the chain ('wait'). Every step is safe to repeat after a crash at any point: transitions are
 * guarded by the expected status, and transactions go through the idempotent sender.
 */

export type StepResult = 'continue' | 'wait'

export const LATE_DEPOSIT = 'deposit arrived after the window closed'
/** The start of the reason when the rate at the lock pays less than the swap's min_target_amount. */
export const SLIPPAGE = 'rate moved beyond the allowed slippage'
/** The cause in the words clients are told (docs/bridge/routes-and-prices.md). */
export { NO_ROUTE }

export async function step(ctx: EngineContext, swap: Swap): Promise<StepResult> {
    if (isProviderStatus(swap.status)) return providerStep(ctx, swap, await followProviderLeg(ctx, swap))
    switch (swap.status) {
        case 'deposit_detected': return confirmDeposit(ctx, swap)
        case 'deposit_confirmed': return lockRate(ctx, swap)
        case 'rate_locked': return startGather(ctx, swap)
        case 'gathering': return finishGather(ctx, swap)
        case 'gathered':
            if (hasProviderLeg(swap)) return providerStep(ctx, swap, await startProviderLeg(ctx, swap))
            return moved(await transition(ctx.pool, swap.id, 'gathered', 'vault_locking', { data: { target_chain: swap.targetChain, target_token: swap.targetToken } }))
        case 'vault_locking': {
            // A route with a pool leg trades it first (pool.ts); the payout is reserved once the trade is final.
            const trade = await advancePoolTrade(ctx, swap)
            if (trade.state === 'failed') return fail(ctx, swap, trade.reason)
            if (trade.state === 'waiting') return 'wait'
            const result = await lockVault(ctx, swap, trade.state === 'done' ? { pool_trade: { pool: trade.trade.pool, chain: trade.trade.chain, tx_hash: trade.trade.tx_hash } } : {})
            if (result.kind === 'failed') return fail(ctx, swap, result.reason)
            return result.kind === 'locked' ? 'continue' : 'wait'
        }
        case 'vault_locked': {
            const result = await advancePayout(ctx, swap)
            if (result.state === 'failed') return fail(ctx, swap, result.reason)
            if (result.state !== 'sent') return 'wait'
            return moved(await transition(ctx.pool, swap.id, 'vault_locked', 'payout_processing', {
                set: { payout_tx_hash: result.tx.hash }, txHash: result.tx.hash,
                data: { amount: formatUnits(swap.lockedTargetAmount!, ctx.asset(swap.targetChain, swap.targetToken).decimals) },
            }))
        }
        case 'payout_processing': return finishPayout(ctx, swap)
        case 'failed':
            if (swap.refundStatus === 'pending') await advanceRefund(ctx, swap)
            return 'wait'
        default:
            return 'wait'
    }
}

const moved = (swap: Swap | undefined): StepResult => (swap ? 'continue' : 'wait')

async function providerStep(ctx: EngineContext, swap: Swap, result: ProviderStepResult): Promise<StepResult> {
    if (typeof result === 'string') return result
    return fail(ctx, result.swap ?? swap, result.fail, result.refund === 'held' ? { refundHeld: PROVIDER_FUNDS_HELD } : {})
}

/**
 * Fails the swap; a credited deposit (its amount and block, whether or not the node could name its
 * transaction) is refunded when the swap has a refund_address.
 * refundHeld: the funds are not in our vaults (an external provider holds them), so the refund is
 * marked failed with that reason for an operator instead of being paid from the vault's own stock.
 */
export async function fail(ctx: EngineContext, swap: Swap, reason: string, options: { refundHeld?: string } = {}): Promise<StepResult> {
    const credited = swap.depositAmount !== null && swap.depositBlock !== null
    let refund = credited ? (swap.refundAddress ? 'pending' : 'not_requested') : null
    if (refund === 'pending' && options.refundHeld) refund = 'failed'
    ctx.log.warn({ swap: swap.id, status: swap.status, reason }, 'swap failed')
    await transition(ctx.pool, swap.id, swap.status as SwapStatus, 'failed', {
        set: { error_message: reason, refund_status: refund, ...(refund === 'failed' ? { refund_error: options.refundHeld! } : {}) },
        data: { reason, refund: refund ?? 'none', ...(refund === 'failed' ? { refund_error: options.refundHeld, operator_action_required: true } : {}) },
    })
    return 'continue'
}

async function confirmDeposit(ctx: EngineContext, swap: Swap): Promise<StepResult> {
    const check = await checkSourceDeposit(ctx, swap)
    if (check.state === 'moved') {
        await update(ctx.pool, swap.id, 'deposit_detected', { deposit_block: check.blockNumber, deposit_block_hash: check.blockHash })
        return 'wait'
    }
    if (check.state === 'orphaned') {
        // A reorg took the deposit away: watch the address again (the window still applies).
        await transition(ctx.pool, swap.id, 'deposit_detected', 'pending_deposit', {
            event: 'deposit_reorged',
            txHash: swap.depositTxHash,
            set: { deposit_tx_hash: null, deposit_amount: null, deposit_block: null, deposit_block_hash: null, deposit_block_time: null },
        })
        return 'wait'
    }
    if (check.state === 'pending') return 'wait'
    // Final. A deposit mined after the window closed is not swapped, only refunded.
    if (swap.depositBlockTime! > swap.expiresAt) return fail(ctx, swap, LATE_DEPOSIT)
    return moved(await transition(ctx.pool, swap.id, 'deposit_detected', 'deposit_confirmed', {
        txHash: swap.depositTxHash, data: { confirmations: check.confirmations },
    }))
}

async function lockRate(ctx: EngineContext, swap: Swap): Promise<StepResult> {
    const route = ctx.routes.find(swap.sourceChain, swap.sourceToken, swap.targetChain, swap.targetToken)
    if (!route || route.disabled) return fail(ctx, swap, NO_ROUTE)
    const amount = swap.depositAmount!
    const source = route.source
    let quote
    try {
        // A short deposit against today's fees fails (and is refunded).
        const minAmount = (await minimumFor(ctx, route, amount)).amount
        if (amount < minAmount || amount > route.maxAmount) {
            return fail(ctx, swap, `the deposit of ${formatUnits(amount, source.decimals)} ${source.symbol} is outside the route's bounds ` +
                `(${formatUnits(minAmount, source.decimals)} to ${formatUnits(route.maxAmount, source.decimals)})`)
        }
        quote = await ctx.rates.quote(route, amount)
    } catch (err) {
        // A stale price is the feed's trouble, not the swap's: no rate is locked on it, and the swap waits for a fresh one.
        if (err instanceof PriceUnavailableError) {
            ctx.log.debug({ swap: swap.id, reason: err.message }, 'rate lock waits for a current price')
            return 'wait'
        }
        if (err instanceof NoLiquidityError) return fail(ctx, swap, `${NO_ROUTE} (${err.message})`)
        // The provider refuses this amount now (its minimum rose): nothing was sent anywhere yet.
        if (err instanceof ProviderRequestError) return fail(ctx, swap, `${NO_ROUTE} (the external swap provider: ${err.message})`)
        throw err
    }
    const target = route.target
    // The bound is for source_token_amount; a deposit of another size (swapped as it arrived) is held to the same rate, pro rata.
    const bound = swap.minTargetAmount === null ? null : (swap.minTargetAmount * amount) / swap.sourceAmount
    if (bound !== null && quote.amountOut < bound) {
        return fail(ctx, swap, `${SLIPPAGE}: the rate now pays ${formatUnits(quote.amountOut, target.decimals)} ${target.symbol}, ` +
            `below the swap's minimum of ${formatUnits(bound, target.decimals)} ${target.symbol}` +
            (amount === swap.sourceAmount ? '' : ` (min_target_amount pro rata for the ${formatUnits(amount, source.decimals)} ${source.symbol} deposited)`))
    }
    return moved(await transition(ctx.pool, swap.id, 'deposit_confirmed', 'rate_locked', {
        set: {
            locked_target_amount: quote.amountOut,
            fee_amount: quote.fee,
            rate: quote.rate,
            rate_detail: { kind: route.kind, legs: quote.legs },
            rate_locked_at: new Date(),
        },
        data: {
            amount_in: formatUnits(amount, source.decimals),
            fee: formatUnits(quote.fee, source.decimals),
            amount_out: formatUnits(quote.amountOut, target.decimals),
            rate: quote.rate,
        },
    }))
}

async function startGather(ctx: EngineContext, swap: Swap): Promise<StepResult> {
    const progress = await advanceGather(ctx, swap)
    if (progress.state === 'failed') return fail(ctx, swap, progress.reason)
    // Still topping up the deposit address with gas: the gather itself is not out yet.
    if (!progress.tx || progress.tx.purpose !== 'gather') return 'wait'
    return moved(await transition(ctx.pool, swap.id, 'rate_locked', 'gathering', { txHash: progress.tx.hash }))
}

async function finishGather(ctx: EngineContext, swap: Swap): Promise<StepResult> {
    const progress = await advanceGather(ctx, swap)
    if (progress.state === 'failed') return fail(ctx, swap, progress.reason)
    if (progress.state !== 'done') return 'wait'
    const asset = ctx.asset(swap.sourceChain, swap.sourceToken)
    return moved(await transition(ctx.pool, swap.id, 'gathering', 'gathered', {
        set: { gather_tx_hash: progress.tx.hash, gathered_amount: progress.tx.amount },
        txHash: progress.tx.hash,
        data: { amount: formatUnits(progress.tx.amount, asset.decimals) },
    }))
}

async function finishPayout(ctx: EngineContext, swap: Swap): Promise<StepResult> {
    const result = await advancePayout(ctx, swap)
    if (result.state === 'failed') return fail(ctx, swap, result.reason)
    if (result.state === 'sent' && result.tx.hash !== swap.payoutTxHash) {
        // The first payout could never land; its replacement is the one to follow.
        await update(ctx.pool, swap.id, 'payout_processing', { payout_tx_hash: result.tx.hash })
        return 'wait'
    }
    if (result.state !== 'done') return 'wait'
    const target = ctx.asset(swap.targetChain, swap.targetToken)
    return moved(await transition(ctx.pool, swap.id, 'payout_processing', 'completed', {
        set: { payout_tx_hash: result.tx.hash },
        txHash: result.tx.hash,
        data: {
            amount_sent: formatUnits(swap.lockedTargetAmount!, target.decimals), target_wallet: swap.targetWallet,
            // Final by the target chain's rule: where it landed and how deep it was when counted.
            block_number: result.blockNumber.toString(), confirmations: result.confirmations,
        },
    }))
}
