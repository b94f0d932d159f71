import { z } from 'zod'
import { ApiDoc, DocumentedRouter } from '../../common/service/api-doc'
import { RateLimit } from '../../common/service/rate-limit'
import { formatUnits } from '../amounts'
import { EngineContext } from '../engine/context'
import { checkAmount, defaultBound, maxPayout, parseAmountField, priceSwap, routeFor } from '../engine/terms'
import { invalidInput } from './errors'
import { pairFields } from './pair'
import { poolLegFee } from './serialize'
import { swapFieldEnums } from './request-doc'
import { SwapQuote } from './schemas'

/**
 * GET /api/swap/quote: what a swap of an amount would pay now, with every fee, refused for exactly
 * the reasons creation would refuse it (engine/terms.ts) and reserving nothing: no deposit address,
 * no pending swap. Limited per client IP, since each quote asks the nodes.
 */

const QuoteQuery = z.strictObject({
    ...pairFields,
    source_token_amount: z.string().trim().regex(/^\d+(\.\d+)?$/, 'must be a positive decimal number').max(80, 'must be at most 80 characters'),
})

export function quoteRoutes(ctx: EngineContext, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api', 'Swaps')
    const { points, windowSeconds } = ctx.config.quoteLimit
    const limit = new RateLimit(ctx.pool, 'bridge_rate_limit', { name: 'quote', points, windowSeconds },
        (seconds) => `too many quotes; try again in ${seconds} seconds`)

    router.get('/swap/quote', {
        operationId: 'quoteSwap',
        summary: 'What a swap of an amount would pay now: the estimate, the rate, each fee and the bounds, reserving nothing',
        description: 'Refused for the same reasons as POST /api/swap with the same codes; creates no swap and no deposit address. ' +
            'Rate-limited per client IP (BRIDGE_QUOTE_LIMIT per BRIDGE_QUOTE_LIMIT_WINDOW_SECONDS). docs/bridge/lifecycle.md#quotes',
        query: QuoteQuery,
        enums: swapFieldEnums(ctx.config),
        responses: {
            200: { description: 'The quote', schema: SwapQuote },
            400: 'A parameter is missing or wrong (invalid_request, with field), the amount is out of the route\'s bounds (amount_out_of_range), ' +
                'the target vault cannot pay it (insufficient_reserves), or the pair cannot be swapped (no_route, no_liquidity, network_not_enabled, token_not_enabled)',
            429: 'Too many quotes from this IP (rate_limited)',
            503: 'A network does not answer (network_unavailable), the route needs a feature not configured here (not_configured), or a price it needs is stale (price_unavailable)',
        },
    }, limit.perIp(), async (req, res) => {
        const parsed = QuoteQuery.safeParse(req.query)
        if (!parsed.success) throw invalidInput(parsed.error)
        const route = routeFor(ctx, parsed.data)
        const { source, target } = route
        const amount = parseAmountField('source_token_amount', parsed.data.source_token_amount, source.decimals)
        // The network fees come from the minimum's own estimate. They are information: a node that cannot give them
        // now does not refuse the quote (checkAmount falls back to the registry's minimum) and they are shown as null.
        const { amount: minAmount, fees: network } = await checkAmount(ctx, route, amount)
        const quote = await priceSwap(ctx, route, amount)
        const inTarget = (v: bigint) => formatUnits(v, target.decimals)
        res.set('Cache-Control', 'no-store').json({
            source_chain: source.chain,
            source_token: source.symbol,
            target_chain: target.chain,
            target_token: target.symbol,
            source_token_amount: formatUnits(amount, source.decimals),
            estimated_target_amount: inTarget(quote.amountOut),
            rate: quote.rate,
            min_target_amount: inTarget(defaultBound(ctx, quote.amountOut)),
            max_target_amount: inTarget(maxPayout(ctx, quote)),
            fee_percent: (ctx.config.feeBps / 100).toFixed(2),
            fees: {
                bridge: { percent: (ctx.config.feeBps / 100).toFixed(2), amount: formatUnits(quote.fee, source.decimals), token: source.symbol },
                pools: quote.legs.filter((l) => l.type === 'pool').map(poolLegFee),
                provider: route.provider ? { name: ctx.provider?.name ?? 'simpleswap', included_in_rate: true } : null,
                network: network ? {
                    gather: { chain: source.chain, token: network.gather.coin.symbol, amount: formatUnits(network.gather.amount, network.gather.coin.decimals) },
                    payout: { chain: target.chain, token: network.payout.coin.symbol, amount: formatUnits(network.payout.amount, network.payout.coin.decimals) },
                    deducted: false,
                } : null,
            },
            min_amount: formatUnits(minAmount, source.decimals),
            max_amount: formatUnits(route.maxAmount, source.decimals),
            route: { kind: route.kind, legs: quote.legs },
            quoted_at: new Date().toISOString(),
        })
    })
    return router
}
