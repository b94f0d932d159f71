import { Router } from 'express'
import { z } from 'zod'
import { logId } from '../../../db/row-ids'
import { ChainContext, setLiveCaching } from '../context'
import { carried, paginateTransfers } from '../pagination'
import { parseQuery, q } from '../params'
import { renderTokenTransfers, TOKEN_TRANSFER_COLUMNS, TOKEN_TRANSFER_JOIN, TokenTransferRow } from '../render/token-transfer'
import { TOKEN_TYPES } from './transactions'

const TokenTransfersQuery = z.object({
    type: q.list(TOKEN_TYPES).optional(),
    limit: q.int.refine((n) => n >= 1 && n <= 50, 'must be between 1 and 50').optional(),
    block_number: q.int.optional(),
    index: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

/** Log indexes beyond this do not fit the id's six digits (db/row-ids.ts). */
const MAX_LOG_INDEX = 999_999
/**
 * Above every id: the first page's bound. A bound that is always there keeps the condition an
 * index bound in the prepared statement's generic plan (an `IS NULL OR` would scan from the end).
 */
const AFTER_ALL = logId(9_999_999_999, MAX_LOG_INDEX)

/**
 * The id of the cursor transfer: the page holds the transfers before it. A log index too large to
 * exist resumes at the block's end.
 */
function idBefore(blockNumber: number, index: number): string {
    return index > MAX_LOG_INDEX ? logId(blockNumber + 1, 0) : logId(blockNumber, index)
}

export function tokenTransfersRoutes(router: Router, ctx: ChainContext): void {
    /**
     * Every token transfer of the chain, newest first. The id is the zero-padded (block, log
     * index), so the order is a backward scan of the primary key from the cursor. A `type` filter
     * is a condition on that scan: a rare type (NFTs on an ERC-20-heavy chain) reads further to
     * fill its page.
     */
    router.get('/token-transfers', async (req, res) => {
        const query = parseQuery(TokenTransfersQuery, req.query)
        const pageSize = query.limit ?? 50
        const types = query.type && query.type.length > 0 ? query.type : null
        const before = query.block_number === undefined ? AFTER_ALL : idBefore(query.block_number, query.index ?? MAX_LOG_INDEX + 1)
        const { rows } = await ctx.db.query<TokenTransferRow>(
            `SELECT ${TOKEN_TRANSFER_COLUMNS} FROM token_transfer tt ${TOKEN_TRANSFER_JOIN}
              WHERE tt.id < $1 AND ($2::text[] IS NULL OR tt.token_type = ANY($2))
              ORDER BY tt.id DESC LIMIT ${pageSize + 1}`,
            [before, types]
        )
        const { rows: shown, next } = paginateTransfers(rows, carried(req.query, ['type', 'limit']), pageSize)
        setLiveCaching(res)
        res.json({ items: await renderTokenTransfers(ctx.db, shown), next_page_params: next })
    })
}
