import { RequestHandler } from 'express'
import { formatUnits } from 'viem'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { Db } from '../../chain/db'
import { PairRow, poolBuckets, PoolBucketRow, poolDetail } from '../../chain/queries/defi'
import { notFound } from '../errors'
import { ExplorerServices } from '../services'
import { address, parseInput } from '../validate'
import { cachedAnswerHeaders, notModified, render, ResponseCache } from './cache'
import { bucketStarts, DEFAULT_BUCKETS, filled, MAX_BUCKETS, RangeQuery } from './history'
import { currentPools, PoolFigures } from './pools'
import { DEFI_UNAVAILABLE, QuoteToken, toNumber } from './quote'
import { candle, currentTokens, DefiToken, DefiTokenItem, exactPrice } from './tokens'

/**
 * GET /defi/pools/{address} and its hourly or daily history. The pool's figures are its item of
 * GET /defi/pools (the same build, so the two agree), with its tokens as GET /defi/tokens shows
 * them and what only a pool's own page needs.
 */

/** LP tokens' decimals (contracts/amm/AmmLiquidityToken.sol). */
const LP_DECIMALS = 18

const price = z.string().nullable().meta({ description: 'Exact to 18 decimal places; null while a reserve is 0' })

const Pool = z.looseObject({
    address: z.string(),
    name: z.string(),
    token0: DefiToken,
    token1: DefiToken,
    reserve0: z.string().meta({ description: 'Whole token0' }),
    reserve1: z.string().meta({ description: 'Whole token1' }),
    token0_price: price.meta({ description: 'Whole token0 per whole token1 (Uniswap\'s token0Price); null while reserve1 is 0' }),
    token1_price: price.meta({ description: 'Whole token1 per whole token0; null while reserve0 is 0' }),
    ...PoolFigures.shape,
    volume_token0: z.string().meta({ description: 'Whole token0 swapped, in plus out, all time' }),
    volume_token1: z.string().meta({ description: 'Whole token1 swapped, in plus out, all time' }),
    lp_total_supply: z.string().meta({ description: 'Whole LP tokens in existence' }),
    created_block: z.int(),
    created_transaction: z.string(),
})

const PoolParams = z.object({ address })

const PoolHistoryQuery = RangeQuery.extend({
    interval: z.enum(['hour', 'day']).optional().default('day').meta({ description: 'Bucket size (default day)' }),
})

const PoolBucket = z.looseObject({
    start: z.iso.datetime().meta({ description: 'The bucket\'s first moment (UTC)' }),
    volume: z.number().meta({ description: 'Per-hop volume in whole quote tokens' }),
    volume_exact: z.string(),
    swaps: z.int(),
    volume_token0: z.string(),
    volume_token1: z.string(),
    reserve0: z.string().meta({ description: 'Whole token0 at the end of the bucket' }),
    reserve1: z.string(),
    liquidity_quote: z.number().meta({ description: 'The reserves\' quote value at the end of the bucket, as the indexer valued them then' }),
    liquidity_quote_exact: z.string(),
    open: price, high: price, low: price, close: price,
})

export const poolOperation: Operation = {
    operationId: 'getDefiPool',
    summary: 'One pool',
    description: 'Its item of GET /defi/pools, with its two tokens as GET /defi/tokens shows them, its prices, per-token volumes, LP supply and creation.',
    params: PoolParams,
    responses: {
        200: { description: 'The pool', schema: Pool, headers: cachedAnswerHeaders },
        304: notModified,
        400: 'address is not an address (invalid_request)',
        404: 'No pool has this address (not_found)',
        503: DEFI_UNAVAILABLE,
    },
}

export const poolHistoryOperation: Operation = {
    operationId: 'getDefiPoolHistory',
    summary: 'A pool\'s hourly or daily volume, reserves and price candle',
    description: `UTC hours or days from \`from\` to \`to\` (default: the last ${DEFAULT_BUCKETS.hour} hours, or the last ${DEFAULT_BUCKETS.day} days), oldest first, every bucket present: `
        + 'one without events has volume 0 and the reserves, liquidity and price the one before ended with (its candle flat at that close). '
        + `The candle is token0_price (whole token0 per whole token1) over the pool's events in the bucket. At most ${MAX_BUCKETS.hour} hours or ${MAX_BUCKETS.day} days. `
        + 'The default range is cached for EXPLORER_DEFI_CACHE_SECONDS, with an ETag.',
    params: PoolParams,
    query: PoolHistoryQuery,
    responses: {
        200: {
            description: 'The buckets',
            schema: z.looseObject({ address: z.string(), interval: z.enum(['hour', 'day']), quote_symbol: z.string(), buckets: z.array(PoolBucket) }),
            headers: cachedAnswerHeaders,
        },
        304: notModified,
        400: `address is not an address, interval is not hour or day, from or to is not a date, from is after to, or more than ${MAX_BUCKETS.hour} hours or ${MAX_BUCKETS.day} days (invalid_request)`,
        404: 'No pool has this address (not_found)',
        503: DEFI_UNAVAILABLE,
    },
}

