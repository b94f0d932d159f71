import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setLiveCaching } from '../context'
import { checksum, isoTimestamp } from '../format'
import { isAddress, isFullHash, parseQuery, q } from '../params'
import {
    addressMatch, blockExists, blockHashOf, blocksByHash, blocksByNumber, contractsByText, tokensByText, transactionExists,
    transactionsByHash,
} from '../queries/search'
import { TokenCursor, TokenRow } from '../queries/tokens'
import { chainOperation, pageOf, SearchAddress, SearchItem, SearchRedirect, SearchToken } from '../schemas'

/**
 * Blockscout's search: the term is classified (block number, address, 32-byte hash, text) and
 * matched against blocks, transactions, addresses, tokens (case-insensitive prefix of name or
 * symbol) and verified contracts (prefix of name). Items take Blockscout's shapes, keyed by type.
 */

const TAG = 'search'

const SearchQuery = z.object({
    q: q.text,
    next_page_params_type: z.string().optional(),
    'token[holders_count]': q.int.optional(),
    'token[name]': q.text.optional(),
    'token[address_hash]': q.address.optional(),
    items_count: q.itemsCount.optional(),
})

const QuickQuery = z.object({ q: q.text })

const PAGE = 50

function addressItem(type: 'address' | 'contract', hash: string, name: string | null, isContract: boolean, verified: boolean): z.input<typeof SearchAddress> {
    const address = checksum(hash)
    return {
        type,
        name,
        address_hash: address,
        url: `/address/${address}`,
        is_smart_contract_verified: verified,
        ens_info: null,
        certified: false,
        priority: 0,
        reputation: 'ok',
        is_smart_contract_address: isContract,
    }
}

function tokenItem(row: Pick<TokenRow, 'id' | 'type' | 'name' | 'symbol' | 'total_supply'>, verified: boolean): z.input<typeof SearchToken> {
    const address = checksum(row.id)
    return {
        type: 'token',
        name: row.name,
        symbol: row.symbol,
        address_hash: address,
        token_url: `/token/${address}`,
        address_url: `/address/${address}`,
        icon_url: null,
        token_type: row.type,
        is_smart_contract_verified: verified,
        exchange_rate: null,
        total_supply: row.total_supply,
        circulating_market_cap: null,
        is_verified_via_admin_panel: false,
        certified: false,
        priority: 2,
        reputation: 'ok',
        is_smart_contract_address: true,
    }
}

async function exactMatches(ctx: ChainContext, term: string): Promise<z.input<typeof SearchItem>[]> {
    const items: z.input<typeof SearchItem>[] = []
    if (/^\d+$/.test(term) && term.length <= 10 && Number(term) <= 2_147_483_647) {
        for (const b of await blocksByNumber(ctx.db, Number(term))) {
            items.push({ type: 'block', block_number: b.number, block_hash: b.id, url: `/block/${b.id}`, timestamp: isoTimestamp(b.timestamp), block_type: 'block', priority: 3 })
        }
    } else if (isAddress(term)) {
        const hash = term.toLowerCase()
        const row = await addressMatch(ctx.db, hash)
        if (row) {
            if (row.token_id) items.push(tokenItem({ ...row, id: row.token_id, type: row.type! }, row.verified_name !== null))
            items.push(addressItem(row.verified_name ? 'contract' : 'address', hash, row.verified_name, row.is_contract, row.verified_name !== null))
        }
    } else if (isFullHash(term)) {
        const hash = term.toLowerCase()
        const [txs, blocks] = await Promise.all([transactionsByHash(ctx.db, hash), blocksByHash(ctx.db, hash)])
        for (const t of txs) items.push({ type: 'transaction', transaction_hash: t.id, url: `/tx/${t.id}`, timestamp: isoTimestamp(t.timestamp), priority: 3 })
        for (const b of blocks) {
            items.push({ type: 'block', block_number: b.number, block_hash: b.id, url: `/block/${b.id}`, timestamp: isoTimestamp(b.timestamp), block_type: 'block', priority: 3 })
        }
    }
    return items
}

