import { RequestHandler } from 'express'
import { formatUnits, parseUnits } from 'viem'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { PRICE_DECIMALS, quoteValue } from '../../../common/amm-prices'
import { Db } from '../../chain/db'
import { defiTokens, DefiTokenRow, tokenBuckets, TokenBucketRow } from '../../chain/queries/defi'
import { notFound } from '../errors'
import { ExplorerServices } from '../services'
import { address, parseInput } from '../validate'
import { cachedAnswerHeaders, notModified, render, ResponseCache } from './cache'
import { bucketStarts, DEFAULT_BUCKETS, filled, MAX_BUCKETS, RangeQuery } from './history'
import { compareDesc, DEFI_UNAVAILABLE, exactQuote, QuoteToken, quoteToken, toNumber } from './quote'

/**
 * GET /defi/tokens, /defi/tokens/{address} and its daily history: the tokens of the pools, with
 * the indexer's price (docs/indexer.md#defi-price-rule), liquidity and volume. Whole-token amounts
 * are exact decimal strings; quote amounts are numbers beside their exact strings (`*_exact`).
 */

const price = z.string().nullable().meta({ description: 'Whole quote tokens per whole token, exact to 18 decimal places; null when the price rule cannot price it' })

export const DefiToken = z.looseObject({
    address: z.string(),
    symbol: z.string().nullable(),
    name: z.string().nullable(),
    decimals: z.int().nullable(),
    price_quote: price,
    quote_symbol: z.string(),
    liquidity: z.string().meta({ description: 'Whole tokens held by all pools' }),
    liquidity_quote: z.number().meta({ description: 'liquidity at price_quote, in whole quote tokens (0 when unpriced)' }),
    liquidity_quote_exact: exactQuote('liquidity_quote'),
    volume: z.string().meta({ description: 'Whole tokens swapped, in plus out, all time, counted per hop' }),
    volume_quote: z.number().meta({ description: 'The quote value of the swaps it took part in, all time, per hop' }),
    volume_quote_exact: exactQuote('volume_quote'),
    swaps: z.int().meta({ description: 'Swaps (hops) it took part in' }),
    pools: z.int().meta({ description: 'Pools holding it' }),
})

const TokenParams = z.object({ address })

const TokenHistoryQuery = RangeQuery

const TokenDay = z.looseObject({
    date: z.iso.date(),
    volume: z.string().meta({ description: 'Whole tokens swapped that day, per hop' }),
    volume_quote: z.number(),
    volume_quote_exact: exactQuote('volume_quote'),
    swaps: z.int(),
    open: price, high: price, low: price, close: price,
    liquidity: z.string().meta({ description: 'Whole tokens in all pools at the end of the day' }),
    liquidity_quote: z.number(),
    liquidity_quote_exact: exactQuote('liquidity_quote'),
})

export const tokensOperation: Operation = {
    operationId: 'listDefiTokens',
    summary: 'Every token of a pool, by all-time volume',
    description: 'The tokens that some pool holds, by volume_quote (then liquidity_quote, then address). Cached for EXPLORER_DEFI_CACHE_SECONDS, with an ETag.',
    responses: {
        200: { description: 'The tokens', schema: z.looseObject({ quote_symbol: z.string(), tokens: z.array(DefiToken) }), headers: cachedAnswerHeaders },
        304: notModified,
        503: DEFI_UNAVAILABLE,
    },
}

export const tokenOperation: Operation = {
    operationId: 'getDefiToken',
    summary: 'One token of the pools',
    description: 'As an item of GET /defi/tokens.',
    params: TokenParams,
    responses: {
        200: { description: 'The token', schema: DefiToken, headers: cachedAnswerHeaders },
        304: notModified,
        400: 'address is not an address (invalid_request)',
        404: 'No pool holds this token (not_found)',
        503: DEFI_UNAVAILABLE,
    },
}

export const tokenHistoryOperation: Operation = {
    operationId: 'getDefiTokenHistory',
    summary: 'A token\'s daily volume, price candle and liquidity',
    description: `UTC days from \`from\` to \`to\` (default: the ${DEFAULT_BUCKETS.day} days ending today), oldest first, every day present: `
        + 'a day without trading has volume 0, and its price and liquidity are those the day before ended with (its candle flat at that close). '
        + `At most ${MAX_BUCKETS.day} days. The default range is cached for EXPLORER_DEFI_CACHE_SECONDS, with an ETag.`,
    params: TokenParams,
    query: TokenHistoryQuery,
    responses: {
        200: {
            description: 'The days',
            schema: z.looseObject({ address: z.string(), quote_symbol: z.string(), days: z.array(TokenDay) }),
            headers: cachedAnswerHeaders,
        },
        304: notModified,
        400: `address is not an address, from or to is not a date, from is after to, or the range is longer than ${MAX_BUCKETS.day} days (invalid_request)`,
        404: 'No pool holds this token (not_found)',
        503: DEFI_UNAVAILABLE,
    },
}

export type DefiTokenItem = z.input<typeof DefiToken>

