import { RequestHandler } from 'express'
import { formatUnits } from 'viem'
import { z } from 'zod'
import { nativeContracts } from '../../../common/config'
import { ApiDoc, DocumentedRouter, Operation } from '../../../common/service/api-doc'
import { Db } from '../../chain/db'
import { notFound } from '../errors'
import { ExplorerServices } from '../services'
import { address, parseInput, wholeNumber } from '../validate'
import { cachedAnswerHeaders, notModified, render, ResponseCache } from './cache'
import { currentPools, PoolEntry, PoolList } from './pools'
import { compareDesc, DEFI_UNAVAILABLE, QuoteToken } from './quote'

/**
 * GET /api/v1/chains/{chainId}/pools and /pools/{hash}: the pools of GET /defi/pools (the same
 * cached build, so the two agree) in the shape of Blockscout's contract-info service, which the
 * Blockscout frontend's DEX pools pages read (NEXT_PUBLIC_CONTRACT_INFO_API_HOST). Most liquid
 * first; pages are cut by a keyset token (the last pool's liquidity and address), as that service
 * pages with `page_token`. docs/explorer-api.md#dex-pools-blockscouts-contract-info-shape
 */

export const POOLS_PAGE_SIZE_DEFAULT = 50
export const POOLS_PAGE_SIZE_MAX = 100
const QUERY_MAX = 100

/** Our AMM's swap fee in percent, as the frontend shows it after the pair (contracts/amm/AmmPair.sol: 998/1000). */
const AMM_FEE_PERCENT = '0.2'
const AMM_DEX = { id: 'amm', name: 'AMM' }

const ChainParams = z.object({
    chainId: z.string().regex(/^\d{1,20}$/, 'must be a chain id (a whole number)').meta({ description: 'This chain\'s id (CHAIN_ID); any other answers 404' }),
})

const PoolParams = ChainParams.extend({ hash: address.meta({ description: 'The pool (pair contract) address' }) })

/** Liquidity in quote base units and the pool's address: where the previous page ended. */
const PAGE_TOKEN = /^(\d{1,78}):(0x[0-9a-f]{40})$/

const PoolsQuery = z.object({
    page_size: wholeNumber(1, POOLS_PAGE_SIZE_MAX).optional().default(POOLS_PAGE_SIZE_DEFAULT)
        .meta({ description: `Pools per page (default ${POOLS_PAGE_SIZE_DEFAULT}, most ${POOLS_PAGE_SIZE_MAX})` }),
    page_token: z.string().regex(PAGE_TOKEN, 'must be a page_token of an earlier answer').optional()
        .meta({ description: 'next_page_params.page_token of the previous page' }),
    query: z.string().max(QUERY_MAX, `must be at most ${QUERY_MAX} characters`).optional()
        .meta({ description: 'A token symbol or name (or part of it), a pair as `BASE/QUOTE`, or a token or pool address' }),
})

const usd = z.null().meta({ description: 'Always null: this chain has no USD price feed (the frontend shows N/A)' })

/** The frontend's `Pool` (types/api/pools), and what this deployment adds after it. */
export const ContractInfoPool = z.looseObject({
    pool_id: z.string().meta({ description: 'The pair contract\'s address' }),
    is_contract: z.literal(true).meta({ description: 'Every pool is a pair contract (Uniswap V2 style)' }),
    chain_id: z.string(),
    base_token_address: z.string(),
    base_token_symbol: z.string().meta({ description: 'The token\'s symbol, or its address when it has none' }),
    base_token_icon_url: z.null(),
    quote_token_address: z.string().meta({ description: 'STABLE when the pool holds it, else WNATIVE when it holds it, else token1' }),
    quote_token_symbol: z.string(),
    quote_token_icon_url: z.null(),
    base_token_fully_diluted_valuation_usd: usd,
    base_token_market_cap_usd: usd,
    quote_token_fully_diluted_valuation_usd: usd,
    quote_token_market_cap_usd: usd,
    liquidity: z.string().meta({ description: 'Both reserves valued in whole STABLE (value_symbol), exactly: a decimal string; 0 when no pool prices them' }),
    dex: z.object({ id: z.string(), name: z.string() }).meta({ description: 'Our AMM is `amm`; a pool of another DEX_FACTORIES factory has that factory\'s address as id and name' }),
    fee: z.string().optional().meta({ description: 'Swap fee in percent: 0.2 for our AMM; absent for other factories' }),
    coin_gecko_terminal_url: z.literal('').meta({ description: 'Always empty: GeckoTerminal does not list this chain' }),
    base_token_reserve: z.string().meta({ description: 'Whole base tokens the pool holds' }),
    quote_token_reserve: z.string().meta({ description: 'Whole quote tokens the pool holds' }),
    volume_24h: z.string().meta({ description: 'Swap volume of the current hour and the 23 before it, per hop, in whole STABLE (value_symbol)' }),
    swaps_24h: z.int(),
    value_symbol: z.string().meta({ description: 'The token liquidity and volume_24h are counted in (STABLE)' }),
})