async function textMatches(ctx: ChainContext, term: string, cursor: TokenCursor | undefined, limit: number) {
    const tokens = await tokensByText(ctx.db, term, cursor, limit)
    // Verified contracts by name: few, shown on the first page only.
    const contracts = cursor ? [] : await contractsByText(ctx.db, term, limit)
    return { tokens, contracts }
}

async function search(ctx: ChainContext, raw: string, cursor: TokenCursor | undefined, limit: number) {
    const term = raw.trim()
    const exact = cursor ? [] : await exactMatches(ctx, term)
    const numeric = /^\d+$/.test(term)
    if (term.length < 3 || (!numeric && (isAddress(term) || isFullHash(term)))) return { items: exact, next: null }
    const { tokens, contracts } = await textMatches(ctx, term, cursor, limit)
    const shown = tokens.slice(0, limit)
    const items = [
        ...exact,
        ...shown.map((t) => tokenItem(t, t.verified)),
        ...contracts.map((c) => addressItem('contract', c.id, c.name, true, true)),
    ]
    const last = shown[shown.length - 1]
    const next = tokens.length > limit && last
        ? {
            next_page_params_type: 'search',
            q: term,
            'token[holders_count]': last.holder_count,
            'token[name]': last.name,
            'token[address_hash]': last.id,
            items_count: limit,
        }
        : null
    return { items, next }
}

export function searchRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    router.get('/search', chainOperation(TAG, {
        operationId: 'search',
        summary: 'Blocks, transactions, addresses, tokens and contracts matching a term', query: SearchQuery,
    }, 'A page of results', pageOf(SearchItem)), async (req, res) => {
        const query = parseQuery(SearchQuery, req.query)
        const holders = query['token[holders_count]']
        const address = query['token[address_hash]']
        // A null name comes back as the string "null" (the frontend echoes the cursor verbatim).
        const name = query['token[name]']
        const cursor = holders !== undefined && address ? { holders, address, name: name === undefined || name === 'null' ? null : name } : undefined
        const { items, next } = await search(ctx, query.q, cursor, PAGE)
        setLiveCaching(res)
        res.json({ items, next_page_params: next })
    })

    router.get('/search/quick', chainOperation(TAG, {
        operationId: 'quickSearch',
        summary: 'The first results for a term, unpaginated', query: QuickQuery,
    }, 'The results', z.array(SearchItem)), async (req, res) => {
        const query = parseQuery(QuickQuery, req.query)
        setLiveCaching(res)
        if (query.q.trim().length < 3 && !/^\d+$/.test(query.q.trim())) return void res.json([])
        res.json((await search(ctx, query.q, undefined, PAGE)).items.slice(0, PAGE))
    })

    router.get('/search/check-redirect', chainOperation(TAG, {
        operationId: 'checkSearchRedirect',
        summary: 'Whether a term names one object to go to', query: QuickQuery,
    }, 'Where to go, if anywhere', SearchRedirect), async (req, res) => {
        const term = parseQuery(QuickQuery, req.query).q.trim()
        setLiveCaching(res)
        type Redirect = z.input<typeof SearchRedirect>
        const none: Redirect = { redirect: false, type: null, parameter: null }
        if (isAddress(term)) return void res.json({ redirect: true, type: 'address', parameter: checksum(term.toLowerCase()) } satisfies Redirect)
        if (/^\d+$/.test(term) && term.length <= 10 && Number(term) <= 2_147_483_647) {
            const block = await blockHashOf(ctx.db, Number(term))
            return void res.json(block ? { redirect: true, type: 'block', parameter: block } satisfies Redirect : none)
        }
        if (isFullHash(term)) {
            const hash = term.toLowerCase()
            const [tx, block] = await Promise.all([transactionExists(ctx.db, hash), blockExists(ctx.db, hash)])
            if (tx) return void res.json({ redirect: true, type: 'transaction', parameter: hash } satisfies Redirect)
            if (block) return void res.json({ redirect: true, type: 'block', parameter: hash } satisfies Redirect)
        }
        res.json(none)
    })
}
