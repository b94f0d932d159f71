import { HttpError } from '../../common/service/http-error'
import { AmountError, formatUnits, parseUnits } from '../amounts'
import { PriceUnavailableError } from '../prices'
import { ProviderAmountOutOfRangeError, ProviderRequestError } from '../providers/errors'
import { ChainName, chainSpec, CHAINS } from '../registry'
import { EngineContext } from './context'
import { FEE_MULTIPLE, Minimum, minimumFor } from './minimum'
import { NoLiquidityError, Quote } from './rates'
import { PROVIDER_NOT_CONFIGURED, Route } from './routing'
import { vaultCapacity } from './vault'

/**
 * What a swap of an amount on a pair would be right now, checked as creation checks it: the route,
 * the amount against its bounds, the quote, and whether the target vault can pay it. Shared by
 * POST /api/swap (create.ts) and GET /api/swap/quote, so a quote is refused for exactly the
 * reasons a creation would be, and never reserves anything. docs/bridge/lifecycle.md
 */

export interface SwapPair {
    source_chain: string
    source_token: string
    target_chain: string
    target_token: string
}

const CHAIN_LIST = CHAINS.map((c) => c.name).join(', ')

/** A decimal string of whole tokens in base units; a 400 naming the field when it is not one. */
export function parseAmountField(field: string, value: string, decimals: number): bigint {
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

/** The usable route of a pair; 400 (503 for a feature not configured here) naming why there is none. */
export function routeFor(ctx: EngineContext, pair: SwapPair): Route {
    const sourceChain = checkAsset('source', pair.source_chain, pair.source_token)
    const targetChain = checkAsset('target', pair.target_chain, pair.target_token)
    if (sourceChain === targetChain && pair.source_token === pair.target_token) {
        throw new HttpError(400, 'no route for the pair: source and target are the same asset', { code: 'no_route' })
    }
    const route = ctx.routes.find(sourceChain, pair.source_token, targetChain, pair.target_token)
    if (!route) throw new HttpError(400, 'no route for the pair', { code: 'no_route' })
    if (route.disabled) {
        // A feature this deployment has not configured (the external provider) is a 503, not the caller's error.
        if (route.disabled.startsWith(PROVIDER_NOT_CONFIGURED)) throw new HttpError(503, route.disabled, { code: 'not_configured' })
        const code = route.disabled.startsWith('network not enabled') ? 'network_not_enabled' : route.disabled.startsWith('token not enabled') ? 'token_not_enabled' : 'no_route'
        throw new HttpError(400, route.disabled, { code })
    }
    return route
}

/** The least deposit the route takes now, with the network fees behind it (minimumFor); a 400 with the bounds when `amount` is outside them. */
export async function checkAmount(ctx: EngineContext, route: Route, amount: bigint): Promise<Minimum> {
    const source = route.source
    const minimum = await minimumFor(ctx, route, amount).catch(priceUnavailable)
    const minAmount = minimum.amount
    if (amount < minAmount || amount > route.maxAmount) {
        throw new HttpError(400,
            `source_token_amount: must be from ${formatUnits(minAmount, source.decimals)} to ${formatUnits(route.maxAmount, source.decimals)} ${source.symbol}` +
            (minAmount > route.minAmount ? ` (the minimum is ${FEE_MULTIPLE}× the network fees of the swap right now)` : ''),
            { code: 'amount_out_of_range', details: { field: 'source_token_amount' } })
    }
    return minimum
}

/**
 * The quote for `amount`, refused as creation refuses it: no liquidity, the provider's bounds, and
 * a target vault that could not pay the swap's most (maxPayout) beside what it has promised.
 */
export async function priceSwap(ctx: EngineContext, route: Route, amount: bigint): Promise<Quote> {
    let quote: Quote
    try {
        quote = await ctx.rates.quote(route, amount)
        await checkCapacity(ctx, route, quote)
    } catch (err) {
        if (err instanceof HttpError) throw err
        if (err instanceof PriceUnavailableError) priceUnavailable(err)
        if (err instanceof NoLiquidityError) throw new HttpError(400, err.message, { code: 'no_liquidity' })
        if (err instanceof ProviderAmountOutOfRangeError) {
            throw new HttpError(400, `source_token_amount: the external swap provider takes ${providerBounds(err, route)}`, { code: 'amount_out_of_range', details: { field: 'source_token_amount' } })
        }
        if (err instanceof ProviderRequestError) throw new HttpError(400, `no route for the pair: the external swap provider refused it (${err.message})`, { code: 'no_route' })
        ctx.log.error({ err, source: route.source.chain, target: route.target.chain }, 'network unavailable while pricing a swap')
        throw networkUnavailable(route)
    }
    return quote
}

export function networkUnavailable(route: Route): HttpError {
    return new HttpError(503, `the ${route.source.chain} or ${route.target.chain} network cannot be reached right now; try again shortly`, { code: 'network_unavailable' })
}

/**
 * The most a swap quoted at `quote` may pay: the quote plus BRIDGE_MAX_SLIPPAGE_PERCENT, as the
 * rate may move that far in the user's favour before it is locked.
 */
export function maxPayout(ctx: EngineContext, quote: Quote): bigint {
    return (quote.amountOut * BigInt(10_000 + ctx.config.maxSlippageBps)) / 10_000n
}

/**
 * Refuses a swap its target vault could not pay. Routes whose payout is not the vault's stock are
 * not limited here: the provider pays an asset it serves itself, and a pool trade on the target
 * chain buys the payout (its pool's liquidity is in the quote).
 */
async function checkCapacity(ctx: EngineContext, route: Route, quote: Quote): Promise<void> {
    if (route.provider?.side === 'target') return
    const last = quote.legs[quote.legs.length - 1]
    if (last?.type === 'pool' && last.chain === route.target.chain && last.token_out === route.target.symbol) return
    const most = maxPayout(ctx, quote)
    const { available } = await vaultCapacity(ctx, route.target)
    if (most <= available) return
    const { symbol, decimals, chain } = route.target
    throw new HttpError(400,
        `source_token_amount: the bridge's ${symbol} vault on ${chain} can pay at most ${formatUnits(available, decimals)} ${symbol} right now, ` +
        `and this swap may pay up to ${formatUnits(most, decimals)} ${symbol}; swap a smaller amount`,
        { code: 'insufficient_reserves', details: { field: 'source_token_amount' } })
}

/** The default rate bound: the quote less BRIDGE_MAX_SLIPPAGE_PERCENT, rounded down so it never asks more than the slippage allows. */
export function defaultBound(ctx: EngineContext, quote: bigint): bigint {
    return (quote * BigInt(10_000 - ctx.config.maxSlippageBps)) / 10_000n
}

/**
 * A min_target_amount far above the quote can only fail the swap at the rate lock, after the
 * user paid and gas was spent on the deposit: refused now, naming the field and the quote.
 */
export function checkBoundAgainstQuote(ctx: EngineContext, minTarget: bigint, quote: bigint, target: { symbol: string; decimals: number }): void {
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
 * The provider's bounds in the caller's terms. They are in the provider leg's input asset, which is
 * the source token when the leg comes first; otherwise (X → BTC) they are stated in that asset.
 */
function providerBounds(err: ProviderAmountOutOfRangeError, route: Route): string {
    const asset = route.provider!.sell
    const max = err.max === undefined ? '' : ` to ${formatUnits(err.max, asset.decimals)}`
    const text = `${formatUnits(err.min, asset.decimals)}${max} ${asset.symbol}`
    return route.provider!.side === 'source' ? text : `${text} on ${asset.chain} after conversion`
}