const PoolsPage = z.looseObject({
    items: z.array(ContractInfoPool),
    next_page_params: z.object({ page_token: z.string(), page_size: z.int() }).nullable()
        .meta({ description: 'The query of the next page (with the same `query`); null on the last' }),
})

const UNKNOWN_CHAIN = 'chainId is not this chain\'s id (not_found)'

export const listPoolsOperation: Operation = {
    operationId: 'listContractInfoPools',
    summary: 'DEX pools, most liquid first (Blockscout contract-info shape)',
    description: 'Every pool of the indexed DEX factories, by liquidity (then address), as Blockscout\'s contract-info service lists them for the frontend\'s DEX pools page. '
        + '`query` keeps the pools whose base or quote token matches it. Figures are those of GET /api/defi/pools, cached for EXPLORER_DEFI_CACHE_SECONDS, with an ETag.',
    params: ChainParams,
    query: PoolsQuery,
    responses: {
        200: { description: 'A page of pools', schema: PoolsPage, headers: cachedAnswerHeaders },
        304: notModified,
        400: `chainId is not a whole number, page_size is not a whole number from 1 to ${POOLS_PAGE_SIZE_MAX}, page_token is not one this API gave, or query is longer than ${QUERY_MAX} characters (invalid_request)`,
        404: UNKNOWN_CHAIN,
        503: DEFI_UNAVAILABLE,
    },
}

export const getPoolOperation: Operation = {
    operationId: 'getContractInfoPool',
    summary: 'One DEX pool (Blockscout contract-info shape)',
    description: 'The pool as an item of GET /api/v1/chains/{chainId}/pools.',
    params: PoolParams,
    responses: {
        200: { description: 'The pool', schema: ContractInfoPool, headers: cachedAnswerHeaders },
        304: notModified,
        400: 'chainId is not a whole number, or hash is not an address (invalid_request)',
        404: `${UNKNOWN_CHAIN}, or no pool has this address (not_found)`,
        503: DEFI_UNAVAILABLE,
    },
}

type ContractInfoPool = z.input<typeof ContractInfoPool>

interface Listed {
    pool: ContractInfoPool
    liquidity: bigint
    /** What `query` is matched against: lowercase. */
    base: TokenKeys
    quote: TokenKeys
}

interface TokenKeys { address: string; symbol: string; name: string }

/** The routes under /api/v1/chains, beside GET /defi/pools and sharing its cache. */
export function contractInfoRouter(s: ExplorerServices, db: Db, cache: ResponseCache, doc: ApiDoc): DocumentedRouter {
    return doc.router('/api/v1/chains', 'DEX pools (contract-info)')
        .get('/:chainId/pools', listPoolsOperation, listPools(s, db, cache))
        .get('/:chainId/pools/:hash', getPoolOperation, getPool(s, db, cache))
}

function listPools(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const { chainId } = parseInput(ChainParams, req.params, 'params')
        const { page_size: pageSize, page_token: pageToken, query } = parseInput(PoolsQuery, req.query, 'query')
        thisChain(s, chainId)
        const { pools } = await listedPools(s, db, cache)
        const matching = query?.trim() ? pools.filter(matcher(query.trim().toLowerCase())) : pools
        const after = pageToken ? afterToken(pageToken) : undefined
        const start = after ? matching.findIndex((p) => compareDesc(p.liquidity, after.liquidity) > 0 || (p.liquidity === after.liquidity && p.pool.pool_id > after.address)) : 0
        const rest = start < 0 ? [] : matching.slice(start)
        const page = rest.slice(0, pageSize)
        const last = page[page.length - 1]
        cache.send(req, res, render({
            items: page.map((p) => p.pool),
            next_page_params: rest.length > pageSize ? { page_token: `${last.liquidity}:${last.pool.pool_id}`, page_size: pageSize } : null,
        }))
    }
}

function getPool(s: ExplorerServices, db: Db, cache: ResponseCache): RequestHandler {
    return async (req, res) => {
        const { chainId, hash } = parseInput(PoolParams, req.params, 'params')
        thisChain(s, chainId)
        const found = (await listedPools(s, db, cache)).byId.get(hash)
        if (!found) throw notFound('no pool has this address')
        cache.send(req, res, render(found.pool))
    }
}

function thisChain(s: ExplorerServices, chainId: string): void {
    if (chainId !== String(s.ctx.env.CHAIN_ID)) throw notFound(`chain ${chainId} is not served here; this is chain ${s.ctx.env.CHAIN_ID}`)
}

