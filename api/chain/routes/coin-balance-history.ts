import { DocumentedRouter } from '../../../common/service/api-doc'
import { z } from 'zod'
import { ChainContext, setLiveCaching } from '../context'
import { decimal, isoTimestamp } from '../format'
import { paginate } from '../pagination'
import { AddressPath, addressParam, parseQuery, q } from '../params'
import { balanceByDay, balanceHistory } from '../queries/coin-balances'
import { answer, CoinBalanceByDay, CoinBalancePoint, page } from '../schemas'

/** An address's native balance history (queries/coin-balances.ts). */

const Cursor = z.object({ block_number: q.int.optional(), items_count: q.itemsCount.optional() })

/** The days the by-day chart covers, as Blockscout's default (COIN_BALANCE_HISTORY_DAYS). */
export const BALANCE_HISTORY_DAYS = 10

export function coinBalanceHistoryRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    router.get('/addresses/:hash/coin-balance-history', {
        summary: "An address's coin balance changes, newest first",
        tags: ['addresses'],
        params: AddressPath,
        query: Cursor,
        responses: { 200: answer.ok('A page of balance points', page(CoinBalancePoint)), 422: answer.invalid, 503: answer.timeout },
    }, async (req, res) => {
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
            })),
            next_page_params: next,
        })
    })

    /** The balance at the end of each of the last days, for the chart; days before the address's first point are left out. */
    router.get('/addresses/:hash/coin-balance-history-by-day', {
        summary: "An address's coin balance at the end of each of the last days",
        tags: ['addresses'],
        params: AddressPath,
        responses: { 200: answer.ok('The days', CoinBalanceByDay), 422: answer.invalid, 503: answer.timeout },
    }, async (req, res) => {
        const address = addressParam(req.params.hash)
        const rows = await balanceByDay(ctx.db, address, BALANCE_HISTORY_DAYS)
        setLiveCaching(res)
        res.json({
            items: rows.filter((r) => r.value !== null).map((r) => ({ date: r.day, value: r.value })),
            days: BALANCE_HISTORY_DAYS,
        })
    })
}

