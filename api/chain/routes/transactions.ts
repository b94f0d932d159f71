import { Router } from 'express'
import { z } from 'zod'
import { ChainContext, setBlockCaching, setLiveCaching } from '../context'
import { notFound } from '../errors'
import { carried, FETCH_SIZE, PAGE_SIZE, paginate, paginateTransfers } from '../pagination'
import { parseQuery, q, transactionHashParam } from '../params'
import { blockLogIds } from '../../../db/row-ids'
import { Recent } from '../recent'
import { LOG_COLUMNS, LOG_JOIN, LogRow, renderLogs } from '../render/log'
import {
    TOKEN_TRANSFER_COLUMNS, TOKEN_TRANSFER_JOIN, TokenTransferRow, renderTokenTransfers,
} from '../render/token-transfer'
import {
    renderTransaction, TRANSACTION_COLUMNS, TRANSACTION_JOIN, TRANSACTION_KEY_COLUMNS, transactionAddresses,
    TransactionKey, TransactionRow,
} from '../render/transaction'
import { listBody, rendered, RenderedItem } from '../rendered-items'
import { sendJson } from '../json-response'

export const TRANSACTION_TYPES = ['token_transfer', 'contract_creation', 'contract_call', 'coin_transfer', 'token_creation'] as const
export const TOKEN_TYPES = ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984'] as const

/** SQL for Blockscout's transaction `type` filter: a transaction matches if it has any of the types. */
export function transactionTypeCondition(types: readonly string[] | undefined): string {
    if (!types || types.length === 0) return 'TRUE'
    const conditions: Record<string, string> = {
        token_transfer: 't.token_transfer_count > 0',
        contract_creation: 't."to" IS NULL',
        contract_call: 'EXISTS (SELECT 1 FROM address a WHERE a.id = t."to" AND a.is_contract)',
        coin_transfer: 't.value > 0',
        token_creation: 'EXISTS (SELECT 1 FROM token k WHERE k.id = t.created_contract)',
    }
    return `(${types.map((t) => conditions[t]).join(' OR ')})`
}

export interface TransactionFilter {
    block: number
    types?: readonly string[]
    /** Position after which the page starts. */
    after: number
}

/** A block's transactions in position order. */
export async function listTransactions(ctx: ChainContext, filter: TransactionFilter, filters: Record<string, string> = {}): Promise<Buffer> {
    const { rows } = await ctx.db.query<TransactionKey>(
        `SELECT ${TRANSACTION_KEY_COLUMNS} FROM transaction t
          WHERE t.block_number = $1 AND t.index > $2 AND ${transactionTypeCondition(filter.types)}
          ORDER BY t.index LIMIT ${FETCH_SIZE}`,
        [filter.block, filter.after]
    )
    return transactionPage(ctx, rows, byPosition, filters)
}

/** A transaction as a list shows it (parsed back from its rendered item). */
export type ShownTransaction = ReturnType<typeof renderTransaction>

const byPosition = (t: ShownTransaction) => ({ block_number: t.block_number, index: t.position })

/**
 * A list answer of the transactions of a keyset query's rows (FETCH_SIZE of them: the last tells
 * whether a next page exists). `cursor` reads the next page's parameters from the last item
 * shown, so the keyset query returns no more than the keys.
 */
export async function transactionPage(
    ctx: ChainContext,
    rows: readonly TransactionKey[],
    cursor: (last: ShownTransaction) => Record<string, unknown> = byPosition,
    filters: Record<string, string> = {},
): Promise<Buffer> {
    const items = await transactionItems(ctx, rows.slice(0, PAGE_SIZE))
    const last = rows.length > PAGE_SIZE ? items.at(-1) : undefined
    return listBody(items, last ? { ...filters, ...cursor(JSON.parse(last.toString())), items_count: PAGE_SIZE } : null)
}

/** The rendered list items of transactions, in the order of their keys: reused from ctx.rendered, the others read and rendered with one query. */
export async function transactionItems(ctx: ChainContext, keys: readonly TransactionKey[]): Promise<RenderedItem[]> {
    const keyOf = (t: TransactionKey) => `t${t.id}${t.block_hash}`
    return ctx.rendered.items(keys, keyOf, async (missing, head) => {
        const { rows } = await ctx.db.query<TransactionRow>(
            `SELECT ${TRANSACTION_COLUMNS} FROM transaction t ${TRANSACTION_JOIN} WHERE t.id = ANY($1::text[])`,
            [missing.map((t) => t.id)]
        )
        const address = transactionAddresses(rows)
        return new Map(rows.map((t) => [keyOf(t), rendered(renderTransaction(t, address, head))]))
    })
}

const TransactionsQuery = z.object({
    filter: z.enum(['validated', 'pending']).optional(),
    type: q.list(['blob_transaction'] as const).optional(),
    method: z.string().optional(),
    block_number: q.int.optional(),
    index: q.int.optional(),
    items_count: q.itemsCount.optional(),
    inserted_at: q.timestamp.optional(),
    hash: q.hash.optional(),
})

