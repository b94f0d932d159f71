import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ADDRESS_EXPORTS } from '../csv/address-exports'
import { addressCsvOperation, CsvExports } from '../csv/exports'
import { ChainContext, setLiveCaching } from '../context'
import { carried, FETCH_SIZE, paginate, paginateByKeys, paginateTransfers } from '../pagination'
import { AddressPath, addressParam as parseAddress, parseQuery, q } from '../params'
import { addressById, addressFlags, addressTabCounts, topAccounts } from '../queries/addresses'
import { minedBlockCount, minedBlockKeys } from '../queries/blocks'
import { countAddressFrames } from '../queries/internal-transactions'
import { addressLogs } from '../queries/logs'
import { addressTransfers, TOKEN_TYPES } from '../queries/token-transfers'
import { addressTokenBalances, TokenBalanceRow } from '../queries/tokens'
import { addressCollections, addressNfts, AddressNftRow, collectionPreviews, instanceRelations, InstanceRelations } from '../queries/token-instances'
import { ADDRESS_TRANSACTION_SORTS, addressTransactionKeys } from '../queries/transactions'
import { proxyOf } from '../queries/proxies'
import { addressParam } from '../render/address'
import { creationStatus } from '../render/smart-contract'
import { related } from '../queries/related'
import { renderInstance } from '../render/token-instance'
import { coinSupply } from '../queries/stats'
import { logRefs, renderLogs } from '../render/log'
import { renderToken } from '../render/token'
import { renderTokenTransfers, tokenTransferRefs } from '../render/token-transfer'
import { isFirstPage } from '../head-views'
import { sendJson } from '../json-response'
import {
    AddressCounters, AddressDetails, AddressNft, AddressNftCollection, AddressTabsCounters, Block, chainOperation, EmptyPage, Log, pageOf, TokenBalance, TokenTransfer,
    TopAddressesPage, Transaction,
} from '../schemas'
import { blockPage } from './blocks'
import { transactionPage } from './transactions'

const TAG = 'addresses'

const TransactionsQuery = z.object({
    filter: z.enum(['to', 'from']).optional(),
    sort: z.enum(ADDRESS_TRANSACTION_SORTS).optional(),
    order: z.enum(['asc', 'desc']).optional(),
    block_number: q.int.optional(),
    index: q.int.optional(),
    inserted_at: q.timestamp.optional(),
    hash: q.hash.optional(),
    value: q.uint.optional(),
    fee: q.uint.optional(),
    items_count: q.itemsCount.optional(),
})

