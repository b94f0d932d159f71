import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setBlockCaching, setLiveCaching } from '../context'
import { blockOr404 } from '../loaders'
import { carried, paginate } from '../pagination'
import { BlockPath, blockParam, parseQuery, q } from '../params'
import { Block, BlockDetails, chainOperation, EmptyPage, pageOf, Transaction } from '../schemas'
import { BlockKey, blockKeysBefore, blocksByIds } from '../queries/blocks'
import { countBlockFrames } from '../queries/internal-transactions'
import { blockTransactionKeys, TRANSACTION_TYPES } from '../queries/transactions'
import { blockMiners, renderBlock } from '../render/block'
import { shownAddresses } from '../render/address'
import { keptItem, listBody, RenderedItem } from '../rendered-items'
import { sendJson } from '../json-response'
import { isFirstPage } from '../head-views'
import { transactionPage } from './transactions'

const TAG = 'blocks'

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

export function blocksRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    router.get('/blocks', chainOperation(TAG, {
        operationId: 'listBlocks',
        summary: 'Blocks, newest first', query: BlocksQuery,
    }, 'A page of blocks', pageOf(Block)), async (req, res) => {
        const query = parseQuery(BlocksQuery, req.query)
        setLiveCaching(res)
        // Uncles do not exist on this chain and orphaned blocks are not kept.
        if (query.type && query.type !== 'block') return void res.json({ items: [], next_page_params: null })
        const keys = () => ctx.caches.keyPages.get(`blocks ${query.block_number}`, query.block_number, () => blockKeysBefore(ctx.db, query.block_number))
        const page = async () => blockPage(ctx, await keys(), carried(req.query, ['type']))
        if (isFirstPage(req)) return ctx.caches.views.send(res, 'blocks', page)
        sendJson(res, await page())
    })

    router.get('/blocks/:block', chainOperation(TAG, {
        operationId: 'getBlock',
        summary: 'A block by number or hash', params: BlockPath, notFound: 'block',
    }, 'The block', BlockDetails), async (req, res) => {
        const ref = blockParam(req.params.block)
        const [row, head] = await Promise.all([blockOr404(ctx.db, ref), ctx.head.get()])
        setBlockCaching(res, ctx, row.number, head.number)
        res.json({ ...renderBlock(row, blockMiners([row])(row.miner), 'single'), internal_transactions_count: await countBlockFrames(ctx.db, row.number) })
    })

    router.get('/blocks/:block/transactions', chainOperation(TAG, {
        operationId: 'listBlockTransactions',
        summary: "A block's transactions", params: BlockPath, query: BlockTransactionsQuery, notFound: 'block',
    }, 'A page of transactions', pageOf(Transaction)), async (req, res) => {
        const ref = blockParam(req.params.block)
        const query = parseQuery(BlockTransactionsQuery, req.query)
        const block = await blockOr404(ctx.db, ref)
        const keys = await blockTransactionKeys(ctx.db, { block: block.number, types: query.type, after: query.index ?? -1 })
        const page = await transactionPage(ctx, keys, undefined, carried(req.query, ['type']))
        const head = await ctx.head.get()
        setBlockCaching(res, ctx, block.number, head.number)
        sendJson(res, page)
    })

    // A tab a Blockscout frontend may open; this chain has no withdrawals.
    router.get('/blocks/:block/withdrawals', chainOperation(TAG, {
        operationId: 'listBlockWithdrawals',
        summary: "A block's withdrawals (none on this chain: always empty)", params: BlockPath, notFound: 'block',
    }, 'An empty page', EmptyPage), async (req, res) => {
        await blockOr404(ctx.db, blockParam(req.params.block))
        res.json({ items: [], next_page_params: null })
    })
}

/** A list answer of the blocks of a keyset query's rows (FETCH_SIZE of them: the last tells whether a next page exists). */
export async function blockPage(ctx: ChainContext, rows: BlockKey[], filters: Record<string, string> = {}): Promise<Buffer> {
    const { rows: shown, next } = paginate(rows, (b) => ({ block_number: b.number }), undefined, filters)
    return listBody(await blockItems(ctx, shown), next)
}

/** The rendered list items of blocks, in the order of their keys: reused from ctx.caches.rendered, the others read and rendered with one query. */
export async function blockItems(ctx: ChainContext, keys: readonly BlockKey[]): Promise<RenderedItem[]> {
    const keyOf = (b: BlockKey) => `b${b.id}`
    return ctx.caches.rendered.items(keys, keyOf, async (missing) => {
        const rows = await blocksByIds(ctx.db, missing.map((b) => b.id))
        const miner = blockMiners(rows)
        return new Map(rows.map((b) => [keyOf(b), keptItem(renderBlock(b, miner(b.miner), 'list'), shownAddresses(b, [['miner', 'miner']]))]))
    })
}
