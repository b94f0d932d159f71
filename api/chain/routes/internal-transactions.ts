import { Response } from 'express'
import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setBlockCaching, setLiveCaching } from '../context'
import { blockOr404, transactionOr404 } from '../loaders'
import { carried, paginate } from '../pagination'
import { AddressPath, addressParam, BlockPath, blockParam, parseQuery, q, transactionHashParam, TransactionPath } from '../params'
import {
    addressFrames, blockFrames, chainFrames, InternalTransactionRow, transactionFrames, transactionTrace,
} from '../queries/internal-transactions'
import { related } from '../queries/related'
import { internalTransactionCursor, internalTransactionRefs, renderInternalTransactions, renderRawTrace } from '../render/internal-transaction'
import { chainOperation, InternalTransaction, pageOf, RawTraceFrame } from '../schemas'

/**
 * Internal transactions: the call frames the indexer stored from the node's traces. Every list is
 * newest first and keyset-paginated on the frame's position (block, transaction index, frame index),
 * which is also its primary key, so a deep page costs what the first does.
 */

const Cursor = z.object({
    block_number: q.int.optional(),
    transaction_index: q.int.optional(),
    index: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

const AddressQuery = Cursor.extend({ filter: z.enum(['to', 'from']).optional() })

/** Sends a page, carrying the request's own filter into the cursor so the next page keeps it. */
async function sendPage(ctx: ChainContext, res: Response, rows: InternalTransactionRow[], keep: Record<string, unknown> = {}) {
    const { rows: shown, next } = paginate(rows, internalTransactionCursor)
    res.json({ items: renderInternalTransactions(shown, await related(ctx.db, internalTransactionRefs(shown))), next_page_params: next && { ...next, ...keep } })
}

export function internalTransactionsRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    router.get('/internal-transactions', chainOperation('internal-transactions', {
        operationId: 'listInternalTransactions',
        summary: 'Internal transactions of the whole chain, newest first', query: Cursor,
    }, 'A page of internal transactions', pageOf(InternalTransaction)), async (req, res) => {
        const query = parseQuery(Cursor, req.query)
        const rows = await chainFrames(ctx.db, query)
        setLiveCaching(res)
        await sendPage(ctx, res, rows)
    })

    router.get('/transactions/:hash/internal-transactions', chainOperation('transactions', {
        operationId: 'listTransactionInternalTransactions',
        summary: "A transaction's internal transactions, in call order", params: TransactionPath, query: Cursor, notFound: 'transaction',
    }, 'A page of internal transactions', pageOf(InternalTransaction)), async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const query = parseQuery(Cursor, req.query)
        const tx = await transactionOr404(ctx.db, hash)
        // Blockscout lists a transaction's frames in call order; the cursor is the last index shown.
        const rows = await transactionFrames(ctx.db, tx, query.index ?? -1)
        setBlockCaching(res, ctx, tx.block_number, tx.indexed_head)
        await sendPage(ctx, res, rows)
    })

    router.get('/blocks/:block/internal-transactions', chainOperation('blocks', {
        operationId: 'listBlockInternalTransactions',
        summary: "A block's internal transactions, in call order", params: BlockPath, query: Cursor, notFound: 'block',
    }, 'A page of internal transactions', pageOf(InternalTransaction)), async (req, res) => {
        const ref = blockParam(req.params.block)
        const query = parseQuery(Cursor, req.query)
        const [block, head] = await Promise.all([blockOr404(ctx.db, ref), ctx.head.get()])
        // In call order, like a transaction's list; the cursor is the last frame shown.
        const rows = await blockFrames(ctx.db, block.number, query)
        setBlockCaching(res, ctx, block.number, head.number)
        await sendPage(ctx, res, rows)
    })

    router.get('/addresses/:hash/internal-transactions', chainOperation('addresses', {
        operationId: 'listAddressInternalTransactions',
        summary: "An address's internal transactions", params: AddressPath, query: AddressQuery,
    }, 'A page of internal transactions', pageOf(InternalTransaction)), async (req, res) => {
        const address = addressParam(req.params.hash)
        const query = parseQuery(AddressQuery, req.query)
        const rows = await addressFrames(ctx.db, address, query.filter, query)
        setLiveCaching(res)
        await sendPage(ctx, res, rows, carried(req.query, ['filter']))
    })

    router.get('/transactions/:hash/raw-trace', chainOperation('transactions', {
        operationId: 'getTransactionRawTrace',
        summary: "A transaction's call tree as trace_transaction shows it", params: TransactionPath, notFound: 'transaction',
    }, 'The frames', z.array(RawTraceFrame)), async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const tx = await transactionOr404(ctx.db, hash)
        const rows = await transactionTrace(ctx.db, tx)
        setBlockCaching(res, ctx, tx.block_number, tx.indexed_head)
        res.json(renderRawTrace(rows))
    })
}
