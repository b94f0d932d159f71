import { Router } from 'express'
import { z } from 'zod'
import { ChainContext, setBlockCaching, setLiveCaching } from '../context'
import { notFound } from '../errors'
import { carried, paginate, FETCH_SIZE } from '../pagination'
import { blockParam, BlockRef, parseQuery, q } from '../params'
import { BLOCK_COLUMNS, BLOCK_KEY_COLUMNS, BLOCK_SINGLE_COLUMNS, BlockKey, blockMiners, BlockRow, renderBlock } from '../render/block'
import { listBody, rendered, RenderedItem } from '../rendered-items'
import { sendJson } from '../json-response'
import { countBlockInternalTransactions } from './internal-transactions'
import { listTransactions, TransactionFilter, TRANSACTION_TYPES } from './transactions'

const BlocksQuery = z.object({
    type: z.enum(['block', 'uncle', 'reorg']).optional(),
    block_number: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

const BlockTransactionsQuery = z.object({
    type: q.list(TRANSACTION_TYPES).optional(),
    block_number: q.int.optional(),
    index: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

/** The consensus block by number or hash; reorged-away blocks are deleted by the indexer, so never found. */
export async function findBlock(ctx: ChainContext, ref: BlockRef): Promise<BlockRow | undefined> {
    const where = 'number' in ref ? 'b.number = $1' : 'b.id = $1'
    const { rows } = await ctx.db.query<BlockRow>(`SELECT ${BLOCK_SINGLE_COLUMNS} FROM block b WHERE ${where}`, [
        'number' in ref ? ref.number : ref.hash,
    ])
    return rows[0]
}

export function blocksRoutes(router: Router, ctx: ChainContext): void {
    router.get('/blocks', async (req, res) => {
        const query = parseQuery(BlocksQuery, req.query)
        setLiveCaching(res)
        // Uncles do not exist on this chain and orphaned blocks are not kept.
        if (query.type && query.type !== 'block') return void res.json({ items: [], next_page_params: null })
        const { rows } = await ctx.db.query<BlockKey>(
            `SELECT ${BLOCK_KEY_COLUMNS} FROM block b WHERE b.number < $1 ORDER BY b.number DESC LIMIT ${FETCH_SIZE}`,
            [query.block_number ?? 2_147_483_647]
        )
        sendJson(res, await blockPage(ctx, rows, carried(req.query, ['type'])))
    })

    router.get('/blocks/:block', async (req, res) => {
        const ref = blockParam(req.params.block)
        const [row, head] = await Promise.all([findBlock(ctx, ref), ctx.head.get()])
        if (!row) throw notFound()
        setBlockCaching(res, ctx, row.number, head.number)
        res.json({ ...renderBlock(row, blockMiners([row])(row.miner), 'single'), internal_transactions_count: await countBlockInternalTransactions(ctx, row.number) })
    })

    router.get('/blocks/:block/transactions', async (req, res) => {
        const ref = blockParam(req.params.block)
        const query = parseQuery(BlockTransactionsQuery, req.query)
        const block = await findBlock(ctx, ref)
        if (!block) throw notFound()
        const filter: TransactionFilter = { block: block.number, types: query.type, after: query.index ?? -1 }
        const page = await listTransactions(ctx, filter, carried(req.query, ['type']))
        const head = await ctx.head.get()
        setBlockCaching(res, ctx, block.number, head.number)
        sendJson(res, page)
    })

    // A tab a Blockscout frontend may open; this chain has no withdrawals.
    router.get('/blocks/:block/withdrawals', async (req, res) => {
        const block = await findBlock(ctx, blockParam(req.params.block))
        if (!block) throw notFound()
        res.json({ items: [], next_page_params: null })
    })
}

/** A list answer of the blocks of a keyset query's rows (FETCH_SIZE of them: the last tells whether a next page exists). */
export async function blockPage(ctx: ChainContext, rows: BlockKey[], filters: Record<string, string> = {}): Promise<Buffer> {
    const { rows: shown, next } = paginate(rows, (b) => ({ block_number: b.number }), undefined, filters)
    return listBody(await blockItems(ctx, shown), next)
}

/** The rendered list items of blocks, in the order of their keys: reused from ctx.rendered, the others read and rendered with one query. */
export async function blockItems(ctx: ChainContext, keys: readonly BlockKey[]): Promise<RenderedItem[]> {
    const keyOf = (b: BlockKey) => `b${b.id}`
    return ctx.rendered.items(keys, keyOf, async (missing) => {
        const { rows } = await ctx.db.query<BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM block b WHERE b.id = ANY($1::text[])`, [missing.map((b) => b.id)])
        const miner = blockMiners(rows)
        return new Map(rows.map((b) => [keyOf(b), rendered(renderBlock(b, miner(b.miner), 'list'))]))
    })
}