/** A page_token the query schema has accepted (PAGE_TOKEN). */
function afterToken(token: string): { liquidity: bigint; address: string } {
    const [, liquidity, address] = PAGE_TOKEN.exec(token)!
    return { liquidity: BigInt(liquidity), address }
}

/** The pools of the current window in this shape, most liquid first, and by address: made once per window and cache lifetime. */
async function listedPools(s: ExplorerServices, db: Db, cache: ResponseCache): Promise<{ pools: Listed[]; byId: Map<string, Listed> }> {
    const all = await currentPools(s, db, cache)
    return cache.value(`contract-info-pools:${all.since.getTime()}`, async () => {
        const ours = nativeContracts(s.ctx.env, 'The DeFi routes').factory.toLowerCase()
        const pools = [...all.byAddress.values()].map((entry) => listedPool(entry, all, ours, String(s.ctx.env.CHAIN_ID)))
        pools.sort((a, b) => compareDesc(a.liquidity, b.liquidity) || (a.pool.pool_id < b.pool.pool_id ? -1 : 1))
        return { pools, byId: new Map(pools.map((p) => [p.pool.pool_id, p])) }
    })
}

function listedPool(entry: PoolEntry, all: PoolList, ourFactory: string, chainId: string): Listed {
    const { item, row, liquidity } = entry
    const tokens = [
        { address: row.token0, symbol: row.symbol0, name: row.name0, decimals: row.decimals0 ?? 0, reserve: BigInt(row.reserve0) },
        { address: row.token1, symbol: row.symbol1, name: row.name1, decimals: row.decimals1 ?? 0, reserve: BigInt(row.reserve1) },
    ]
    const quoteIndex = quoteSide(row.token0, row.token1, all.quote)
    const base = tokens[1 - quoteIndex]
    const quote = tokens[quoteIndex]
    const ours = row.factory === ourFactory
    const pool: ContractInfoPool = {
        pool_id: item.address,
        is_contract: true,
        chain_id: chainId,
        base_token_address: base.address,
        base_token_symbol: base.symbol ?? base.address,
        base_token_icon_url: null,
        quote_token_address: quote.address,
        quote_token_symbol: quote.symbol ?? quote.address,
        quote_token_icon_url: null,
        base_token_fully_diluted_valuation_usd: null,
        base_token_market_cap_usd: null,
        quote_token_fully_diluted_valuation_usd: null,
        quote_token_market_cap_usd: null,
        liquidity: item.liquidity_quote_exact,
        dex: ours ? AMM_DEX : { id: row.factory ?? 'unknown', name: row.factory ?? 'unknown' },
        ...(ours ? { fee: AMM_FEE_PERCENT } : {}),
        coin_gecko_terminal_url: '',
        base_token_reserve: formatUnits(base.reserve, base.decimals),
        quote_token_reserve: formatUnits(quote.reserve, quote.decimals),
        volume_24h: item.volume_24h_exact,
        swaps_24h: item.swaps_24h,
        value_symbol: all.quote.symbol,
    }
    const keys = (t: typeof base): TokenKeys => ({ address: t.address, symbol: (t.symbol ?? '').toLowerCase(), name: (t.name ?? '').toLowerCase() })
    return { pool, liquidity, base: keys(base), quote: keys(quote) }
}

/**
 * Which of a pool's tokens (0 or 1) is its quote token: the one our DeFi figures value in, STABLE,
 * else WNATIVE (valued through its STABLE pool), else token1, as Uniswap quotes token0 in token1.
 */
function quoteSide(token0: string, token1: string, quote: QuoteToken): 0 | 1 {
    for (const preferred of [quote.address, quote.wnative]) {
        if (token1 === preferred) return 1
        if (token0 === preferred) return 0
    }
    return 1
}

/**
 * `query` as the frontend's search box means it ("pair, token symbol or token address"): an
 * address is the pool's or a token's; `A/B` is a pair, each side part of a symbol, in either order;
 * any other text is part of a token's symbol or name.
 */
function matcher(q: string): (p: Listed) => boolean {
    if (/^0x[0-9a-f]{40}$/.test(q)) return (p) => p.pool.pool_id === q || p.base.address === q || p.quote.address === q
    const pair = q.split('/').map((side) => side.trim())
    if (pair.length === 2 && pair[0] && pair[1]) {
        const [a, b] = pair
        return (p) => (p.base.symbol.includes(a) && p.quote.symbol.includes(b)) || (p.base.symbol.includes(b) && p.quote.symbol.includes(a))
    }
    const text = (t: TokenKeys) => t.symbol.includes(q) || t.name.includes(q) || (q.startsWith('0x') && t.address.startsWith(q))
    return (p) => text(p.base) || text(p.quote) || (q.startsWith('0x') && p.pool.pool_id.startsWith(q))
}
