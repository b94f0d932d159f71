import { randomUUID } from 'crypto'
import { PoolClient } from 'pg'
import { HttpError } from '../../common/service/http-error'
import { formatUnits } from '../amounts'
import { inTransaction, LOCK_PENDING_IP } from '../db'
import { EngineContext } from './context'
import { insertSwap, nextDepositIndex, pendingSwapsOfIp, Swap } from '../store/swaps'
import { writeEvent } from './lifecycle'
import { checkAmount, checkBoundAgainstQuote, defaultBound, networkUnavailable, parseAmountField, priceSwap, routeFor, SwapPair } from './terms'

/**
 * Swap creation (POST /api/swap): every field checked against the registry, the route table, the
 * route's bounds and the chains' address rules, then a fresh deposit address derived from the
 * next never-used index, and the swap written with its first event (deposit_wallet_created).
 * The swap carries its rate bound: the caller's min_target_amount, or the quote less
 * BRIDGE_MAX_SLIPPAGE_PERCENT; the rate lock fails the swap rather than pay less.
 */

export interface CreateSwapInput extends SwapPair {
    /** Whole tokens, as a plain decimal string. */
    source_token_amount: string
    target_wallet: string
    refund_address?: string | null
    /** Whole target tokens: the least payout the swap accepts at the rate lock. */
    min_target_amount?: string
}

/**
 * clientIp: who asks (the HTTP layer's view, as its rate limiter counts). Each waiting swap is an
 * address the monitor reads every cycle, so one IP may hold at most BRIDGE_MAX_PENDING_PER_IP.
 * `id`: the swap's id when the caller chose it beforehand (an idempotent creation noted it first).
 */
export async function createSwap(ctx: EngineContext, input: CreateSwapInput, clientIp: string | null = null, id: string = randomUUID()): Promise<{ swap: Swap; quote: bigint }> {
    const route = routeFor(ctx, input)
    const { source, target } = route
    const amount = parseAmountField('source_token_amount', input.source_token_amount, source.decimals)
    const minTarget = input.min_target_amount === undefined ? undefined : parseAmountField('min_target_amount', input.min_target_amount, target.decimals)
    const sourceAdapter = ctx.adapter(source.chain)
    const targetAdapter = ctx.adapter(target.chain)
    await checkAmount(ctx, route, amount)
    const targetWallet = targetAdapter.normalizeAddress(input.target_wallet)
    if (!targetWallet) throw new HttpError(400, `target_wallet: not a valid ${target.chain} address`, { code: 'invalid_request', details: { field: 'target_wallet' } })
    let refundAddress: string | null = null
    if (input.refund_address !== undefined && input.refund_address !== null) {
        refundAddress = sourceAdapter.normalizeAddress(input.refund_address) ?? null
        if (!refundAddress) throw new HttpError(400, `refund_address: not a valid ${source.chain} address`, { code: 'invalid_request', details: { field: 'refund_address' } })
    }

    const quote = (await priceSwap(ctx, route, amount)).amountOut
    if (minTarget !== undefined) checkBoundAgainstQuote(ctx, minTarget, quote, target)
    const bound = minTarget ?? defaultBound(ctx, quote)
    const head = await sourceAdapter.head().catch((err) => {
        ctx.log.error({ err, chain: source.chain }, 'chain unavailable at swap creation')
        throw networkUnavailable(route)
    })
    const index = await nextDepositIndex(ctx.pool)
    const depositAddress = await sourceAdapter.deriveAddress({ kind: 'deposit', index })
    const expiresAt = new Date(Date.now() + ctx.config.depositWindowSeconds * 1000)
    const routeData = {
        kind: route.kind,
        legs: route.legs,
        min_amount: formatUnits(route.minAmount, source.decimals),
        max_amount: formatUnits(route.maxAmount, source.decimals),
    }
    const swap = await inTransaction(ctx.pool, async (client) => {
        if (clientIp !== null) await checkPendingOfIp(ctx, client, clientIp)
        const created = await insertSwap(client, {
            id, sourceChain: source.chain, sourceToken: source.symbol, targetChain: target.chain, targetToken: target.symbol,
            sourceAmount: amount, targetWallet, refundAddress, routeKind: route.kind, route: routeData, feeBps: ctx.config.feeBps,
            quotedTargetAmount: quote, depositFamily: sourceAdapter.family, depositIndex: index, depositAddress,
            watchFromBlock: head.number, expiresAt, minTargetAmount: bound, clientIp,
        })
        await writeEvent(client, created, {
            event: 'deposit_wallet_created',
            data: { deposit_address: depositAddress, expires_at: expiresAt.toISOString() },
        })
        return created
    })
    return { swap, quote }
}

/**
 * Refuses a swap when its IP already has BRIDGE_MAX_PENDING_PER_IP swaps waiting for a deposit.
 * The count and the insert that follows are serialized per IP (a transaction-scoped advisory
 * lock), so parallel requests cannot pass the limit together. Keyed to the caller's IP only: a
 * target wallet or refund address is anyone's to name, and must not let one client block another.
 */
async function checkPendingOfIp(ctx: EngineContext, client: PoolClient, ip: string): Promise<void> {
    await client.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [LOCK_PENDING_IP, ip])
    const max = ctx.config.maxPendingPerIp
    if ((await pendingSwapsOfIp(client, ip)) >= max) {
        throw new HttpError(429,
            `this client already has ${max} swaps waiting for a deposit; deposit into one of them or let them expire before creating more`,
            { code: 'too_many_pending_swaps' })
    }
}