const TokenTransfersQuery = z.object({
    type: q.list(TOKEN_TYPES).optional(),
    filter: z.enum(['to', 'from']).optional(),
    token: q.address.optional(),
    block_number: q.int.optional(),
    index: q.int.optional(),
    index_in_batch: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

const LogsQuery = z.object({
    topic: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/').transform((s) => s.toLowerCase()).optional(),
    block_number: q.int.optional(),
    index: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

const TokensQuery = z.object({
    type: q.list(TOKEN_TYPES).optional(),
    fiat_value: z.string().optional(),
    value: q.uint.optional(),
    id: q.address.optional(),
    items_count: q.itemsCount.optional(),
})

const CursorQuery = z.object({ block_number: q.int.optional(), items_count: q.itemsCount.optional() })

/** The NFT standards an address's NFT tabs list. */
const NFT_TYPES = ['ERC-721', 'ERC-1155', 'ERC-404'] as const

const NftQuery = z.object({
    type: q.list(NFT_TYPES).optional(),
    token_contract_address_hash: q.address.optional(),
    token_id: q.uint.optional(),
    token_type: z.enum(NFT_TYPES).optional(),
    items_count: q.itemsCount.optional(),
})

const NftCollectionsQuery = z.object({
    type: q.list(NFT_TYPES).optional(),
    token_contract_address_hash: q.address.optional(),
    token_type: z.enum(NFT_TYPES).optional(),
    items_count: q.itemsCount.optional(),
})

/** Instances shown with each collection, as Blockscout's collections tab previews them. */
const COLLECTION_PREVIEW = 9

/** The standards asked for; none given (or an empty list) means every NFT standard. */
function nftTypes(types: readonly string[] | undefined): readonly string[] {
    return types && types.length > 0 ? types : NFT_TYPES
}

/** An NFT an address holds: the instance, with its standard and the amount held. */
function addressNft(row: AddressNftRow, loaded: InstanceRelations): z.input<typeof AddressNft> {
    const instance = renderInstance(row, loaded)
    return { ...instance, token: instance.token!, token_type: row.token_type, value: row.value }
}

const TopAccountsQuery = z.object({
    fetched_coin_balance: q.uint.optional(),
    hash: q.address.optional(),
    // Part of Blockscout's cursor, which it needs for its transactions_count sort; the balance
    // order resumes from (balance, hash) alone. The frontend echoes a null as "null".
    transactions_count: z.union([q.int, z.literal('null')]).optional(),
    items_count: q.itemsCount.optional(),
})

/** An address's transactions (see addressTransactionKeys), with the cursor of its sort. */
async function addressTransactions(ctx: ChainContext, hash: string, query: z.infer<typeof TransactionsQuery>, filters: Record<string, string>) {
    // Newest first by block, a cursor's page holds committed rows only (key-pages.ts).
    const settled = (query.sort ?? 'block_number') === 'block_number' && (query.order ?? 'desc') === 'desc' && query.index !== undefined ? query.block_number : undefined
    const name = `address ${hash} ${query.filter} ${query.sort} ${query.order} ${query.block_number} ${query.index} ${query.value} ${query.fee}`
    const rows = await ctx.caches.keyPages.get(name, settled, () => addressTransactionKeys(ctx.db, hash, query))
    return transactionPage(ctx, rows, (t) => ({
        block_number: t.block_number,
        index: t.position,
        inserted_at: t.timestamp,
        hash: t.hash,
        value: t.value,
        fee: t.fee.value,
    }), filters)
}

function renderBalance(row: TokenBalanceRow): z.input<typeof TokenBalance> {
    // ERC-721 balances are counts of tokens; which ids are held is not tracked per holder.
    return { token: renderToken(row), token_id: null, value: row.value, token_instance: null }
}

export function addressesRoutes(router: DocumentedRouter, ctx: ChainContext, csv: CsvExports): void {
    // The address tabs' CSV exports as Blockscout's current frontend asks them; also at /api/v1/<kind>-csv (routes/v1.ts).
    for (const kind of ADDRESS_EXPORTS) {
        router.get(`/addresses/:hash/${kind}/csv`, addressCsvOperation(kind, 'path'), csv.address(kind, 'path'))
    }

    /** Top accounts: every address holding coin, in Blockscout's order (see topAccounts). */
    router.get('/addresses', chainOperation(TAG, {
        operationId: 'listTopAddresses',
        summary: 'Top accounts by coin balance', query: TopAccountsQuery,
    }, 'A page of addresses, with the coin supply', TopAddressesPage), async (req, res) => {
        const query = parseQuery(TopAccountsQuery, req.query)
        const after = query.fetched_coin_balance !== undefined && query.hash ? { balance: query.fetched_coin_balance, hash: query.hash } : undefined
        // The total supply: Blockscout takes it from its market data, which this chain has none of; the
        // frontend divides each balance by it for the percentage column.
        const [rows, supply] = await Promise.all([topAccounts(ctx.db, after), coinSupply(ctx.db)])
        const { rows: shown, next } = paginate(rows, (a) => ({
            fetched_coin_balance: a.balance,
            hash: a.id,
            transactions_count: a.transaction_count,
        }))
        setLiveCaching(res)
        res.json({
            items: shown.map((a) => ({
                ...addressParam(a.id, { isContract: a.is_contract, name: a.verified_name, isVerified: a.verified_name !== null }),
                coin_balance: a.balance,
                transactions_count: String(a.transaction_count),
            })),
            next_page_params: next,
            // No price feed.
            exchange_rate: null,
            total_supply: supply,
        } satisfies z.input<typeof TopAddressesPage>)
    })

    router.get('/addresses/:hash', chainOperation(TAG, {
        operationId: 'getAddress',
        summary: 'An address',
        description: 'An address the indexer never saw answers with its fields empty, as Blockscout does.',
        params: AddressPath,
    }, 'The address', AddressDetails), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const [row, { tokens }, flags, proxy] = await Promise.all([
            addressById(ctx.db, hash), related(ctx.db, { tokens: [hash] }), addressFlags(ctx.db, hash), proxyOf(ctx.db, hash),
        ])
        const token = tokens.get(hash)
        const delegation = row?.delegated_to ? { to: row.delegated_to, name: row.delegated_to_name } : undefined
        const base = addressParam(hash, row && { isContract: row.is_contract, name: row.verified_name, isVerified: row.verified_name !== null, proxy, delegation })
        setLiveCaching(res)
        res.json({
            ...base,
            creator_address_hash: row?.creator ? addressParam(row.creator, undefined).hash : null,
            creation_transaction_hash: row?.creation_transaction ?? null,
            creation_status: row?.is_contract ? creationStatus(row) : null,
            token: token ? renderToken(token) : null,
            coin_balance: row ? row.balance : null,
            exchange_rate: null,
            block_number_balance_updated_at: row ? row.balance_block : null,
            has_validated_blocks: flags.has_validated_blocks,
            has_logs: (row?.log_count ?? 0) > 0,
            has_tokens: flags.has_tokens,
            has_token_transfers: (row?.token_transfer_count ?? 0) > 0,
            has_beacon_chain_withdrawals: false,
            watchlist_address_id: null,
        } satisfies z.input<typeof AddressDetails>)
    })

    router.get('/addresses/:hash/counters', chainOperation(TAG, {
        operationId: 'getAddressCounters',
        summary: "An address's counters", params: AddressPath,
    }, 'The counters', AddressCounters), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const [row, validations] = await Promise.all([addressById(ctx.db, hash), minedBlockCount(ctx.db, hash, ctx.env.CHAIN_API_VALIDATIONS_COUNT_CAP)])
        setLiveCaching(res)
        res.json({
            transactions_count: String(row?.transaction_count ?? 0),
            token_transfers_count: String(row?.token_transfer_count ?? 0),
            gas_usage_count: row?.gas_used ?? '0',
            // At most CHAIN_API_VALIDATIONS_COUNT_CAP: a lower bound for a validator that mined more.
            validations_count: String(validations),
        } satisfies z.input<typeof AddressCounters>)
    })

    router.get('/addresses/:hash/tabs-counters', chainOperation(TAG, {
        operationId: 'getAddressTabCounters',
        summary: "An address's tab counts, each capped at 51", params: AddressPath,
    }, 'The counts', AddressTabsCounters), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const cap = (n: number) => Math.min(n, 51)
        const [row, counts, internal] = await Promise.all([addressById(ctx.db, hash), addressTabCounts(ctx.db, hash), countAddressFrames(ctx.db, hash, 51)])
        setLiveCaching(res)
        res.json({
            transactions_count: cap(row?.transaction_count ?? 0),
            token_transfers_count: cap(row?.token_transfer_count ?? 0),
            token_balances_count: counts.balances,
            logs_count: cap(row?.log_count ?? 0),
            withdrawals_count: 0,
            internal_transactions_count: internal,
            validations_count: counts.validations,
        } satisfies z.input<typeof AddressTabsCounters>)
    })

    router.get('/addresses/:hash/transactions', chainOperation(TAG, {
        operationId: 'listAddressTransactions',
        summary: "An address's transactions", params: AddressPath, query: TransactionsQuery,
    }, 'A page of transactions', pageOf(Transaction)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(TransactionsQuery, req.query)
        setLiveCaching(res)
        const page = () => addressTransactions(ctx, hash, query, carried(req.query, ['filter', 'sort', 'order']))
        // A popular address's first page is asked by every visitor of its page: made once per head.
        if (isFirstPage(req)) return ctx.caches.views.send(res, `address ${hash} transactions`, page)
        sendJson(res, await page())
    })

    router.get('/addresses/:hash/token-transfers', chainOperation(TAG, {
        operationId: 'listAddressTokenTransfers',
        summary: "An address's token transfers", params: AddressPath, query: TokenTransfersQuery,
    }, 'A page of token transfers', pageOf(TokenTransfer)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(TokenTransfersQuery, req.query)
        setLiveCaching(res)
        const { rows: shown, next } = paginateTransfers(await addressTransfers(ctx.db, hash, query), carried(req.query, ['type', 'filter', 'token']))
        res.json({ items: renderTokenTransfers(shown, await related(ctx.db, tokenTransferRefs(shown))), next_page_params: next })
    })

    router.get('/addresses/:hash/token-balances', chainOperation(TAG, {
        operationId: 'listAddressTokenBalances',
        summary: "An address's largest token balances (at most CHAIN_API_TOKEN_BALANCES_MAX), unpaginated", params: AddressPath,
    }, 'The balances', z.array(TokenBalance)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        setLiveCaching(res)
        // Blockscout answers a plain array, which has no next page: the largest CHAIN_API_TOKEN_BALANCES_MAX
        // balances; the paginated /tokens lists them all.
        res.json((await addressTokenBalances(ctx.db, hash, null, undefined, ctx.env.CHAIN_API_TOKEN_BALANCES_MAX)).map((r) => renderBalance(r)))
    })

    router.get('/addresses/:hash/tokens', chainOperation(TAG, {
        operationId: 'listAddressTokens',
        summary: "An address's token balances, paginated", params: AddressPath, query: TokensQuery,
    }, 'A page of balances', pageOf(TokenBalance)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(TokensQuery, req.query)
        const after = query.value !== undefined && query.id ? { value: query.value, id: query.id } : undefined
        const types = query.type && query.type.length > 0 ? query.type : null
        const rows = await addressTokenBalances(ctx.db, hash, types, after, FETCH_SIZE)
        const { rows: shown, next } = paginate(rows, (r) => ({ fiat_value: null, value: r.value, id: r.id }), undefined, carried(req.query, ['type']))
        setLiveCaching(res)
        res.json({ items: shown.map((r) => renderBalance(r)), next_page_params: next })
    })

    router.get('/addresses/:hash/logs', chainOperation(TAG, {
        operationId: 'listAddressLogs',
        summary: 'Logs emitted by an address', params: AddressPath, query: LogsQuery,
    }, 'A page of logs', pageOf(Log)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(LogsQuery, req.query)
        const rows = await addressLogs(ctx.db, hash, query)
        // Blockscout's log cursor is (block_number, index): a log's index is unique within its
        // block, so no transaction_index is needed to resume.
        const { rows: shown, next } = paginate(rows, (l) => ({ block_number: l.block_number, index: l.index }), undefined, carried(req.query, ['topic']))
        setLiveCaching(res)
        res.json({ items: renderLogs(shown, await related(ctx.db, logRefs(shown))), next_page_params: next })
    })

    router.get('/addresses/:hash/blocks-validated', chainOperation(TAG, {
        operationId: 'listAddressBlocksValidated',
        summary: 'Blocks an address mined', params: AddressPath, query: CursorQuery,
    }, 'A page of blocks', pageOf(Block)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(CursorQuery, req.query)
        const rows = await minedBlockKeys(ctx.db, hash, query.block_number)
        setLiveCaching(res)
        sendJson(res, await blockPage(ctx, rows))
    })

    /** The NFTs an address holds, by collection then id, both descending (see addressNfts). */
    router.get('/addresses/:hash/nft', chainOperation(TAG, {
        operationId: 'listAddressNfts',
        summary: 'The NFTs an address holds', params: AddressPath, query: NftQuery,
    }, 'A page of NFTs', pageOf(AddressNft)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(NftQuery, req.query)
        const after = query.token_contract_address_hash && query.token_id !== undefined ? { token: query.token_contract_address_hash, tokenId: query.token_id } : undefined
        const rows = await addressNfts(ctx.db, hash, { types: nftTypes(query.type), after })
        const { rows: shown, next } = paginateByKeys(rows, (r) => ({
            token_contract_address_hash: r.token, token_id: r.token_id, token_type: r.token_type,
        }), carried(req.query, ['type']))
        const loaded = await instanceRelations(ctx.db, shown)
        setLiveCaching(res)
        res.json({ items: shown.map((r) => addressNft(r, loaded)), next_page_params: next })
    })

    /** The collections an address holds NFTs of, each with its balance and its first instances held. */
    router.get('/addresses/:hash/nft/collections', chainOperation(TAG, {
        operationId: 'listAddressNftCollections',
        summary: 'The NFT collections an address holds', params: AddressPath, query: NftCollectionsQuery,
    }, 'A page of collections', pageOf(AddressNftCollection)), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(NftCollectionsQuery, req.query)
        const types = nftTypes(query.type)
        const rows = await addressCollections(ctx.db, hash, types, query.token_contract_address_hash)
        const { rows: shown, next } = paginateByKeys(rows, (r) => ({ token_contract_address_hash: r.id, token_type: r.type }), carried(req.query, ['type']))
        const previews = await collectionPreviews(ctx.db, hash, shown, COLLECTION_PREVIEW)
        const held = shown.map((c) => previews.get(c.id)!)
        const loaded = await instanceRelations(ctx.db, held.flat())
        setLiveCaching(res)
        res.json({
            items: shown.map((c, i) => ({
                token: renderToken(c),
                amount: c.value,
                token_instances: held[i].map((r) => {
                    const { token: _token, ...instance } = addressNft(r, loaded)
                    return instance
                }),
            })),
            next_page_params: next,
        } satisfies z.input<ReturnType<typeof pageOf<typeof AddressNftCollection>>>)
    })

    // Tabs a Blockscout frontend may open that this indexer does not keep: answered empty, never 404.
    const emptyTabs = { withdrawals: 'listAddressWithdrawals' }
    for (const [tab, operationId] of Object.entries(emptyTabs)) {
        const summary = `An address's ${tab} (not indexed: always empty)`
        router.get(`/addresses/:hash/${tab}`, chainOperation(TAG, {
            operationId, summary, params: AddressPath, reads: false,
        }, 'An empty page', EmptyPage), (req, res) => {
            parseAddress(req.params.hash)
            res.json({ items: [], next_page_params: null })
        })
    }
}
