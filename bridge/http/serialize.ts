import { swapFee, SWAP_FEE_PERCENT } from '../../common/amm-math'
import { formatUnits } from '../amounts'
import { SwapEvent } from '../store/events'
import { LateDeposit } from '../store/late-deposits'
import { Swap } from '../store/swaps'
import { tokenSpec } from '../registry'

/** Amounts leave the bridge as decimal strings of whole tokens; everything else keeps its stored form. */

const amount = (value: bigint | null, chain: string, symbol: string) =>
    value === null ? null : formatUnits(value, tokenSpec(chain, symbol)!.decimals)

/** GET /api/swap/:id/status — exactly these five fields, as docs/bridge/lifecycle.md#creating-and-following-a-swap promises. */
export function statusView(swap: Swap) {
    return {
        id: swap.id,
        status: swap.status,
        deposit_tx_hash: swap.depositTxHash,
        payout_tx_hash: swap.payoutTxHash,
        error_message: swap.errorMessage,
    }
}

/** GET /api/swap/:id, and the body of POST /api/swap's 201. */
export function detailView(swap: Swap) {
    const source = (v: bigint | null) => amount(v, swap.sourceChain, swap.sourceToken)
    const target = (v: bigint | null) => amount(v, swap.targetChain, swap.targetToken)
    const route = swap.route as { kind: string; legs: unknown[]; min_amount: string; max_amount: string }
    return {
        id: swap.id,
        swap_id: swap.id,
        status: swap.status,
        source_chain: swap.sourceChain,
        source_token: swap.sourceToken,
        source_token_amount: source(swap.sourceAmount),
        target_chain: swap.targetChain,
        target_token: swap.targetToken,
        target_wallet: swap.targetWallet,
        refund_address: swap.refundAddress,
        deposit_address: swap.depositAddress,
        expires_at: swap.expiresAt.toISOString(),
        route: { kind: route.kind, legs: route.legs, min_amount: route.min_amount, max_amount: route.max_amount },
        fee_percent: (swap.feeBps / 100).toFixed(2),
        estimated_target_amount: target(swap.quotedTargetAmount),
        min_target_amount: target(swap.minTargetAmount),
        deposit_tx_hash: swap.depositTxHash,
        deposit_amount: source(swap.depositAmount),
        deposit_block_number: swap.depositBlock?.toString() ?? null,
        fee_amount: source(swap.feeAmount),
        fees: feesView(swap),
        rate: swap.rate,
        target_token_amount: target(swap.lockedTargetAmount),
        rate_locked_at: swap.rateLockedAt?.toISOString() ?? null,
        gather_tx_hash: swap.gatherTxHash,
        payout_tx_hash: swap.payoutTxHash,
        amount_sent: swap.status === 'completed' ? target(swap.lockedTargetAmount) : null,
        refund_status: swap.refundStatus,
        refund_tx_hash: swap.refundTxHash,
        refund_amount: source(swap.refundAmount),
        refund_attempts: swap.refundAttempts,
        refund_next_attempt_at: swap.refundStatus === 'pending' ? swap.refundRetryAt?.toISOString() ?? null : null,
        refund_error: swap.refundError,
        pool_trade: poolTradeView(swap),
        error_message: swap.errorMessage,
        hold: swap.holdReason ? { reason: swap.holdReason, since: swap.heldAt!.toISOString(), operator_action_required: true } : null,
        created_at: swap.createdAt.toISOString(),
        updated_at: swap.updatedAt.toISOString(),
        finished_at: swap.finishedAt?.toISOString() ?? null,
    }
}

export interface Leg { type: string; pool?: string; provider?: string; chain?: string; token_in?: string; amount_in?: string }

/**
 * Each fee of the swap, as GET /api/swap/quote states them: the bridge's, taken from the deposit; each pool leg's,
 * in the token it takes in (of the legs as locked, else as quoted at creation); the provider's, inside its rate.
 */
function feesView(swap: Swap) {
    const detail = swap.rateDetail as { legs?: Leg[] } | null
    const legs = detail?.legs ?? (swap.route as { legs?: Leg[] }).legs ?? []
    const provider = legs.find((l) => l.type === 'provider')
    return {
        bridge: { percent: (swap.feeBps / 100).toFixed(2), amount: amount(swap.feeAmount, swap.sourceChain, swap.sourceToken), token: swap.sourceToken },
        pools: legs.filter((l) => l.type === 'pool' && l.pool && l.chain && l.token_in).map(poolLegFee),
        provider: provider?.provider ? { name: provider.provider, included_in_rate: true as const } : null,
        network: { deducted: false as const },
    }
}

/** A pool leg's fee, in whole units of the token it takes in: the quote's and the swap's `fees.pools` entries. */
export function poolLegFee(leg: Leg) {
    return {
        pool: leg.pool!,
        chain: leg.chain!,
        percent: SWAP_FEE_PERCENT,
        token: leg.token_in!,
        amount: leg.amount_in ? formatUnits(swapFee(BigInt(leg.amount_in)), tokenSpec(leg.chain!, leg.token_in!)?.decimals ?? 18) : null,
    }
}

/** The pool leg as traded, with amounts in whole tokens of the pool's chain. */
function poolTradeView(swap: Swap) {
    const t = swap.poolTrade
    if (!t) return null
    const units = (value: string, symbol: string) => formatUnits(BigInt(value), tokenSpec(t.chain, symbol)?.decimals ?? 18)
    return {
        pool: t.pool,
        chain: t.chain,
        pair_address: t.pair,
        tx_hash: t.tx_hash,
        block_number: t.block_number,
        token_in: t.token_in,
        token_out: t.token_out,
        amount_in: units(t.amount_in, t.token_in),
        locked_amount_out: units(t.locked_amount_out, t.token_out),
        amount_out_min: units(t.amount_out_min, t.token_out),
        amount_out: units(t.amount_out, t.token_out),
    }
}

/**
 * A swap's deposits other than the credited one, refunded after it ended (late.ts), amounts in whole
 * tokens of the source asset. Each is what the address held, gathered and refunded as one; `transfers`
 * lists the transfers found to make it up, and `unattributed_amount` the part none of them accounts for.
 */
export function lateDepositView(late: LateDeposit) {
    const units = (v: bigint | null) => amount(v, late.chain, late.asset)
    return {
        id: late.id,
        status: late.state,
        amount: units(late.amount),
        tx_hash: late.txHash,
        transfers: late.transfers.map((t) => ({ tx_hash: t.txHash, amount: units(t.amount)!, block_number: t.blockNumber.toString() })),
        unattributed_amount: units(late.unattributed)!,
        block_number: late.blockNumber.toString(),
        gather_tx_hash: late.gatherTxHash,
        refund_address: late.refundAddress,
        refund_tx_hash: late.refundTxHash,
        refund_amount: units(late.refundAmount),
        operator_action_required: late.state === 'held',
        error: late.error,
        detected_at: late.createdAt.toISOString(),
    }
}

export function eventView(event: SwapEvent) {
    return {
        id: event.id,
        event: event.event,
        status: event.status,
        tx_hash: event.txHash,
        data: event.data,
        timestamp: event.createdAt.toISOString(),
    }
}
