import { Router } from 'express'
import { z } from 'zod'
import { ChainContext, setLiveCaching } from '../context'
import { carried, FETCH_SIZE, paginate, paginateTransfers } from '../pagination'
import { addressParam as parseAddress, parseQuery, q } from '../params'
import { countAddressInternalTransactions } from './internal-transactions'
import { addressParam } from '../render/address'
import { BLOCK_KEY_COLUMNS, BlockKey } from '../render/block'
import { LOG_COLUMNS, LOG_JOIN, LogRow, renderLogs } from '../render/log'
import { loadTokens, renderToken, TOKEN_COLUMNS, TokenRow } from '../render/token'
import { TOKEN_TRANSFER_COLUMNS, TOKEN_TRANSFER_JOIN, TokenTransferRow, renderTokenTransfers } from '../render/token-transfer'
import { TRANSACTION_KEY_COLUMNS, TransactionKey } from '../render/transaction'
import { sendJson } from '../json-response'
import { Recent } from '../recent'
import { blockPage } from './blocks'
import { TOKEN_TYPES, transactionPage } from './transactions'

const MAX_INT = 2_147_483_647

const TransactionsQuery = z.object({
    filter: z.enum(['to', 'from']).optional(),
    sort: z.enum(['block_number', 'value', 'fee']).optional(),
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

const TopAccountsQuery = z.object({
    fetched_coin_balance: q.uint.optional(),
    hash: q.address.optional(),
    // Part of Blockscout's cursor, which it needs for its transactions_count sort; the balance
    // order resumes from (balance, hash) alone. The frontend echoes a null as "null".
    transactions_count: z.union([q.int, z.literal('null')]).optional(),
    items_count: q.itemsCount.optional(),
})

interface TopAccountRow {
    id: string
    balance: string
    transaction_count: number
    is_contract: boolean
    verified_name: string | null
}

/**
 * The coin held by every address the indexer has seen, as the top-accounts page's total supply
 * (Blockscout takes it from its market data, which this chain has none of; the frontend divides
 * each balance by it for the percentage column). A sum over every holder, so it is computed once
 * per indexed head and a minute at most, not per request.
 */
const supplyCache = new Recent<string>(60_000)
async function coinSupply(ctx: ChainContext): Promise<string> {
    const head = await ctx.head.get()
    return supplyCache.get(async () => {
        const { rows } = await ctx.db.query<{ total: string }>('SELECT COALESCE(SUM(balance), 0)::text AS total FROM address WHERE balance > 0')
        return rows[0].total
    }, head.number)
}

interface AddressRow {
    id: string
    balance: string
    balance_block: number
    is_contract: boolean
    transaction_count: number
    token_transfer_count: number
    gas_used: string
    log_count: number
    creator: string | null
    creation_transaction: string | null
    verified_name: string | null
    creation_status: number | null
}

async function findAddress(ctx: ChainContext, hash: string): Promise<AddressRow | undefined> {
    const { rows } = await ctx.db.query<AddressRow>(
        `SELECT a.id, a.balance, a.balance_block, a.is_contract, a.transaction_count, a.token_transfer_count, a.gas_used,
                a.log_count, a.creator, a.creation_transaction, v.name AS verified_name, c.status AS creation_status
           FROM address a
           LEFT JOIN verified_contract v ON v.id = a.id
           LEFT JOIN transaction c ON c.id = a.creation_transaction
          WHERE a.id = $1`,
        [hash]
    )
    return rows[0]
}

/**
 * An address's transactions: those it sent, received, or created (a contract's creation). Each
 * direction is an index range scan that stops after one page, merged, so a page costs the same
 * at any depth and for any number of transactions.
 */
async function addressTransactions(ctx: ChainContext, hash: string, query: z.infer<typeof TransactionsQuery>, filters: Record<string, string>) {
    const desc = (query.order ?? 'desc') === 'desc'
    const dir = desc ? 'DESC' : 'ASC'
    const cmp = desc ? '<' : '>'
    const sort = query.sort ?? 'block_number'
    const hasCursor = query.block_number !== undefined && query.index !== undefined
    const params: unknown[] = [hash]
    const sortColumns = sort === 'block_number' ? 'block_number, index' : `${sort}, block_number, index`
    const key = `(${sortColumns})`
    let cursor = 'TRUE'
    if (hasCursor) {
        if (sort !== 'block_number') params.push(String(query[sort] ?? (desc ? 10n ** 78n : -1n)))
        params.push(query.block_number, query.index)
        const n = params.length
        cursor = sort === 'block_number' ? `${key} ${cmp} ($${n - 1}, $${n})` : `${key} ${cmp} ($${n - 2}::numeric, $${n - 1}, $${n})`
    }
    const columns = ['"from"', '"to"', 'created_contract'].filter((c) =>
        query.filter === 'from' ? c === '"from"' : query.filter === 'to' ? c !== '"from"' : true
    )
    const order = sort === 'block_number' ? `block_number ${dir}, index ${dir}` : `${sort} ${dir}, block_number ${dir}, index ${dir}`
    // Sorted by position, each branch is an index-only scan.
    const branches = columns.map((c) =>
        `(SELECT ${sortColumns} FROM transaction WHERE ${c} = $1 AND ${cursor} ORDER BY ${order} LIMIT ${FETCH_SIZE})`
    )
    const { rows } = await ctx.db.query<TransactionKey>(
        `SELECT ${TRANSACTION_KEY_COLUMNS}
           FROM (SELECT block_number, index FROM (${branches.join(' UNION ')}) u ORDER BY ${order} LIMIT ${FETCH_SIZE}) page
           JOIN transaction t ON t.block_number = page.block_number AND t.index = page.index
          ORDER BY ${order.replace(/(^|, )/g, '$1t.')}`,
        params
    )
    return transactionPage(ctx, rows, (t) => ({
        block_number: t.block_number,
        index: t.position,
        inserted_at: t.timestamp,
        hash: t.hash,
        value: t.value,
        fee: t.fee.value,
    }), filters)
}

async function addressTokenTransfers(ctx: ChainContext, hash: string, query: z.infer<typeof TokenTransfersQuery>, filters: Record<string, string>) {
    const params: unknown[] = [hash, query.block_number ?? MAX_INT, query.block_number === undefined ? MAX_INT : query.index ?? MAX_INT]
    let extra = ''
    if (query.type && query.type.length > 0) {
        params.push(query.type)
        extra += ` AND token_type = ANY($${params.length})`
    }
    if (query.token) {
        params.push(query.token)
        extra += ` AND token = $${params.length}`
    }
    const columns = query.filter === 'from' ? ['"from"'] : query.filter === 'to' ? ['"to"'] : ['"from"', '"to"']
    const branches = columns.map((c) =>
        `(SELECT id, block_number, log_index FROM token_transfer WHERE ${c} = $1 AND (block_number, log_index) < ($2, $3)${extra}
           ORDER BY block_number DESC, log_index DESC LIMIT ${FETCH_SIZE})`
    )
    const { rows } = await ctx.db.query<TokenTransferRow>(
        `SELECT ${TOKEN_TRANSFER_COLUMNS}
           FROM (SELECT id FROM (${branches.join(' UNION ')}) u
                  ORDER BY block_number DESC, log_index DESC LIMIT ${FETCH_SIZE}) page
           JOIN token_transfer tt ON tt.id = page.id
           ${TOKEN_TRANSFER_JOIN}
          ORDER BY tt.block_number DESC, tt.log_index DESC`,
        params
    )
    const { rows: shown, next } = paginateTransfers(rows, filters)
    return { items: await renderTokenTransfers(ctx.db, shown), next_page_params: next }
}

interface BalanceRow extends TokenRow {
    value: string
}

async function tokenBalances(ctx: ChainContext, hash: string, types: string[] | null, after?: { value: bigint; id: string }, limit?: number) {
    const params: unknown[] = [hash, types]
    let cursor = ''
    if (after) {
        params.push(String(after.value), after.id)
        cursor = 'AND (tb.value, k.id) < ($3::numeric, $4)'
    }
    const { rows } = await ctx.db.query<BalanceRow>(
        `SELECT ${TOKEN_COLUMNS}, tb.value
           FROM token_balance tb JOIN token k ON k.id = tb.token
          WHERE tb.holder = $1 AND tb.value > 0 AND ($2::text[] IS NULL OR k.type = ANY($2)) ${cursor}
          ORDER BY tb.value DESC, k.id DESC ${limit ? `LIMIT ${limit}` : ''}`,
        params
    )
    return rows
}

function renderBalance(row: BalanceRow) {
    // ERC-721 balances are counts of tokens; which ids are held is not tracked per holder.
    return { token: renderToken(row), token_id: null, value: row.value, token_instance: null }
}

export function addressesRoutes(router: Router, ctx: ChainContext): void {
    /**
     * Top accounts: every address holding coin, by balance descending, then address ascending
     * (Blockscout's order). `balance <= $1` bounds the scan of the (balance DESC, id) index at the
     * cursor; the rest of the condition only drops the cursor's ties already shown.
     */
    router.get('/addresses', async (req, res) => {
        const query = parseQuery(TopAccountsQuery, req.query)
        const params: unknown[] = []
        let cursor = ''
        if (query.fetched_coin_balance !== undefined && query.hash) {
            params.push(String(query.fetched_coin_balance), query.hash)
            cursor = 'AND a.balance <= $1::numeric AND (a.balance < $1::numeric OR a.id > $2)'
        }
        const [{ rows }, supply] = await Promise.all([
            ctx.db.query<TopAccountRow>(
                `SELECT a.id, a.balance::text AS balance, a.transaction_count, a.is_contract, v.name AS verified_name
                   FROM address a LEFT JOIN verified_contract v ON v.id = a.id
                  WHERE a.balance > 0 ${cursor}
                  ORDER BY a.balance DESC, a.id ASC LIMIT ${FETCH_SIZE}`,
                params
            ),
            coinSupply(ctx),
        ])
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
        })
    })

    router.get('/addresses/:hash', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const [row, tokens, flags] = await Promise.all([
            findAddress(ctx, hash),
            loadTokens(ctx.db, [hash]),
            ctx.db.query<{ has_tokens: boolean; has_validated_blocks: boolean }>(
                `SELECT EXISTS (SELECT 1 FROM token_balance WHERE holder = $1 AND value > 0) AS has_tokens,
                        EXISTS (SELECT 1 FROM block WHERE miner = $1) AS has_validated_blocks`,
                [hash]
            ),
        ])
        const token = tokens.get(hash)
        const base = addressParam(hash, row && { isContract: row.is_contract, name: row.verified_name, isVerified: row.verified_name !== null })
        setLiveCaching(res)
        res.json({
            ...base,
            creator_address_hash: row?.creator ? addressParam(row.creator, undefined).hash : null,
            creation_transaction_hash: row?.creation_transaction ?? null,
            creation_status: row?.is_contract ? (row.creation_status === 0 ? 'failed' : 'success') : null,
            token: token ? renderToken(token) : null,
            coin_balance: row ? row.balance : null,
            exchange_rate: null,
            block_number_balance_updated_at: row ? row.balance_block : null,
            has_validated_blocks: flags.rows[0].has_validated_blocks,
            has_logs: (row?.log_count ?? 0) > 0,
            has_tokens: flags.rows[0].has_tokens,
            has_token_transfers: (row?.token_transfer_count ?? 0) > 0,
            has_beacon_chain_withdrawals: false,
            watchlist_address_id: null,
        })
    })

    router.get('/addresses/:hash/counters', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const [row, validations] = await Promise.all([
            findAddress(ctx, hash),
            ctx.db.query<{ n: string }>('SELECT count(*) AS n FROM block WHERE miner = $1', [hash]),
        ])
        setLiveCaching(res)
        res.json({
            transactions_count: String(row?.transaction_count ?? 0),
            token_transfers_count: String(row?.token_transfer_count ?? 0),
            gas_usage_count: row?.gas_used ?? '0',
            validations_count: validations.rows[0].n,
        })
    })

    router.get('/addresses/:hash/tabs-counters', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const cap = (n: number) => Math.min(n, 51)
        const [row, counts, internal] = await Promise.all([
            findAddress(ctx, hash),
            ctx.db.query<{ balances: number; validations: number }>(
                `SELECT (SELECT count(*) FROM (SELECT 1 FROM token_balance WHERE holder = $1 AND value > 0 LIMIT 51) x)::int AS balances,
                        (SELECT count(*) FROM (SELECT 1 FROM block WHERE miner = $1 LIMIT 51) y)::int AS validations`,
                [hash]
            ),
            countAddressInternalTransactions(ctx, hash, 51),
        ])
        setLiveCaching(res)
        res.json({
            transactions_count: cap(row?.transaction_count ?? 0),
            token_transfers_count: cap(row?.token_transfer_count ?? 0),
            token_balances_count: counts.rows[0].balances,
            logs_count: cap(row?.log_count ?? 0),
            withdrawals_count: 0,
            internal_transactions_count: internal,
            validations_count: counts.rows[0].validations,
        })
    })

    router.get('/addresses/:hash/transactions', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(TransactionsQuery, req.query)
        setLiveCaching(res)
        sendJson(res, await addressTransactions(ctx, hash, query, carried(req.query, ['filter', 'sort', 'order'])))
    })

    router.get('/addresses/:hash/token-transfers', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(TokenTransfersQuery, req.query)
        setLiveCaching(res)
        res.json(await addressTokenTransfers(ctx, hash, query, carried(req.query, ['type', 'filter', 'token'])))
    })

    router.get('/addresses/:hash/token-balances', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        setLiveCaching(res)
        res.json((await tokenBalances(ctx, hash, null)).map((r) => renderBalance(r)))
    })

    router.get('/addresses/:hash/tokens', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(TokensQuery, req.query)
        const after = query.value !== undefined && query.id ? { value: query.value, id: query.id } : undefined
        const types = query.type && query.type.length > 0 ? query.type : null
        const rows = await tokenBalances(ctx, hash, types, after, FETCH_SIZE)
        const { rows: shown, next } = paginate(rows, (r) => ({ fiat_value: null, value: r.value, id: r.id }), undefined, carried(req.query, ['type']))
        setLiveCaching(res)
        res.json({ items: shown.map((r) => renderBalance(r)), next_page_params: next })
    })

    router.get('/addresses/:hash/logs', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(LogsQuery, req.query)
        const params: unknown[] = [hash, query.block_number ?? MAX_INT, query.block_number === undefined ? MAX_INT : query.index ?? MAX_INT]
        let topic = ''
        if (query.topic) {
            params.push(query.topic)
            topic = 'AND $4 IN (l.topic0, l.topic1, l.topic2, l.topic3)'
        }
        const { rows } = await ctx.db.query<LogRow>(
            `SELECT ${LOG_COLUMNS} FROM log l ${LOG_JOIN}
              WHERE l.address = $1 AND (l.block_number, l.index) < ($2, $3) ${topic}
              ORDER BY l.block_number DESC, l.index DESC LIMIT ${FETCH_SIZE}`,
            params
        )
        // Blockscout's log cursor is (block_number, index): a log's index is unique within its
        // block, so no transaction_index is needed to resume.
        const { rows: shown, next } = paginate(rows, (l) => ({ block_number: l.block_number, index: l.index }), undefined, carried(req.query, ['topic']))
        setLiveCaching(res)
        res.json({ items: await renderLogs(ctx.db, shown), next_page_params: next })
    })

    router.get('/addresses/:hash/blocks-validated', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const query = parseQuery(CursorQuery, req.query)
        const { rows } = await ctx.db.query<BlockKey>(
            `SELECT ${BLOCK_KEY_COLUMNS} FROM block b WHERE b.miner = $1 AND b.number < $2 ORDER BY b.number DESC LIMIT ${FETCH_SIZE}`,
            [hash, query.block_number ?? MAX_INT]
        )
        setLiveCaching(res)
        sendJson(res, await blockPage(ctx, rows))
    })

    // Tabs a Blockscout frontend may open that this indexer does not keep: answered empty, never 404.
    for (const tab of ['nft', 'withdrawals']) {
        router.get(`/addresses/:hash/${tab}`, (req, res) => {
            parseAddress(req.params.hash)
            res.json({ items: [], next_page_params: null })
        })
    }
}

