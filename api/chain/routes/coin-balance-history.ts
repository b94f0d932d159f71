import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setLiveCaching } from '../context'
import { decimal, isoTimestamp } from '../format'
import { paginate } from '../pagination'
import { AddressPath, addressParam, parseQuery, q } from '../params'
import { balanceByDay, balanceHistory } from '../queries/coin-balances'
import { chainOperation, CoinBalanceByDay, CoinBalancePoint, pageOf } from '../schemas'

/** An address's native balance history (queries/coin-balances.ts). */

const Cursor = z.object({ block_number: q.int.optional(), items_count: q.itemsCount.optional() })

/** The days the by-day chart covers, as Blockscout's default (COIN_BALANCE_HISTORY_DAYS). */
export const BALANCE_HISTORY_DAYS = 10

export function coinBalanceHistoryRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    router.get('/addresses/:hash/coin-balance-history', chainOperation('addresses', {
        operationId: 'listAddressCoinBalanceHistory',
        summary: "An address's coin balance changes, newest first", params: AddressPath, query: Cursor,
    }, 'A page of balance points', pageOf(CoinBalancePoint)), async (req, res) => {
        const address = addressParam(req.params.hash)
        const query = parseQuery(Cursor, req.query)
        const rows = await balanceHistory(ctx.db, address, query.block_number)
        const { rows: shown, next } = paginate(rows, (r) => ({ block_number: r.block_number }))
        setLiveCaching(res)
        res.json({
            items: shown.map((r) => ({
                transaction_hash: r.transaction_hash,
                block_number: r.block_number,
                block_timestamp: isoTimestamp(r.timestamp),
                delta: decimal(r.delta),
                value: decimal(r.value),
            }) satisfies z.input<typeof CoinBalancePoint>),
            next_page_params: next,
        })
    })

    /** The balance at the end of each of the last days, for the chart; days before the address's first point are left out. */
    router.get('/addresses/:hash/coin-balance-history-by-day', chainOperation('addresses', {
        operationId: 'listAddressCoinBalanceByDay',
        summary: "An address's coin balance at the end of each of the last days", params: AddressPath,
    }, 'The days', CoinBalanceByDay), async (req, res) => {
        const address = addressParam(req.params.hash)
        const rows = await balanceByDay(ctx.db, address, BALANCE_HISTORY_DAYS)
        setLiveCaching(res)
        res.json({
            items: rows.filter((r): r is typeof r & { value: string } => r.value !== null).map((r) => ({ date: r.day, value: r.value })),
            days: BALANCE_HISTORY_DAYS,
        } satisfies z.input<typeof CoinBalanceByDay>)
    })
}