export function pool(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const { address } = parseInput(PoolParams, req.params, 'params')
        const all = await currentPools(s, db, cache)
        const listed = all.byAddress.get(address)
        if (!listed) throw notFound('no pool has this address')
        const rendered = await cache.get(`pool:${address}:${all.since.getTime()}`, async () => {
            const [detail, tokens] = await Promise.all([poolDetail(db, address), currentTokens(s, db, cache)])
            // The pool list and the detail are read apart: a pool in one is in the other (pools are never removed).
            if (!detail) throw notFound('no pool has this address')
            return {
                ...listed.item,
                token0: tokenOf(tokens.byAddress, listed.row.token0),
                token1: tokenOf(tokens.byAddress, listed.row.token1),
                token0_price: exactPrice(detail.token0_price),
                token1_price: exactPrice(detail.token1_price),
                volume_token0: formatUnits(BigInt(detail.volume_token0), listed.row.decimals0 ?? 0),
                volume_token1: formatUnits(BigInt(detail.volume_token1), listed.row.decimals1 ?? 0),
                lp_total_supply: formatUnits(BigInt(detail.total_supply), LP_DECIMALS),
                created_block: detail.created_block,
                created_transaction: detail.created_transaction,
            }
        })
        cache.send(req, res, rendered)
    }
}

export function poolHistory(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const { address } = parseInput(PoolParams, req.params, 'params')
        const { interval, ...range } = parseInput(PoolHistoryQuery, req.query, 'query')
        const starts = bucketStarts(interval, range)
        const all = await currentPools(s, db, cache)
        const listed = all.byAddress.get(address)
        // Known pools only, so the cache holds at most one default range per pool and interval.
        if (!listed) throw notFound('no pool has this address')
        const build = async () => {
            const { before, rows } = await poolBuckets(db, address, interval, starts[0], starts[starts.length - 1])
            const buckets = filled(starts, before, rows, (row, previous, start) => poolBucket(row, previous, start, listed.row, all.quote))
            return { address, interval, quote_symbol: all.quote.symbol, buckets }
        }
        const explicit = range.from !== undefined || range.to !== undefined
        cache.send(req, res, explicit ? render(await build()) : await cache.get(`pool-history:${address}:${interval}:${starts[0].toISOString()}`, build))
    }
}

/** The token as GET /defi/tokens shows it; every pool's tokens are there (the same indexed pairs). */
function tokenOf(tokens: Map<string, DefiTokenItem>, address: string): DefiTokenItem {
    const token = tokens.get(address)
    if (!token) throw new Error(`token ${address} of a pool is missing from the tokens of the pools`)
    return token
}

/** A bucket's item: its row, else no events and what the bucket before ended with. */
function poolBucket(row: PoolBucketRow | undefined, previous: PoolBucketRow | undefined, start: Date, pair: PairRow, quote: QuoteToken) {
    const last = row ?? previous
    const volume = BigInt(row?.volume_quote ?? '0')
    const liquidity = BigInt(last?.reserve_quote ?? '0')
    return {
        start: start.toISOString(),
        volume: toNumber(volume, quote.decimals),
        volume_exact: formatUnits(volume, quote.decimals),
        swaps: row?.swaps ?? 0,
        volume_token0: formatUnits(BigInt(row?.volume_token0 ?? '0'), pair.decimals0 ?? 0),
        volume_token1: formatUnits(BigInt(row?.volume_token1 ?? '0'), pair.decimals1 ?? 0),
        reserve0: formatUnits(BigInt(last?.reserve0 ?? '0'), pair.decimals0 ?? 0),
        reserve1: formatUnits(BigInt(last?.reserve1 ?? '0'), pair.decimals1 ?? 0),
        liquidity_quote: toNumber(liquidity, quote.decimals),
        liquidity_quote_exact: formatUnits(liquidity, quote.decimals),
        ...candle(row, previous?.price_close ?? null),
    }
}