const CursorQuery = z.object({
    block_number: q.int.optional(),
    index: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

const TokenTransfersQuery = CursorQuery.extend({ type: q.list(TOKEN_TYPES).optional() })

export async function findTransaction(ctx: ChainContext, hash: string): Promise<TransactionRow | undefined> {
    const { rows } = await ctx.db.query<TransactionRow>(
        `SELECT ${TRANSACTION_COLUMNS} FROM transaction t ${TRANSACTION_JOIN} WHERE t.id = $1`,
        [hash]
    )
    return rows[0]
}

/** A transaction's token transfers after log index `after`, in log order: a primary-key range of its block. */
async function transactionTransfers(
    ctx: ChainContext,
    tx: Pick<TransactionRow, 'id' | 'block_number'>,
    page: { after: number; types: readonly string[] | null; limit: number }
): Promise<TokenTransferRow[]> {
    const ids = blockLogIds(tx.block_number, page.after + 1)
    const { rows } = await ctx.db.query<TokenTransferRow>(
        `SELECT ${TOKEN_TRANSFER_COLUMNS} FROM token_transfer tt ${TOKEN_TRANSFER_JOIN}
          WHERE tt.id >= $1 AND tt.id <= $2 AND tt.transaction_hash = $3 AND ($4::text[] IS NULL OR tt.token_type = ANY($4))
          ORDER BY tt.id LIMIT ${page.limit}`,
        [ids.first, ids.last, tx.id, page.types]
    )
    return rows
}

export function transactionsRoutes(router: Router, ctx: ChainContext): void {
    router.get('/transactions', async (req, res) => {
        const query = parseQuery(TransactionsQuery, req.query)
        setLiveCaching(res)
        // The indexer ingests mined blocks only, and this chain has no blob transactions.
        if (query.filter === 'pending' || (query.type && query.type.length > 0)) {
            return void res.json({ items: [], next_page_params: null })
        }
        const { rows } = await ctx.db.query<TransactionKey>(
            `SELECT ${TRANSACTION_KEY_COLUMNS} FROM transaction t
              WHERE (t.block_number, t.index) < ($1, $2)
              ORDER BY t.block_number DESC, t.index DESC LIMIT ${FETCH_SIZE}`,
            [query.block_number ?? 2_147_483_647, query.block_number === undefined ? 0 : query.index ?? 0]
        )
        sendJson(res, await transactionPage(ctx, rows, byPosition, carried(req.query, ['filter', 'type', 'method'])))
    })

    router.get('/transactions/stats', async (_req, res) => {
        res.json(await transactionStats(ctx))
    })

    router.get('/transactions/:hash', async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const row = await findTransaction(ctx, hash)
        if (!row) throw notFound()
        const address = transactionAddresses([row])
        const [transfers, head] = await Promise.all([
            transactionTransfers(ctx, row, { after: -1, types: null, limit: 11 }),
            ctx.head.get(),
        ])
        const tokenTransfers = await renderTokenTransfers(ctx.db, transfers.slice(0, 10))
        // confirmations grow with every block, so the single view is never cached for long.
        res.set('Cache-Control', 'public, max-age=1')
        res.json(renderTransaction(row, address, head.number, { tokenTransfers, overflow: transfers.length > 10 }))
    })

    router.get('/transactions/:hash/logs', async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const query = parseQuery(CursorQuery, req.query)
        const tx = await findTransaction(ctx, hash)
        if (!tx) throw notFound()
        // The transaction's logs are among its block's, a primary-key range (db/row-ids.ts).
        const ids = blockLogIds(tx.block_number, (query.index ?? -1) + 1)
        const { rows } = await ctx.db.query<LogRow>(
            `SELECT ${LOG_COLUMNS} FROM log l ${LOG_JOIN}
              WHERE l.id >= $1 AND l.id <= $2 AND l.transaction_index = $3 ORDER BY l.id LIMIT ${FETCH_SIZE}`,
            [ids.first, ids.last, tx.index]
        )
        const { rows: shown, next } = paginate(rows, (l) => ({ block_number: l.block_number, index: l.index }))
        const head = await ctx.head.get()
        setBlockCaching(res, ctx, tx.block_number, head.number)
        res.json({ items: await renderLogs(ctx.db, shown), next_page_params: next })
    })

    router.get('/transactions/:hash/token-transfers', async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const query = parseQuery(TokenTransfersQuery, req.query)
        const tx = await findTransaction(ctx, hash)
        if (!tx) throw notFound()
        const types = query.type && query.type.length > 0 ? query.type : null
        const rows = await transactionTransfers(ctx, tx, { after: query.index ?? -1, types, limit: FETCH_SIZE })
        const { rows: shown, next } = paginateTransfers(rows, carried(req.query, ['type']))
        const head = await ctx.head.get()
        setBlockCaching(res, ctx, tx.block_number, head.number)
        res.json({ items: await renderTokenTransfers(ctx.db, shown), next_page_params: next })
    })
}

const statsCache = new Recent<object>(60_000)

/**
 * Last-24-hours figures, summed from the per-block totals the indexer keeps (about 43,000 rows at
 * two-second blocks), so the transactions table is never scanned. Reused until a new block is
 * indexed or a minute has passed.
 */
async function transactionStats(ctx: ChainContext): Promise<object> {
    const head = (await ctx.head.get()).number
    return statsCache.get(() => ctx.db.query(
        `SELECT COALESCE(SUM(transaction_count), 0) AS count, COALESCE(SUM(transaction_fees), 0) AS fees
           FROM block WHERE timestamp > now() - interval '24 hours'`
    ).then(({ rows: [r] }) => {
        const count = BigInt(r.count)
        const fees = BigInt(r.fees)
        return {
            transactions_count_24h: String(count),
            pending_transactions_count: '0',
            transaction_fees_sum_24h: String(fees),
            transaction_fees_avg_24h: count === 0n ? '0' : String(fees / count),
        }
    }), head)
}
