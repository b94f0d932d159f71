import { zeroAddress } from 'viem'
import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { CaptchaHeaders, csvOperation, CsvExports, HoldersCsvQuery } from '../csv/exports'
import { ChainContext, setLiveCaching } from '../context'
import { notFound } from '../errors'
import { tokenOr404 } from '../loaders'
import { carried, paginate, paginateByKeys, paginateTransfers } from '../pagination'
import { AddressPath, addressParam as parseAddress, parseQuery, q, TokenInstancePath, tokenIdParam } from '../params'
import { instanceHolders, instanceRelations, tokenInstance, tokenInstances } from '../queries/token-instances'
import { instanceTransfers, TOKEN_TYPES, tokenTransfers } from '../queries/token-transfers'
import { erc1155Holders, HolderRow, tokenHolders, tokenList } from '../queries/tokens'
import { related } from '../queries/related'
import { relatedAddresses, shownRelated } from '../render/address'
import { sendJson } from '../json-response'
import { keptItem, listBody, RenderedItem } from '../rendered-items'
import { renderToken } from '../render/token'
import { renderInstance } from '../render/token-instance'
import { renderTokenTransfers, tokenTransferRefs } from '../render/token-transfer'
import {
    chainOperation, pageOf, Token, TokenCounters, TokenHolder, TokenInstance, TokenInstanceTransfersCount, TokenTransfer,
} from '../schemas'

/** The rendered items of a token's holders: reused from ctx.caches.rendered, the others rendered after one query for their addresses. */
async function holderItems(ctx: ChainContext, token: string, holders: readonly HolderRow[]): Promise<RenderedItem[]> {
    const keyOf = (h: HolderRow) => `h${token}${h.holder}${h.value}${h.token_id}`
    return ctx.caches.rendered.items(holders, keyOf, async (missing) => {
        const loaded = await related(ctx.db, { addresses: missing.map((h) => h.holder) })
        const address = relatedAddresses(loaded)
        return new Map(missing.map((h) => [keyOf(h), keptItem({ address: address(h.holder), value: h.value, token_id: h.token_id } satisfies z.input<typeof TokenHolder>, [shownRelated(loaded, h.holder)])]))
    })
}

const TAG = 'tokens'

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
    token_id: q.uint.optional(),
    items_count: q.itemsCount.optional(),
})

const InstancesQuery = z.object({
    unique_token: q.uint.optional(),
    holder_address_hash: q.address.optional(),
    items_count: q.itemsCount.optional(),
})

