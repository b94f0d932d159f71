import { z } from 'zod'
import { ApiDoc, DocumentedRouter } from '../../../common/service/api-doc'
import { RateLimit } from '../../../common/service/rate-limit'
import { bestExactIn, bestExactOut, label, Route } from '../amm'
import { amountFields, parsePositiveAmount } from '../amounts'
import { amountSchema, CHAIN_ANSWERS, checksummedAddress, inData, rateLimitHeaders, TOKEN_ANSWERS, tokenInAnswer } from '../api-doc'
import { TokenMeta } from '../chain'
import { badRequest, parseInput, sendData } from '../http'
import { PlatformServices } from '../services'
import { amount, NATIVE, TokenRef, tokenRef } from '../validation'

/**
 * GET /api/swap/quote: what a swap would pay (or cost) now along the route the execute routes
 * would take, its price impact and the least it pays at a slippage, signing nothing. Public (the
 * pools are public) and limited per client IP, since each quote reads every candidate route's pairs.
 */

const Query = z.object({
    token_in: tokenRef,
    token_out: tokenRef,
    amount_in: amount.optional().meta({ description: 'Exact input, whole tokens: the quote answers amount_out (give this or amount_out)' }),
    amount_out: amount.optional().meta({ description: 'Exact output, whole tokens: the quote answers amount_in (give this or amount_in)' }),
    slippage_percent: z.string().regex(/^\d{1,2}(\.\d{1,2})?$/, 'must be a percent below 100 with at most two decimals, e.g. 0.5').optional()
        .meta({ description: 'The tolerance for amount_out_min (exact input) or amount_in_max (exact output); default 0.5' }),
})

const Quote = z.looseObject({
    token_in: tokenInAnswer,
    token_out: tokenInAnswer,
    path: z.array(checksummedAddress),
    fee_on_transfer: z.boolean(),
    ...amountSchema('amount_in'),
    ...amountSchema('amount_out'),
    ...amountSchema('amount_out_min'),
    ...amountSchema('amount_in_max'),
    slippage_percent: z.string(),
    price_impact_percent: z.string().meta({ description: 'How far the quote is below the pools\' mid price, in percent, the pools\' 0.2% fees and any token transfer fees included' }),
})

const DEFAULT_SLIPPAGE_BPS = 50n
const BPS = 10_000n

export function swapQuoteRoutes(s: PlatformServices, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api/swap', 'Swaps')
    const limit = new RateLimit(s.pool, 'platform_rate_limit',
        { name: 'quote', points: s.env.PLATFORM_QUOTE_PER_IP, windowSeconds: s.env.PLATFORM_QUOTE_WINDOW_SECONDS },
        (seconds) => `Too many quotes from this address; retry in ${seconds} seconds`)
    router.get('/quote', {
        operationId: 'quoteSwap',
        summary: 'Quote a swap: amount out for an exact amount in (or in for an exact out), the route, price impact and the bound at a slippage; signs nothing',
        description: 'Public; limited per client IP (PLATFORM_QUOTE_PER_IP per PLATFORM_QUOTE_WINDOW_SECONDS). The execute routes take the same route when the pools have not moved. docs/platform-api.md',
        query: Query,
        responses: {
            200: { description: 'The quote', schema: inData(Quote), headers: rateLimitHeaders },
            400: 'Invalid input (give exactly one of amount_in and amount_out), the same token twice, or no pool route',
            429: 'Too many quotes from this client (rate_limited)',
            ...TOKEN_ANSWERS,
            ...CHAIN_ANSWERS,
        },
    }, limit.perIp(), async (req, res) => {
        const q = parseInput(Query, req.query)
        if ((q.amount_in === undefined) === (q.amount_out === undefined)) throw badRequest('Invalid input: give exactly one of amount_in (exact input) and amount_out (exact output)')
        const slippage = q.slippage_percent === undefined ? DEFAULT_SLIPPAGE_BPS : BigInt(Math.round(Number(q.slippage_percent) * 100))
        const [tokenIn, tokenOut] = await tokens(s, q.token_in, q.token_out)
        let route: Route
        let amountIn: bigint
        let amountOut: bigint
        if (q.amount_in !== undefined) {
            amountIn = parsePositiveAmount(q.amount_in, tokenIn.decimals, 'amount_in')
            const best = await bestExactIn(s.chain, tokenIn, tokenOut, amountIn)
            route = best.route
            amountOut = best.amountOut
        } else {
            amountOut = parsePositiveAmount(q.amount_out!, tokenOut.decimals, 'amount_out')
            const best = await bestExactOut(s.chain, tokenIn, tokenOut, amountOut)
            route = best.route
            amountIn = best.amountIn
        }
        sendData(res, {
            token_in: tokenAnswer(tokenIn, q.token_in),
            token_out: tokenAnswer(tokenOut, q.token_out),
            path: route.path,
            fee_on_transfer: route.feeOnTransfer,
            ...amountFields('amount_in', amountIn, tokenIn.decimals),
            ...amountFields('amount_out', amountOut, tokenOut.decimals),
            // Rounded so that the bound never promises more than the slippage allows.
            ...amountFields('amount_out_min', (amountOut * (BPS - slippage)) / BPS, tokenOut.decimals),
            ...amountFields('amount_in_max', (amountIn * (BPS + slippage) + BPS - 1n) / BPS, tokenIn.decimals),
            slippage_percent: (Number(slippage) / 100).toFixed(2),
            price_impact_percent: priceImpact(route, amountIn, amountOut),
        })
    })
    return router
}

async function tokens(s: PlatformServices, tokenIn: TokenRef, tokenOut: TokenRef): Promise<[TokenMeta, TokenMeta]> {
    const { wnative } = await s.chain.ready()
    const native: TokenMeta = { address: wnative, name: NATIVE, symbol: NATIVE, decimals: 18 }
    const metas = await Promise.all([tokenIn, tokenOut].map((t) => (t === NATIVE ? native : s.chain.tokenMeta(t))))
    if (metas[0].address.toLowerCase() === metas[1].address.toLowerCase()) {
        throw badRequest(`token_in and token_out are the same asset (${label(metas[0])}); give two different tokens`)
    }
    return [metas[0], metas[1]]
}

/** As the execute routes answer it: the token's address, or NATIVE for the coin. */
function tokenAnswer(meta: TokenMeta, ref: TokenRef): string {
    return ref === NATIVE ? NATIVE : meta.address
}

/**
 * 1 − amountOut / (amountIn at the pools' mid prices), in percent with two decimals: the mid price
 * is each hop's reserve ratio, before any fee, so the figure includes the pools' fees, the tokens'
 * transfer fees and the move the trade itself makes.
 */
function priceImpact(route: Route, amountIn: bigint, amountOut: bigint): string {
    let num = amountIn
    let den = 1n
    for (const [reserveIn, reserveOut] of route.reserves) {
        num *= reserveOut
        den *= reserveIn
    }
    if (num === 0n) return '0.00'
    // (mid − out) / mid, in hundredths of a percent, rounded up so the figure never understates it.
    const shortfall = num - amountOut * den
    if (shortfall <= 0n) return '0.00'
    const hundredths = (shortfall * 10_000n + num - 1n) / num
    return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`
}
