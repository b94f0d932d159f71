import { Response, Router } from 'express'
import { z } from 'zod'
import { internalTransactionId } from '../../../db/row-ids'
import { ChainContext, setBlockCaching, setLiveCaching } from '../context'
import { notFound } from '../errors'
import { carried, FETCH_SIZE, paginate } from '../pagination'
import { addressParam, blockParam, parseQuery, q, transactionHashParam } from '../params'
import {
    cursorId, INTERNAL_TRANSACTION_COLUMNS, internalTransactionCursor, InternalTransactionRow, LISTED,
    renderInternalTransactions, renderRawTrace,
} from '../render/internal-transaction'
import { findBlock } from './blocks'
import { findTransaction } from './transactions'

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
    res.json({ items: await renderInternalTransactions(ctx.db, shown), next_page_params: next && { ...next, ...keep } })
}

export function internalTransactionsRoutes(router: Router, ctx: ChainContext): void {
    router.get('/internal-transactions', async (req, res) => {
        const query = parseQuery(Cursor, req.query)
        const { rows } = await ctx.db.query<InternalTransactionRow>(
            `SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
              WHERE i.id < $1 AND ${LISTED} ORDER BY i.id DESC LIMIT ${FETCH_SIZE}`,
            [cursorId(query)]
        )
        setLiveCaching(res)
        await sendPage(ctx, res, rows)
    })

    router.get('/transactions/:hash/internal-transactions', async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const query = parseQuery(Cursor, req.query)
        const [tx, head] = await Promise.all([findTransaction(ctx, hash), ctx.head.get()])
        if (!tx) throw notFound()
        // Blockscout lists a transaction's frames in call order; the cursor is the last index shown.
        const { rows } = await ctx.db.query<InternalTransactionRow>(
            `SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
              WHERE i.id >= $1 AND i.id <= $2 AND ${LISTED} ORDER BY i.id LIMIT ${FETCH_SIZE}`,
            [internalTransactionId(tx.block_number, tx.index, (query.index ?? -1) + 1), internalTransactionId(tx.block_number, tx.index, 999_999)]
        )
        setBlockCaching(res, ctx, tx.block_number, head.number)
        await sendPage(ctx, res, rows)
    })

    router.get('/blocks/:block/internal-transactions', async (req, res) => {
        const ref = blockParam(req.params.block)
        const query = parseQuery(Cursor, req.query)
        const [block, head] = await Promise.all([findBlock(ctx, ref), ctx.head.get()])
        if (!block) throw notFound()
        // In call order, like a transaction's list; the cursor is the last frame shown.
        const first = query.transaction_index === undefined
            ? internalTransactionId(block.number, 0, 0)
            : internalTransactionId(block.number, query.transaction_index, (query.index ?? -1) + 1)
        const { rows } = await ctx.db.query<InternalTransactionRow>(
            `SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
              WHERE i.id >= $1 AND i.id <= $2 AND ${LISTED} ORDER BY i.id LIMIT ${FETCH_SIZE}`,
            [first, internalTransactionId(block.number, 999_999, 999_999)]
        )
        setBlockCaching(res, ctx, block.number, head.number)
        await sendPage(ctx, res, rows)
    })

    router.get('/addresses/:hash/internal-transactions', async (req, res) => {
        const address = addressParam(req.params.hash)
        const query = parseQuery(AddressQuery, req.query)
        // One keyset scan per role on its partial index, merged: each is bounded by the page size.
        const roles = query.filter === 'to' ? ['"to"'] : query.filter === 'from' ? ['"from"'] : ['"from"', '"to"', 'created_contract']
        const scans = roles.map((column) => `(SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
              WHERE i.${column} = $1 AND i.id < $2 AND ${column === 'created_contract' ? 'true' : LISTED}
              ORDER BY i.id DESC LIMIT ${FETCH_SIZE})`)
        const { rows } = await ctx.db.query<InternalTransactionRow>(
            `SELECT * FROM (${scans.join(' UNION ')}) i ORDER BY i.id DESC LIMIT ${FETCH_SIZE}`,
            [address, cursorId(query)]
        )
        setLiveCaching(res)
        await sendPage(ctx, res, rows, carried(req.query, ['filter']))
    })

    router.get('/transactions/:hash/raw-trace', async (req, res) => {
        const hash = transactionHashParam(req.params.hash)
        const [tx, head] = await Promise.all([findTransaction(ctx, hash), ctx.head.get()])
        if (!tx) throw notFound()
        // Bounded by the block's gas: every frame costs gas, so a transaction holds a few thousand at most.
        const { rows } = await ctx.db.query<InternalTransactionRow>(
            `SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
              WHERE i.id >= $1 AND i.id <= $2 ORDER BY i.id`,
            [internalTransactionId(tx.block_number, tx.index, 0), internalTransactionId(tx.block_number, tx.index, 999_999)]
        )
        setBlockCaching(res, ctx, tx.block_number, head.number)
        res.json(renderRawTrace(rows))
    })
}

/** Listed frames of a block (bounded by the block's gas), for its `internal_transactions_count`. */
export async function countBlockInternalTransactions(ctx: ChainContext, blockNumber: number): Promise<number> {
    const { rows } = await ctx.db.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM internal_transaction i WHERE i.id >= $1 AND i.id <= $2 AND ${LISTED}`,
        [internalTransactionId(blockNumber, 0, 0), internalTransactionId(blockNumber, 999_999, 999_999)]
    )
    return rows[0].count
}

/** An address's listed frames, counted up to `cap` (the tabs show "50+"). */
export async function countAddressInternalTransactions(ctx: ChainContext, address: string, cap: number): Promise<number> {
    const { rows } = await ctx.db.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM (
            (SELECT i.id FROM internal_transaction i WHERE i."from" = $1 AND ${LISTED} LIMIT ${cap})
            UNION (SELECT i.id FROM internal_transaction i WHERE i."to" = $1 AND ${LISTED} LIMIT ${cap})
            UNION (SELECT i.id FROM internal_transaction i WHERE i.created_contract = $1 LIMIT ${cap})
            LIMIT ${cap}) x`,
        [address]
    )
    return rows[0].count
}