const TransfersQuery = z.object({
    block_number: q.int.optional(),
    index: q.int.optional(),
    index_in_batch: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

export function tokensRoutes(router: DocumentedRouter, ctx: ChainContext, csv: CsvExports): void {
    /**
     * The token registry in Blockscout's order: holder count descending, then name (unnamed last),
     * then address. There is no price feed, so the fiat and market-cap sorts order the same way;
     * their cursor keys are accepted and echoed null.
     */
    router.get('/tokens', chainOperation(TAG, {
        operationId: 'listTokens',
        summary: 'Tokens, by holder count', query: TokensQuery,
    }, 'A page of tokens', pageOf(Token)), async (req, res) => {
        const query = parseQuery(TokensQuery, req.query)
        const asc = query.sort === 'holders_count' && query.order === 'asc'
        const after = query.holders_count !== undefined && query.contract_address_hash
            ? { holders: query.holders_count, name: query.is_name_null ? null : query.name ?? null, address: query.contract_address_hash }
            : undefined
        const pageSize = query.limit ?? 50
        const rows = await tokenList(ctx.db, { text: query.q?.trim(), types: query.type, after, asc, pageSize })
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

    router.get('/tokens/:hash', chainOperation(TAG, {
        operationId: 'getToken',
        summary: 'A token', params: AddressPath, notFound: 'token',
    }, 'The token', Token), async (req, res) => {
        const token = await tokenOr404(ctx.db, parseAddress(req.params.hash))
        setLiveCaching(res)
        res.json(renderToken(token))
    })

    router.get('/tokens/:hash/counters', chainOperation(TAG, {
        operationId: 'getTokenCounters',
        summary: "A token's holder and transfer counts", params: AddressPath, notFound: 'token',
    }, 'The counts', TokenCounters), async (req, res) => {
        const token = await tokenOr404(ctx.db, parseAddress(req.params.hash))
        setLiveCaching(res)
        res.json({ token_holders_count: String(Math.max(token.holder_count, 0)), transfers_count: String(token.transfer_count) } satisfies z.input<typeof TokenCounters>)
    })

    router.get('/tokens/:hash/holders', chainOperation(TAG, {
        operationId: 'listTokenHolders',
        summary: "A token's holders, largest balance first", params: AddressPath, query: HoldersQuery, notFound: 'token',
    }, 'A page of holders', pageOf(TokenHolder)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(HoldersQuery, req.query)
        const after = query.value !== undefined && query.address_hash ? { value: query.value, holder: query.address_hash } : undefined
        const token = await tokenOr404(ctx.db, hash)
        // An ERC-1155's holders are per token id, as Blockscout lists them; the cursor then carries the id.
        const rows = token.type === 'ERC-1155'
            ? await erc1155Holders(ctx.db, hash, after && { ...after, tokenId: query.token_id ?? 0n })
            : await tokenHolders(ctx.db, hash, after)
        const { rows: shown, next } = paginate(rows, (r) => ({ address_hash: r.holder, value: r.value, ...(r.token_id === null ? {} : { token_id: r.token_id }) }))
        setLiveCaching(res)
        sendJson(res, listBody(await holderItems(ctx, hash, shown), next))
    })

    router.get('/tokens/:hash/holders/csv', csvOperation(TAG, {
        operationId: 'exportTokenHoldersCsv',
        summary: "A token's holders as CSV (HolderAddress, Balance in whole tokens), largest balance first",
        description: 'At most CHAIN_API_CSV_EXPORT_MAX_ROWS rows; the period and filter keys the frontend sends are ignored (docs/chain-api.md#csv-export).',
        params: AddressPath, query: HoldersCsvQuery, headers: CaptchaHeaders, notFound: 'token',
    }, 'The holders as CSV'), csv.holders())

    router.get('/tokens/:hash/transfers', chainOperation(TAG, {
        operationId: 'listTokenTransfersOfToken',
        summary: "A token's transfers", params: AddressPath, query: TransfersQuery, notFound: 'token',
    }, 'A page of token transfers', pageOf(TokenTransfer)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(TransfersQuery, req.query)
        await tokenOr404(ctx.db, hash)
        const rows = await tokenTransfers(ctx.db, hash, query)
        const { rows: shown, next } = paginateTransfers(rows)
        setLiveCaching(res)
        res.json({ items: renderTokenTransfers(shown, await related(ctx.db, tokenTransferRefs(shown))), next_page_params: next })
    })

    router.get('/tokens/:hash/instances', chainOperation(TAG, {
        operationId: 'listTokenInstances',
        summary: "A token's NFTs, highest id first; with holder_address_hash, those the address holds",
        params: AddressPath, query: InstancesQuery, notFound: 'token',
    }, 'A page of token instances', pageOf(TokenInstance)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(InstancesQuery, req.query)
        const token = await tokenOr404(ctx.db, hash)
        const rows = await tokenInstances(ctx.db, token, { before: query.unique_token, holder: query.holder_address_hash })
        const { rows: shown, next } = paginateByKeys(rows, (r) => ({ unique_token: jsonInteger(r.token_id) }), carried(req.query, ['holder_address_hash']))
        const loaded = await instanceRelations(ctx.db, shown)
        setLiveCaching(res)
        res.json({ items: shown.map((r) => renderInstance(r, loaded)), next_page_params: next })
    })

    router.get('/tokens/:hash/instances/:id', chainOperation(TAG, {
        operationId: 'getTokenInstance',
        summary: 'One NFT of a token', params: TokenInstancePath, notFound: 'token or token id', badRequest: INVALID_ID,
    }, 'The token instance', TokenInstance), async (req, res) => {
        const { token, tokenId } = instancePath(req.params)
        const row = await tokenInstance(ctx.db, token, tokenId)
        if (!row) throw notFound()
        const loaded = await instanceRelations(ctx.db, [row])
        setLiveCaching(res)
        res.json(renderInstance(row, loaded))
    })

    router.get('/tokens/:hash/instances/:id/transfers', chainOperation(TAG, {
        operationId: 'listTokenInstanceTransfers',
        summary: "One NFT's transfers, newest first", params: TokenInstancePath, query: TransfersQuery, notFound: 'token', badRequest: INVALID_ID,
    }, 'A page of token transfers', pageOf(TokenTransfer)), async (req, res) => {
        const { token, tokenId } = instancePath(req.params)
        const query = parseQuery(TransfersQuery, req.query)
        await tokenOr404(ctx.db, token)
        const { rows: shown, next } = paginateTransfers(await instanceTransfers(ctx.db, token, tokenId, query))
        setLiveCaching(res)
        res.json({ items: renderTokenTransfers(shown, await related(ctx.db, tokenTransferRefs(shown))), next_page_params: next })
    })

    /** An ERC-721's owner (none once burnt), or an ERC-1155 id's holders by balance. */
    router.get('/tokens/:hash/instances/:id/holders', chainOperation(TAG, {
        operationId: 'listTokenInstanceHolders',
        summary: "One NFT's holders, largest balance first", params: TokenInstancePath, query: HoldersQuery, notFound: 'token', badRequest: INVALID_ID,
    }, 'A page of holders', pageOf(TokenHolder)), async (req, res) => {
        const { token: hash, tokenId } = instancePath(req.params)
        const query = parseQuery(HoldersQuery, req.query)
        const token = await tokenOr404(ctx.db, hash)
        let rows: { holder: string; value: string }[]
        if (token.type === 'ERC-1155') {
            const after = query.value !== undefined && query.address_hash ? { value: query.value, holder: query.address_hash } : undefined
            rows = await instanceHolders(ctx.db, hash, tokenId, after)
        } else {
            const owner = (await tokenInstance(ctx.db, hash, tokenId))?.owner
            rows = owner && owner !== zeroAddress && query.address_hash === undefined ? [{ holder: owner, value: '1' }] : []
        }
        const { rows: shown, next } = paginate(rows, (r) => ({ address_hash: r.holder, value: r.value }))
        const loaded = await related(ctx.db, { addresses: shown.map((r) => r.holder) })
        const address = relatedAddresses(loaded)
        setLiveCaching(res)
        res.json({
            items: shown.map((r) => ({ address: address(r.holder), value: r.value, token_id: String(tokenId) } satisfies z.input<typeof TokenHolder>)),
            next_page_params: next,
        })
    })

    router.get('/tokens/:hash/instances/:id/transfers-count', chainOperation(TAG, {
        operationId: 'getTokenInstanceTransfersCount',
        summary: 'How many transfers one NFT has had', params: TokenInstancePath, notFound: 'token', badRequest: INVALID_ID,
    }, 'The count', TokenInstanceTransfersCount), async (req, res) => {
        const { token, tokenId } = instancePath(req.params)
        const [row] = await Promise.all([tokenInstance(ctx.db, token, tokenId), tokenOr404(ctx.db, token)])
        setLiveCaching(res)
        res.json({ transfers_count: row?.transfer_count ?? 0 } satisfies z.input<typeof TokenInstanceTransfersCount>)
    })
}

const INVALID_ID = 'The token id is not a decimal uint256: `{"message": "Invalid parameter(s)"}`'

/** The token and token id of an instance route: the address first (422 when malformed), then the id (400). */
function instancePath(params: Record<string, unknown>): { token: string; tokenId: bigint } {
    const token = parseAddress(params.hash)
    return { token, tokenId: tokenIdParam(params.id) }
}

/** A token id as Blockscout's cursor writes it: a JSON number while it is exact, its decimal text beyond. */
function jsonInteger(id: string): number | string {
    const n = Number(id)
    return Number.isSafeInteger(n) ? n : id
}
