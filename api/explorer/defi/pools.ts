import { RequestHandler } from 'express'
import { formatUnits } from 'viem'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { PoolsByTokens, QuoteValuation } from '../../../common/quote-value'
import { pairsWithRecentVolume, PairRow } from '../../chain/queries/defi'
import { Db } from '../../chain/db'
import { ExplorerServices } from '../services'
import { parseInput, wholeNumber } from '../validate'
import { cachedAnswerHeaders, notModified, render, ResponseCache } from './cache'
import { compareDesc, DEFI_UNAVAILABLE, exactQuote, quoteToken, toNumber } from './quote'

/**
 * GET /defi/pools: every pair, busiest first (by volume_24h, then
 * swaps_24h, volume_total, address), POOLS_PAGE at a time from `offset`. Volumes are the indexer's figures in STABLE (docs/indexer.md, DeFi
 * volume rule), shown in whole STABLE units; volume_24h sums the pair's hourly buckets of the 24
 * hours up to now: the current hour and the 23 before it.
 */

interface Pair {
    row: PairRow
    token0: string
    token1: string
    reserve0: bigint
    reserve1: bigint
    volume24h: bigint
    volumeTotal: bigint
}

const HOUR_MS = 3_600_000

/** Pools per answer, and the default: every pool of a young chain fits one answer, as the API promises "all pools". */
export const POOLS_PAGE_MAX = 1000

/** The figures of a pool in the list and in its own answer: each number beside its exact decimal string. */
export const PoolFigures = z.object({
    liquidity_quote: z.number().meta({ description: 'The quote-side reserve doubled, in whole quote tokens' }),
    liquidity_quote_exact: exactQuote('liquidity_quote'),
    quote_symbol: z.string(),
    volume_24h: z.number().meta({ description: 'Per-hop volume of the current hour and the 23 before it' }),
    volume_24h_exact: exactQuote('volume_24h'),
    swaps_24h: z.int(),
    volume_total: z.number(),
    volume_total_exact: exactQuote('volume_total'),
    swaps_total: z.int(),
})

const PoolsQuery = z.object({
    limit: wholeNumber(1, POOLS_PAGE_MAX).optional().default(POOLS_PAGE_MAX),
    offset: wholeNumber(0, 999_999_999).optional().default(0),
})

export const poolsOperation: Operation = {
    operationId: 'listDefiPools',
    summary: 'Every pair, busiest first',
    description: 'Volumes and liquidity in whole STABLE units, each number beside its exact decimal string (`*_exact`); volume_24h and swaps_24h sum the current hour and the 23 before it. '
        + `At most \`limit\` pools (default and most: ${POOLS_PAGE_MAX}) from \`offset\`; \`next_offset\` is where the next page starts, null on the last. `
        + 'Cached for EXPLORER_DEFI_CACHE_SECONDS (15 s by default), with an ETag (If-None-Match gets a 304).',
    query: PoolsQuery,
    responses: {
        200: {
            description: 'The pairs',
            schema: z.looseObject({
                quote_symbol: z.string(),
                pools: z.array(z.looseObject({
                    address: z.string(),
                    name: z.string(),
                    reserve0: z.string().meta({ description: 'A decimal string, scaled by token0\'s decimals' }),
                    reserve1: z.string().meta({ description: 'A decimal string, scaled by token1\'s decimals' }),
                    ...PoolFigures.shape,
                })),
                total: z.int().meta({ description: 'Pools in all' }),
                next_offset: z.int().nullable().meta({ description: 'The offset of the next page; null on the last' }),
            }),
            headers: cachedAnswerHeaders,
        },
        304: notModified,
        400: `limit is not a whole number from 1 to ${POOLS_PAGE_MAX}, or offset is not a whole number (invalid_request)`,
        503: DEFI_UNAVAILABLE,
    },
}

