import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setLiveCaching } from '../context'
import { carried, paginateTransfers } from '../pagination'
import { parseQuery, q } from '../params'
import { chainTransfers, TOKEN_TYPES } from '../queries/token-transfers'
import { related } from '../queries/related'
import { renderTokenTransfers, tokenTransferRefs } from '../render/token-transfer'
import { chainOperation, pageOf, TokenTransfer } from '../schemas'

const TokenTransfersQuery = z.object({
    type: q.list(TOKEN_TYPES).optional(),
    limit: q.int.refine((n) => n >= 1 && n <= 50, 'must be between 1 and 50').optional(),
    block_number: q.int.optional(),
    index: q.int.optional(),
    index_in_batch: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

export function tokenTransfersRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    /** Every token transfer of the chain, newest first (see chainTransfers). */
    router.get('/token-transfers', chainOperation('token-transfers', {
        operationId: 'listTokenTransfers',
        summary: 'Token transfers of the whole chain, newest first', query: TokenTransfersQuery,
    }, 'A page of token transfers', pageOf(TokenTransfer)), async (req, res) => {
        const query = parseQuery(TokenTransfersQuery, req.query)
        const pageSize = query.limit ?? 50
        const types = query.type && query.type.length > 0 ? query.type : null
        const rows = await chainTransfers(ctx.db, query, types, pageSize)
        const { rows: shown, next } = paginateTransfers(rows, carried(req.query, ['type', 'limit']), pageSize)
        setLiveCaching(res)
        res.json({ items: renderTokenTransfers(shown, await related(ctx.db, tokenTransferRefs(shown))), next_page_params: next })
    })
}
