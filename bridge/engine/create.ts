import { randomUUID } from 'crypto'
import { PoolClient } from 'pg'
import { HttpError } from '../../common/service/http-error'
import { AmountError, formatUnits, parseUnits } from '../amounts'
import { inTransaction, LOCK_PENDING_IP } from '../db'
import { ChainName, chainSpec, CHAINS } from '../registry'
import { EngineContext } from './context'
import { mapSwap, Swap, writeEvent } from './lifecycle'
import { FEE_MULTIPLE, minimumFor } from './minimum'
import { NoLiquidityError } from './rates'
import { PriceUnavailableError } from '../prices'
import { ProviderAmountOutOfRangeError, ProviderRequestError } from '../providers/errors'
import { PROVIDER_NOT_CONFIGURED, Route } from './routing'

/**
 * Swap creation (POST /api/swap): every field checked against the registry, the route table, the
 * route's bounds and the chains' address rules, then a fresh deposit address derived from the
 * next never-used index, and the swap written with its first event (deposit_wallet_created).
 * The swap carries its rate bound: the caller's min_target_amount, or the quote less
 * BRIDGE_MAX_SLIPPAGE_PERCENT; the rate lock fails the swap rather than pay less.
 */

export interface CreateSwapInput {
    source_chain: string
    source_token: string
    target_chain: string
    target_token: string
    /** Whole tokens, as a plain decimal string. */
    source_token_amount: string
    target_wallet: string
    refund_address?: string | null
    /** Whole target tokens: the least payout the swap accepts at the rate lock. */
    min_target_amount?: string
}

const CHAIN_LIST = CHAINS.map((c) => c.name).join(', ')

/** A decimal string of whole tokens in base units; a 400 naming the field when it is not one. */
function parseAmountField(field: string, value: string, decimals: number): bigint {
    let units: bigint
    try {
        units = parseUnits(value, decimals)
    } catch (err) {
        if (err instanceof AmountError) throw new HttpError(400, `${field}: ${err.message}`, { code: 'invalid_request', details: { field } })
        throw err
    }
    if (units <= 0n) throw new HttpError(400, `${field}: must be greater than 0`, { code: 'invalid_request', details: { field } })
    return units
}

function checkAsset(side: 'source' | 'target', chain: string, token: string): ChainName {
    const spec = chainSpec(chain)
    if (!spec) throw new HttpError(400, `${side}_chain: must be one of ${CHAIN_LIST} (exactly as GET /api/tokens lists them)`, { code: 'invalid_request', details: { field: `${side}_chain` } })
    if (!spec.tokens.some((t) => t.symbol === token)) {
        throw new HttpError(400, `${side}_token: must be one of ${spec.tokens.map((t) => t.symbol).join(', ')} on ${chain}`, { code: 'invalid_request', details: { field: `${side}_token` } })
    }
    return spec.name
}

/**
 * clientIp: who asks (the HTTP layer's view, as its rate limiter counts). Each waiting swap is an
 * address the monitor reads every cycle, so one IP may hold at most BRIDGE_MAX_PENDING_PER_IP.
 */
