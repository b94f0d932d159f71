import { formatUnits } from '../amounts'
import { InsufficientForFeeError } from '../chains/adapter'
import { EngineContext } from './context'
import { advanceGather } from './gather'
import { Swap } from '../store/swaps'
import { update } from './lifecycle'
import { advanceRefundTransfer } from './refund-transfer'

/** The refund of a failed swap's deposit to refund_address, retried with backoff until an operator must act: docs/bridge/lifecycle.md#refunds */

/** Longest wait between two refund attempts. */
const MAX_RETRY_DELAY_SECONDS = 3600
/** Why a refund waits when the vault cannot pay its fee. */
const VAULT_LACKED_GAS = 'the source vault lacked gas for the refund'

type Attempt = { kind: 'done' } | { kind: 'waiting' } | { kind: 'retry'; reason: string }

export async function advanceRefund(ctx: EngineContext, swap: Swap): Promise<'done' | 'waiting'> {
    if (swap.refundRetryAt && swap.refundRetryAt.getTime() > Date.now()) return 'waiting'
    const outcome = await attempt(ctx, swap)
    if (outcome.kind === 'retry') {
        await retryLater(ctx, swap, outcome.reason)
        return 'waiting'
    }
    return outcome.kind
}

async function attempt(ctx: EngineContext, swap: Swap): Promise<Attempt> {
    let current = swap
    if (current.gatheredAmount === null) {
        const gather = await advanceGather(ctx, current)
        if (gather.state === 'failed') return { kind: 'retry', reason: gather.reason }
        if (gather.state === 'waiting') return gather.blocked ? { kind: 'retry', reason: gather.blocked } : { kind: 'waiting' }
        const gathered = await update(ctx.pool, swap.id, 'failed', { gathered_amount: gather.tx.amount, gather_tx_hash: gather.tx.hash })
        if (!gathered) return { kind: 'done' }
        current = gathered
    }
    const asset = ctx.asset(current.sourceChain, current.sourceToken)
    const refund = await advanceRefundTransfer(ctx, {
        swapId: current.id, purpose: 'refund', chain: current.sourceChain, asset, to: current.refundAddress!, amount: current.gatheredAmount!,
    })
    switch (refund.kind) {
        case 'unpayable':
            return {
                kind: 'retry',
                reason: refund.error instanceof InsufficientForFeeError ? VAULT_LACKED_GAS : `the refund cannot be made on ${current.sourceChain}: ${refund.error.message}`,
            }
        case 'refused':
            return { kind: 'retry', reason: refund.insufficientFunds ? VAULT_LACKED_GAS : `the ${current.sourceChain} node refused the refund: ${refund.reason.slice(0, 200)}` }
        case 'reverted':
            return { kind: 'retry', reason: `the refund transaction ${refund.tx.hash} reverted` }
        case 'waiting':
            return { kind: 'waiting' }
    }
    const tx = refund.tx
    await update(ctx.pool, swap.id, 'failed', {
        refund_status: 'sent', refund_tx_hash: tx.hash, refund_amount: tx.amount, refund_error: null, refund_retry_at: null,
        refund_attempts: current.refundAttempts + 1,
    }, {
        event: 'refund_sent', txHash: tx.hash,
        data: { refund_address: current.refundAddress, amount: formatUnits(tx.amount, asset.decimals), attempts: current.refundAttempts + 1 },
    })
    return { kind: 'done' }
}

async function retryLater(ctx: EngineContext, swap: Swap, reason: string): Promise<void> {
    const attempts = swap.refundAttempts + 1
    const { maxAttempts, retrySeconds } = ctx.config.refund
    if (attempts >= maxAttempts) {
        ctx.log.error({ swap: swap.id, attempts, reason }, 'refund given up: an operator must act')
        await update(ctx.pool, swap.id, 'failed', { refund_status: 'failed', refund_attempts: attempts, refund_error: reason, refund_retry_at: null }, {
            event: 'refund_failed',
            data: { reason, attempts, operator_action_required: true },
        })
        return
    }
    const delay = Math.min(retrySeconds * 2 ** (attempts - 1), MAX_RETRY_DELAY_SECONDS)
    ctx.log.warn({ swap: swap.id, attempts, reason, retryInSeconds: delay }, 'refund not sent; retrying later')
    await update(ctx.pool, swap.id, 'failed', { refund_attempts: attempts, refund_error: reason, refund_retry_at: new Date(Date.now() + delay * 1000) })
}