/**
 * Every pool as the list shows it, busiest first, for the current 24-hour window: built once per
 * window and cache lifetime, and shared by the list and each pool's own answer, so the two agree.
 */
export function currentPools(s: ExplorerServices, db: Db, cache: ResponseCache): Promise<PoolList> {
    const since = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 23 * HOUR_MS
    return cache.value(`pools:${since}`, () => build(s, db, new Date(since)))
}

export type PoolList = Awaited<ReturnType<typeof build>>

/** One pool of a PoolList: its list item, its row and its exact liquidity. */
export type PoolEntry = PoolList['byAddress'] extends Map<string, infer E> ? E : never

export function pools(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const { limit, offset } = parseInput(PoolsQuery, req.query, 'query')
        // One list per window; pages are cut from it per request, so no choice of limit and offset adds a cache entry.
        const all = await currentPools(s, db, cache)
        const since = all.since.getTime()
        // The page almost every client asks for is rendered (and hashed) once per window, like the list.
        const rendered = offset === 0 && limit === POOLS_PAGE_MAX
            ? await cache.get(`pools-page:${since}`, async () => page(all, offset, limit))
            : render(page(all, offset, limit))
        cache.send(req, res, rendered)
    }
}

function page(all: PoolList, offset: number, limit: number) {
    const next = offset + limit < all.pools.length ? offset + limit : null
    return { quote_symbol: all.quote_symbol, pools: all.pools.slice(offset, offset + limit), total: all.pools.length, next_offset: next }
}

async function build(s: ExplorerServices, db: Db, since: Date) {
    const quote = await quoteToken(s, db)
    const rows = await pairsWithRecentVolume(db, since)
    const pairs: Pair[] = rows.map((row) => ({
        row,
        token0: row.token0,
        token1: row.token1,
        reserve0: BigInt(row.reserve0),
        reserve1: BigInt(row.reserve1),
        volume24h: BigInt(row.volume_24h),
        volumeTotal: BigInt(row.volume_total),
    }))
    const byTokens = new PoolsByTokens<Pair>()
    for (const p of pairs) byTokens.add(p.row.id, p)
    const valuation = new QuoteValuation(quote.address, quote.wnative, (token, base) => byTokens.pairOf(token, base))
    pairs.sort((a, b) =>
        compareDesc(a.volume24h, b.volume24h) ||
        b.row.swaps_24h - a.row.swaps_24h ||
        compareDesc(a.volumeTotal, b.volumeTotal) ||
        (a.row.id < b.row.id ? -1 : 1))
    const liquidities = pairs.map((p) => 2n * valuation.pairValue(p, p.reserve0, p.reserve1))
    const items = pairs.map((p, i) => {
        const liquidity = liquidities[i]
        return {
            address: p.row.id,
            name: `${p.row.symbol0 ?? p.token0}/${p.row.symbol1 ?? p.token1}`,
            reserve0: formatUnits(p.reserve0, p.row.decimals0 ?? 0),
            reserve1: formatUnits(p.reserve1, p.row.decimals1 ?? 0),
            liquidity_quote: toNumber(liquidity, quote.decimals),
            liquidity_quote_exact: formatUnits(liquidity, quote.decimals),
            quote_symbol: quote.symbol,
            volume_24h: toNumber(p.volume24h, quote.decimals),
            volume_24h_exact: formatUnits(p.volume24h, quote.decimals),
            swaps_24h: p.row.swaps_24h,
            volume_total: toNumber(p.volumeTotal, quote.decimals),
            volume_total_exact: formatUnits(p.volumeTotal, quote.decimals),
            swaps_total: p.row.swaps_total,
        }
    })
    return {
        since,
        quote,
        quote_symbol: quote.symbol,
        pools: items,
        /** Each pool's list item, the row it was made from (its tokens) and its exact liquidity in quote base units, by address. */
        byAddress: new Map(items.map((item, i) => [item.address, { item, row: pairs[i].row, liquidity: liquidities[i] }])),
    }
}