export async function createSwap(ctx: EngineContext, input: CreateSwapInput, clientIp: string | null = null): Promise<{ swap: Swap; quote?: bigint }> {
    const sourceChain = checkAsset('source', input.source_chain, input.source_token)
    const targetChain = checkAsset('target', input.target_chain, input.target_token)
    if (sourceChain === targetChain && input.source_token === input.target_token) {
        throw new HttpError(400, 'no route for the pair: source and target are the same asset', { code: 'no_route' })
    }
    const route = ctx.routes.find(sourceChain, input.source_token, targetChain, input.target_token)
    if (!route) throw new HttpError(400, 'no route for the pair', { code: 'no_route' })
    if (route.disabled) {
        // A feature this deployment has not configured (the external provider) is a 503, not the caller's error.
        if (route.disabled.startsWith(PROVIDER_NOT_CONFIGURED)) throw new HttpError(503, route.disabled, { code: 'not_configured' })
        const code = route.disabled.startsWith('network not enabled') ? 'network_not_enabled' : route.disabled.startsWith('token not enabled') ? 'token_not_enabled' : 'no_route'
        throw new HttpError(400, route.disabled, { code })
    }
    const source = route.source
    const amount = parseAmountField('source_token_amount', input.source_token_amount, source.decimals)
    const minTarget = input.min_target_amount === undefined ? undefined : parseAmountField('min_target_amount', input.min_target_amount, route.target.decimals)
    const sourceAdapter = ctx.adapter(sourceChain)
    const targetAdapter = ctx.adapter(targetChain)
    const minAmount = await minimumFor(ctx, route, amount).catch(priceUnavailable)
    if (amount < minAmount || amount > route.maxAmount) {
        throw new HttpError(400,
            `source_token_amount: must be from ${formatUnits(minAmount, source.decimals)} to ${formatUnits(route.maxAmount, source.decimals)} ${source.symbol}` +
            (minAmount > route.minAmount ? ` (the minimum is ${FEE_MULTIPLE}× the network fees of the swap right now)` : ''),
            { code: 'amount_out_of_range', details: { field: 'source_token_amount' } })
    }
    const targetWallet = targetAdapter.normalizeAddress(input.target_wallet)
    if (!targetWallet) throw new HttpError(400, `target_wallet: not a valid ${targetChain} address`, { code: 'invalid_request', details: { field: 'target_wallet' } })
    let refundAddress: string | null = null
    if (input.refund_address !== undefined && input.refund_address !== null) {
        refundAddress = sourceAdapter.normalizeAddress(input.refund_address) ?? null
        if (!refundAddress) throw new HttpError(400, `refund_address: not a valid ${sourceChain} address`, { code: 'invalid_request', details: { field: 'refund_address' } })
    }

    let quote: bigint | undefined
    let head
    try {
        quote = (await ctx.rates.quote(route, amount)).amountOut
        head = await sourceAdapter.head()
    } catch (err) {
        if (err instanceof PriceUnavailableError) priceUnavailable(err)
        if (err instanceof NoLiquidityError) throw new HttpError(400, err.message, { code: 'no_liquidity' })
        if (err instanceof ProviderAmountOutOfRangeError) {
            throw new HttpError(400, `source_token_amount: the external swap provider takes ${providerBounds(err, route)}`, { code: 'amount_out_of_range', details: { field: 'source_token_amount' } })
        }
        if (err instanceof ProviderRequestError) throw new HttpError(400, `no route for the pair: the external swap provider refused it (${err.message})`, { code: 'no_route' })
        ctx.log.error({ err, chain: sourceChain }, 'chain unavailable at swap creation')
        throw new HttpError(503, `the ${sourceChain} or ${targetChain} network cannot be reached right now; try again shortly`, { code: 'network_unavailable' })
    }

    if (minTarget !== undefined && quote !== undefined) checkBoundAgainstQuote(ctx, minTarget, quote, route.target)
    // Rounded down: the default bound never asks more than the slippage allows.
    const bound = minTarget ?? (quote === undefined ? null : (quote * BigInt(10_000 - ctx.config.maxSlippageBps)) / 10_000n)
    const id = randomUUID()
    const { rows: seq } = await ctx.pool.query(`SELECT nextval('bridge_deposit_index_seq')::bigint AS index`)
    const index = Number(seq[0].index)
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
        const { rows } = await client.query(
            `INSERT INTO bridge_swap (id, status, source_chain, source_token, target_chain, target_token, source_amount, target_wallet,
                refund_address, route_kind, route, fee_bps, quoted_target_amount, deposit_family, deposit_index, deposit_address,
                watch_from_block, expires_at, min_target_amount, client_ip)
             VALUES ($1, 'pending_deposit', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING *`,
            [id, sourceChain, source.symbol, targetChain, route.target.symbol, amount.toString(), targetWallet, refundAddress,
                route.kind, JSON.stringify(routeData), ctx.config.feeBps, quote?.toString() ?? null, sourceAdapter.family, index,
                depositAddress, head.number.toString(), expiresAt, bound?.toString() ?? null, clientIp]
        )
        const created = mapSwap(rows[0])
        await writeEvent(client, created, {
            event: 'deposit_wallet_created',
            data: { deposit_address: depositAddress, expires_at: expiresAt.toISOString() },
        })
        return created
    })
    return { swap, quote }
}

/**
 * A min_target_amount far above the quote can only fail the swap at the rate lock, after the
 * user paid and gas was spent on the deposit: refused now, naming the field and the quote.
 */
function checkBoundAgainstQuote(ctx: EngineContext, minTarget: bigint, quote: bigint, target: { symbol: string; decimals: number }): void {
    const highest = (quote * BigInt(10_000 + ctx.config.minTargetAboveQuoteBps)) / 10_000n
    if (minTarget <= highest) return
    const percent = (ctx.config.minTargetAboveQuoteBps / 100).toFixed(2)
    throw new HttpError(400,
        `min_target_amount: ${formatUnits(minTarget, target.decimals)} ${target.symbol} is more than ${percent}% above the current quote of ` +
        `${formatUnits(quote, target.decimals)} ${target.symbol}; the swap could only fail at the rate lock (at most ${formatUnits(highest, target.decimals)})`,
        { code: 'invalid_request', details: { field: 'min_target_amount' } })
}

/** A price the route needs is stale or missing: the deployment's fault for now, not the caller's (503). */
function priceUnavailable(err: unknown): never {
    if (err instanceof PriceUnavailableError) {
        throw new HttpError(503, `no current price for the pair: ${err.message}; try again shortly`, { code: 'price_unavailable' })
    }
    throw err
}

/**
 * Refuses a swap when its IP already has BRIDGE_MAX_PENDING_PER_IP swaps waiting for a deposit.
 * The count and the insert that follows are serialized per IP (a transaction-scoped advisory
 * lock), so parallel requests cannot pass the limit together. Keyed to the caller's IP only: a
 * target wallet or refund address is anyone's to name, and must not let one client block another.
 */
async function checkPendingOfIp(ctx: EngineContext, client: PoolClient, ip: string): Promise<void> {
    await client.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [LOCK_PENDING_IP, ip])
    const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM bridge_swap WHERE client_ip = $1 AND status = 'pending_deposit' AND expires_at > now()`,
        [ip]
    )
    const max = ctx.config.maxPendingPerIp
    if (rows[0].n >= max) {
        throw new HttpError(429,
            `this client already has ${max} swaps waiting for a deposit; deposit into one of them or let them expire before creating more`,
            { code: 'too_many_pending_swaps' })
    }
}

/**
 * The provider's bounds in the caller's terms. They are in the provider leg's input asset, which is
 * the source token when the leg comes first; otherwise (X → BTC) they are stated in that asset.
 */
function providerBounds(err: ProviderAmountOutOfRangeError, route: Route): string {
    const asset = route.provider!.sell
    const max = err.max === undefined ? '' : ` to ${formatUnits(err.max, asset.decimals)}`
    const text = `${formatUnits(err.min, asset.decimals)}${max} ${asset.symbol}`
    return route.provider!.side === 'source' ? text : `${text} on ${asset.chain} after conversion`
}