/** Every token of a pool as GET /defi/tokens lists it, built once per cache lifetime. */
export function currentTokens(s: ExplorerServices, db: Db, cache: ResponseCache): Promise<{ quote: QuoteToken; items: DefiTokenItem[]; byAddress: Map<string, DefiTokenItem> }> {
    return cache.value('tokens', async () => {
        const quote = await quoteToken(s, db)
        const rows = await defiTokens(db)
        const made = rows.map((row) => ({ row, item: tokenItem(row, quote) }))
        made.sort((a, b) =>
            compareDesc(BigInt(a.row.trade_volume_quote), BigInt(b.row.trade_volume_quote)) ||
            compareDesc(liquidityOf(a.row, quote), liquidityOf(b.row, quote)) ||
            (a.row.id < b.row.id ? -1 : 1))
        const items = made.map((m) => m.item)
        return { quote, items, byAddress: new Map(items.map((item) => [item.address, item])) }
    })
}

export function tokens(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const rendered = await cache.get('tokens-list', async () => {
            const { quote, items } = await currentTokens(s, db, cache)
            return { quote_symbol: quote.symbol, tokens: items }
        })
        cache.send(req, res, rendered)
    }
}

export function token(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const { address } = parseInput(TokenParams, req.params, 'params')
        const item = (await currentTokens(s, db, cache)).byAddress.get(address)
        if (!item) throw notFound('no pool holds this token')
        cache.send(req, res, render(item))
    }
}

export function tokenHistory(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const { address } = parseInput(TokenParams, req.params, 'params')
        const range = parseInput(TokenHistoryQuery, req.query, 'query')
        const starts = bucketStarts('day', range)
        const { quote, byAddress } = await currentTokens(s, db, cache)
        const item = byAddress.get(address)
        // Known tokens only, so the cache holds at most one default range per token of a pool.
        if (!item) throw notFound('no pool holds this token')
        const build = async () => {
            const { before, rows } = await tokenBuckets(db, address, starts[0], starts[starts.length - 1])
            const days = filled(starts, before, rows, (row, previous, start) => tokenDay(row, previous, start, item.decimals ?? 0, quote))
            return { address, quote_symbol: quote.symbol, days }
        }
        const explicit = range.from !== undefined || range.to !== undefined
        cache.send(req, res, explicit ? render(await build()) : await cache.get(`token-history:${address}:${starts[0].toISOString()}`, build))
    }
}

function tokenItem(row: DefiTokenRow, quote: QuoteToken): DefiTokenItem {
    const decimals = row.decimals ?? 0
    const liquidityQuote = liquidityOf(row, quote)
    const volumeQuote = BigInt(row.trade_volume_quote)
    return {
        address: row.id,
        symbol: row.symbol,
        name: row.name,
        decimals: row.decimals,
        price_quote: row.derived_quote === null ? null : exactPrice(row.derived_quote),
        quote_symbol: quote.symbol,
        liquidity: formatUnits(BigInt(row.total_liquidity), decimals),
        liquidity_quote: toNumber(liquidityQuote, quote.decimals),
        liquidity_quote_exact: formatUnits(liquidityQuote, quote.decimals),
        volume: formatUnits(BigInt(row.trade_volume), decimals),
        volume_quote: toNumber(volumeQuote, quote.decimals),
        volume_quote_exact: formatUnits(volumeQuote, quote.decimals),
        swaps: row.swap_count,
        pools: row.pools,
    }
}

function liquidityOf(row: DefiTokenRow, quote: QuoteToken): bigint {
    return quoteValue(BigInt(row.total_liquidity), row.decimals ?? 0, fixedPrice(row.derived_quote), quote.decimals)
}

/** A day's item: its row, else no trading and what the day before ended with. */
function tokenDay(row: TokenBucketRow | undefined, previous: TokenBucketRow | undefined, start: Date, decimals: number, quote: QuoteToken) {
    const close = row?.price_close ?? previous?.price_close ?? null
    const liquidity = BigInt(row?.total_liquidity ?? previous?.total_liquidity ?? '0')
    const liquidityQuote = BigInt(row?.liquidity_quote ?? previous?.liquidity_quote ?? '0')
    const volumeQuote = BigInt(row?.volume_quote ?? '0')
    return {
        date: start.toISOString().slice(0, 10),
        volume: formatUnits(BigInt(row?.volume ?? '0'), decimals),
        volume_quote: toNumber(volumeQuote, quote.decimals),
        volume_quote_exact: formatUnits(volumeQuote, quote.decimals),
        swaps: row?.swaps ?? 0,
        ...candle(row, close),
        liquidity: formatUnits(liquidity, decimals),
        liquidity_quote: toNumber(liquidityQuote, quote.decimals),
        liquidity_quote_exact: formatUnits(liquidityQuote, quote.decimals),
    }
}

/** A bucket's price candle; one without a row is flat at the close it inherits. */
export function candle(row: { price_open: string | null; price_high: string | null; price_low: string | null; price_close: string | null } | undefined, close: string | null) {
    if (!row) return { open: exactPrice(close), high: exactPrice(close), low: exactPrice(close), close: exactPrice(close) }
    return { open: exactPrice(row.price_open), high: exactPrice(row.price_high), low: exactPrice(row.price_low), close: exactPrice(row.price_close) }
}

/** A price column (numeric text) in its one answer form: exact, trailing zeros trimmed. */
export function exactPrice(text: string | null): string | null {
    const fixed = fixedPrice(text)
    return fixed === null ? null : formatUnits(fixed, PRICE_DECIMALS)
}

/** A price column as the indexer's fixed-point bigint (PRICE_DECIMALS places; the columns hold no more). */
function fixedPrice(text: string | null): bigint | null {
    return text === null ? null : parseUnits(text, PRICE_DECIMALS)
}
