import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setLiveCaching } from '../context'
import { latestBlockKeys } from '../queries/blocks'
import { tracingMethod } from '../queries/stats'
import { latestTransactionKeys } from '../queries/transactions'
import { arrayBody } from '../rendered-items'
import { Block, chainOperation, IndexingStatus, Transaction } from '../schemas'
import { blockItems } from './blocks'
import { transactionItems } from './transactions'

const TAG = 'main-page'

/** The home page's widgets: bare arrays of the latest 4 blocks and 6 transactions, and the indexing banner. */
export function mainPageRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    router.get('/main-page/blocks', chainOperation(TAG, {
        operationId: 'listMainPageBlocks',
        summary: 'The latest 4 blocks',
    }, 'The blocks', z.array(Block)), async (_req, res) => {
        setLiveCaching(res)
        await ctx.caches.views.send(res, 'main-page/blocks', async () => arrayBody(await blockItems(ctx, await latestBlockKeys(ctx.db, 4))))
    })

    router.get('/main-page/transactions', chainOperation(TAG, {
        operationId: 'listMainPageTransactions',
        summary: 'The latest 6 transactions',
    }, 'The transactions', z.array(Transaction)), async (_req, res) => {
        setLiveCaching(res)
        await ctx.caches.views.send(res, 'main-page/transactions', async () => arrayBody(await transactionItems(ctx, await latestTransactionKeys(ctx.db, 6))))
    })

    /** The indexing banner's ratios (blocks, and internal transactions by the node's tracing): docs/chain-api.md#shape-changes */
    router.get('/main-page/indexing-status', chainOperation(TAG, {
        operationId: 'getIndexingStatus',
        summary: "The indexer's progress, for the indexing banner",
    }, 'The ratios', IndexingStatus), async (_req, res) => {
        const [head, tracing] = await Promise.all([ctx.head.get(), tracingMethod(ctx.db)])
        const expected = head.number - ctx.env.INDEXER_START_BLOCK + 1
        const ratio = expected <= 0 ? 1 : Math.min(head.blocks / expected, 1)
        const blocksRatio = ratio >= 1 ? '1' : ratio.toFixed(4)
        const traced = tracing === 'trace_block' || tracing === 'debug_traceBlockByHash'
        setLiveCaching(res)
        res.json({
            finished_indexing_blocks: ratio >= 1,
            finished_indexing: ratio >= 1,
            indexed_blocks_ratio: blocksRatio,
            indexed_internal_transactions_ratio: traced ? blocksRatio : '0',
        } satisfies z.input<typeof IndexingStatus>)
    })
}
