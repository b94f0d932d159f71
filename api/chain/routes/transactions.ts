import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setBlockCaching, setLiveCaching } from '../context'
import { transactionOr404 } from '../loaders'
import { carried, FETCH_SIZE, PAGE_SIZE, paginate, paginateTransfers } from '../pagination'
import { parseQuery, q, transactionHashParam, TransactionPath } from '../params'
import { transactionLogs } from '../queries/logs'
import { callAbis } from '../queries/smart-contracts'
import { revertAbis } from '../queries/revert-reasons'
import { lastDayTransactions } from '../queries/stats'
import { TOKEN_TYPES, transactionTransfers } from '../queries/token-transfers'
import { TransactionKey, transactionKeysBefore, transactionsByIds } from '../queries/transactions'
import { related } from '../queries/related'
import { logRefs, renderLogs } from '../render/log'
import { renderTokenTransfers, tokenTransferRefs } from '../render/token-transfer'
import { renderTransaction, transactionAddresses, transactionShown } from '../render/transaction'
import { keptItem, listBody, RenderedItem } from '../rendered-items'
import { chainOperation, Log, pageOf, TokenTransfer, Transaction, TransactionDetails, TransactionStats } from '../schemas'
import { sendJson } from '../json-response'
import { isFirstPage } from '../head-views'

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

/** The rendered list items of transactions, in the order of their keys: reused from ctx.caches.rendered, the others read and rendered with one query. */
export async function transactionItems(ctx: ChainContext, keys: readonly TransactionKey[]): Promise<RenderedItem[]> {
    const keyOf = (t: TransactionKey) => `t${t.id}${t.block_hash}`
    return ctx.caches.rendered.items(keys, keyOf, async (missing, head) => {
        const rows = await transactionsByIds(ctx.db, missing.map((t) => t.id))
        const address = transactionAddresses(rows)
        return new Map(rows.map((t) => [keyOf(t), keptItem(renderTransaction(t, address, head), transactionShown(t), t.block_number)]))
    })
}

const TAG = 'transactions'

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

const TokenTransfersQuery = CursorQuery.extend({ type: q.list(TOKEN_TYPES).optional(), index_in_batch: q.int.optional() })

export function transactionsRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    router.get('/transactions', chainOperation(TAG, {
        operationId: 'listTransactions',
        summary: 'Transactions, newest first', query: TransactionsQuery,
    }, 'A page of transactions', pageOf(Transaction)), async (req, res) => {
        const query = parseQuery(TransactionsQuery, req.query)
        setLiveCaching(res)
        // The indexer ingests mined blocks only.
        if (query.filter === 'pending') return void res.json({ items: [], next_page_params: null })
        // type accepts only blob_transaction (as Blockscout's): EIP-4844 transactions.
        const blobs = (query.type?.length ?? 0) > 0
        const keys = () => ctx.caches.keyPages.get(`transactions ${blobs ? 'blobs ' : ''}${query.block_number} ${query.index}`, query.index === undefined ? undefined : query.block_number, () => transactionKeysBefore(ctx.db, query, blobs))
        const page = async () => transactionPage(ctx, await keys(), byPosition, carried(req.query, ['filter', 'type', 'method']))
        if (isFirstPage(req) && !blobs) return ctx.caches.views.send(res, 'transactions', page)
        sendJson(res, await page())
    })

    router.get('/transactions/stats', chainOperation(TAG, {
        operationId: 'getTransactionStats',
        summary: 'Transaction counts and fees of the last 24 hours',
    }, 'The figures', TransactionStats), async (_req, res) => {
        res.json(await transactionStats(ctx))
    })

    router.get('/transactions/:hash', chainOperation(TAG, {
        operationId: 'getTransaction',
        summary: 'A transaction, with its first 10 token transfers', params: TransactionPath, notFound: 'transaction',
    }, 'The transaction', TransactionDetails), async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const row = await transactionOr404(ctx.db, hash)
        const address = transactionAddresses([row])
        // A call is decoded with the called contract's verified ABIs (a proxy's implementation's
        // first), as Blockscout does; a custom error with the verified ABIs of the contracts that may have raised it.
        const revertData = row.revert_data
        const [transfers, inputAbis, abis] = await Promise.all([
            transactionTransfers(ctx.db, row, { after: -1, types: null, limit: 11 }),
            row.to ? callAbis(ctx.db, row.to) : [],
            revertData !== null && revertData.length >= 4 ? revertAbis(ctx.db, { ...row, revert_data: revertData }) : undefined,
        ])
        const shown = transfers.slice(0, 10)
        const tokenTransfers = renderTokenTransfers(shown, await related(ctx.db, tokenTransferRefs(shown)))
        // confirmations grow with every block, so the single view is never cached for long.
        res.set('Cache-Control', 'public, max-age=1')
        res.json(renderTransaction(row, address, row.indexed_head, {
            tokenTransfers, overflow: transfers.length > 10, inputAbis, revertAbis: abis ?? [],
        }))
    })

    router.get('/transactions/:hash/logs', chainOperation(TAG, {
        operationId: 'listTransactionLogs',
        summary: "A transaction's logs", params: TransactionPath, query: CursorQuery, notFound: 'transaction',
    }, 'A page of logs', pageOf(Log)), async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const query = parseQuery(CursorQuery, req.query)
        const tx = await transactionOr404(ctx.db, hash)
        const rows = await transactionLogs(ctx.db, tx, query.index ?? -1)
        const { rows: shown, next } = paginate(rows, (l) => ({ block_number: l.block_number, index: l.index }))
        setBlockCaching(res, ctx, tx.block_number, tx.indexed_head)
        res.json({ items: renderLogs(shown, await related(ctx.db, logRefs(shown))), next_page_params: next })
    })

    router.get('/transactions/:hash/token-transfers', chainOperation(TAG, {
        operationId: 'listTransactionTokenTransfers',
        summary: "A transaction's token transfers", params: TransactionPath, query: TokenTransfersQuery, notFound: 'transaction',
    }, 'A page of token transfers', pageOf(TokenTransfer)), async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const query = parseQuery(TokenTransfersQuery, req.query)
        const tx = await transactionOr404(ctx.db, hash)
        const types = query.type && query.type.length > 0 ? query.type : null
        const rows = await transactionTransfers(ctx.db, tx, { after: query.index ?? -1, afterInBatch: query.index_in_batch, types, limit: FETCH_SIZE })
        const { rows: shown, next } = paginateTransfers(rows, carried(req.query, ['type']))
        setBlockCaching(res, ctx, tx.block_number, tx.indexed_head)
        res.json({ items: renderTokenTransfers(shown, await related(ctx.db, tokenTransferRefs(shown))), next_page_params: next })
    })
}

/** Last-24-hours figures (see lastDayTransactions), reused as ctx.caches.transactionStats says. */
export function transactionStats(ctx: ChainContext): Promise<z.input<typeof TransactionStats>> {
    return ctx.caches.transactionStats.get(() => lastDayTransactions(ctx.db).then((r) => {
        const count = BigInt(r.count)
        const fees = BigInt(r.fees)
        return {
            transactions_count_24h: String(count),
            pending_transactions_count: '0',
            transaction_fees_sum_24h: String(fees),
            transaction_fees_avg_24h: count === 0n ? '0' : String(fees / count),
        }
    }))
}
