import { Router } from 'express'
import { z } from 'zod'
import { ChainContext, setLiveCaching } from '../context'
import { notFound } from '../errors'
import { carried, FETCH_SIZE, paginate, paginateTransfers } from '../pagination'
import { addressParam as parseAddress, parseQuery, q } from '../params'
import { loadAddresses } from '../render/address'
import { sendJson } from '../json-response'
import { listBody, rendered, RenderedItem } from '../rendered-items'
import { renderToken, TOKEN_COLUMNS, TokenRow } from '../render/token'
import { TOKEN_TRANSFER_COLUMNS, TOKEN_TRANSFER_JOIN, TokenTransferRow, renderTokenTransfers } from '../render/token-transfer'
import { TOKEN_TYPES } from './transactions'

const MAX_INT = 2_147_483_647

interface Holder {
    holder: string
    value: string
}

/** The rendered items of a token's holders: reused from ctx.rendered, the others rendered after one query for their addresses. */
async function holderItems(ctx: ChainContext, token: string, holders: readonly Holder[]): Promise<RenderedItem[]> {
    const keyOf = (h: Holder) => `h${token}${h.holder}${h.value}`
    return ctx.rendered.items(holders, keyOf, async (missing) => {
        const address = await loadAddresses(ctx.db, missing.map((h) => h.holder))
        return new Map(missing.map((h) => [keyOf(h), rendered({ address: address(h.holder), value: h.value, token_id: null })]))
    })
}

const TokensQuery = z.object({
    q: q.text.optional(),
    type: q.list(TOKEN_TYPES).optional(),
    limit: q.int.refine((n) => n >= 1 && n <= 50, 'must be between 1 and 50').optional(),
    sort: z.enum(['fiat_value', 'holders_count', 'circulating_market_cap']).optional(),
    order: z.enum(['asc', 'desc']).optional(),
    contract_address_hash: q.address.optional(),
    holders_count: q.int.optional(),
    market_cap: z.string().optional(),
    name: q.text.optional(),
    is_name_null: q.bool.optional(),
    fiat_value: z.string().optional(),
    items_count: q.itemsCount.optional(),
})

const HoldersQuery = z.object({
    address_hash: q.address.optional(),
    value: q.uint.optional(),
    items_count: q.itemsCount.optional(),
})

const TransfersQuery = z.object({
    block_number: q.int.optional(),
    index: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

/** Escapes LIKE wildcards so a user's `%` or `_` matches itself. */
export function likePrefix(text: string): string {
    return `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

export function tokenOrder(asc = false): string {
    return `k.holder_count ${asc ? 'ASC' : 'DESC'}, k.name ASC NULLS LAST, k.id ASC`
}

/** Keyset condition for tokenOrder: the rows after the cursor token; pushes its parameters. */
export function tokenOrderAfter(params: unknown[], after: { holders: number; name: string | null; address: string }, asc = false): string {
    params.push(after.holders, after.name, after.address)
    const [h, n, a] = [params.length - 2, params.length - 1, params.length].map((i) => `$${i}`)
    const sameName = `(${n}::text IS NULL AND k.name IS NULL OR k.name = ${n}::text)`
    const laterName = `(${n}::text IS NOT NULL AND (k.name IS NULL OR k.name > ${n}::text))`
    return `(k.holder_count ${asc ? '>' : '<'} ${h} OR (k.holder_count = ${h} AND (${laterName} OR (${sameName} AND k.id > ${a}))))`
}

async function findToken(ctx: ChainContext, hash: string): Promise<TokenRow & { transfer_count: number } | undefined> {
    const { rows } = await ctx.db.query(`SELECT ${TOKEN_COLUMNS}, k.transfer_count FROM token k WHERE k.id = $1`, [hash])
    return rows[0]
}

export function tokensRoutes(router: Router, ctx: ChainContext): void {
    /**
     * The token registry in Blockscout's order: holder count descending, then name (unnamed last),
     * then address. There is no price feed, so the fiat and market-cap sorts order the same way;
     * their cursor keys are accepted and echoed null.
     */
    router.get('/tokens', async (req, res) => {
        const query = parseQuery(TokensQuery, req.query)
        const asc = query.sort === 'holders_count' && query.order === 'asc'
        const params: unknown[] = []
        const where: string[] = []
        const text = query.q?.trim()
        if (text) {
            params.push(likePrefix(text))
            where.push(`(lower(k.name) LIKE $${params.length} OR lower(k.symbol) LIKE $${params.length})`)
        }
        if (query.type && query.type.length > 0) {
            params.push(query.type)
            where.push(`k.type = ANY($${params.length})`)
        }
        if (query.holders_count !== undefined && query.contract_address_hash) {
            where.push(tokenOrderAfter(params, {
                holders: query.holders_count,
                name: query.is_name_null ? null : query.name ?? null,
                address: query.contract_address_hash,
            }, asc))
        }
        const pageSize = query.limit ?? 50
        const { rows } = await ctx.db.query<TokenRow>(
            `SELECT ${TOKEN_COLUMNS} FROM token k ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
              ORDER BY ${tokenOrder(asc)} LIMIT ${pageSize + 1}`,
            params
        )
        const { rows: shown, next } = paginate(rows, (k) => ({
            contract_address_hash: k.id,
            market_cap: null,
            holders_count: k.holder_count,
            name: k.name,
            is_name_null: k.name === null,
            fiat_value: null,
        }), pageSize, carried(req.query, ['q', 'type', 'sort', 'order', 'limit']))
        setLiveCaching(res)
        res.json({ items: shown.map(renderToken), next_page_params: next })
    })

    router.get('/tokens/:hash', async (req, res) => {
        const token = await findToken(ctx, parseAddress(req.params.hash))
        if (!token) throw notFound()
        setLiveCaching(res)
        res.json(renderToken(token))
    })

    router.get('/tokens/:hash/counters', async (req, res) => {
        const token = await findToken(ctx, parseAddress(req.params.hash))
        if (!token) throw notFound()
        setLiveCaching(res)
        res.json({ token_holders_count: String(Math.max(token.holder_count, 0)), transfers_count: String(token.transfer_count) })
    })

    router.get('/tokens/:hash/holders', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(HoldersQuery, req.query)
        const params: unknown[] = [hash]
        let cursor = ''
        if (query.value !== undefined && query.address_hash) {
            params.push(String(query.value), query.address_hash)
            cursor = 'AND (value, holder) < ($2::numeric, $3)'
        }
        // Ties on value are broken by address, descending too, so one backward scan of the
        // (token, value, holder) index serves any page.
        const { rows } = await ctx.db.query<Holder>(
            `SELECT holder, value FROM token_balance WHERE token = $1 AND value > 0 ${cursor}
              ORDER BY value DESC, holder DESC LIMIT ${FETCH_SIZE}`,
            params
        )
        // Balances exist only for known tokens, so only an empty page needs to ask whether this is one.
        if (rows.length === 0 && !(await findToken(ctx, hash))) throw notFound()
        const { rows: shown, next } = paginate(rows, (r) => ({ address_hash: r.holder, value: r.value }))
        setLiveCaching(res)
        sendJson(res, listBody(await holderItems(ctx, hash, shown), next))
    })

    router.get('/tokens/:hash/transfers', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(TransfersQuery, req.query)
        if (!(await findToken(ctx, hash))) throw notFound()
        const { rows } = await ctx.db.query<TokenTransferRow>(
            `SELECT ${TOKEN_TRANSFER_COLUMNS} FROM token_transfer tt ${TOKEN_TRANSFER_JOIN}
              WHERE tt.token = $1 AND (tt.block_number, tt.log_index) < ($2, $3)
              ORDER BY tt.block_number DESC, tt.log_index DESC LIMIT ${FETCH_SIZE}`,
            [hash, query.block_number ?? MAX_INT, query.block_number === undefined ? MAX_INT : query.index ?? MAX_INT]
        )
        const { rows: shown, next } = paginateTransfers(rows)
        setLiveCaching(res)
        res.json({ items: await renderTokenTransfers(ctx.db, shown), next_page_params: next })
    })

    // NFT instances are not indexed (ERC-721 transfers are; token ids per holder are not).
    router.get('/tokens/:hash/instances', async (req, res) => {
        if (!(await findToken(ctx, parseAddress(req.params.hash)))) throw notFound()
        res.json({ items: [], next_page_params: null })
    })
}
