import { Router } from 'express'
import { z } from 'zod'
import { coinBalanceId } from '../../../db/row-ids'
import { ChainContext, setLiveCaching } from '../context'
import { decimal, isoTimestamp } from '../format'
import { FETCH_SIZE, paginate } from '../pagination'
import { addressParam, parseQuery, q } from '../params'

/**
 * An address's native balance history (table coin_balance: one point per block that changed it).
 * History ids are `<address>-<10-digit block>`, so an address's points are a primary-key range, and
 * '.' sorts right after '-' to close it.
 */

const Cursor = z.object({ block_number: q.int.optional(), items_count: q.itemsCount.optional() })

/** The days the by-day chart covers, as Blockscout's default (COIN_BALANCE_HISTORY_DAYS). */
export const BALANCE_HISTORY_DAYS = 10

export function coinBalanceHistoryRoutes(router: Router, ctx: ChainContext): void {
    router.get('/addresses/:hash/coin-balance-history', async (req, res) => {
        const address = addressParam(req.params.hash)
        const query = parseQuery(Cursor, req.query)
        const { rows } = await ctx.db.query<{ block_number: number; timestamp: Date; value: string; delta: string; transaction_hash: string | null }>(
            `SELECT block_number, timestamp, value, delta, transaction_hash FROM coin_balance
              WHERE id > $1 AND id < $2 ORDER BY id DESC LIMIT ${FETCH_SIZE}`,
            [`${address}-`, query.block_number === undefined ? `${address}.` : coinBalanceId(address, query.block_number)]
        )
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

    /**
     * The balance at the end of each of the last days, for the chart: per day one probe for the
     * day's last block and one for the address's last point at or before it, so the cost does not
     * grow with how busy the address is. Days before the address's first point are left out.
     */
    router.get('/addresses/:hash/coin-balance-history-by-day', async (req, res) => {
        const address = addressParam(req.params.hash)
        const { rows } = await ctx.db.query<{ day: string; value: string | null }>(
            `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, (SELECT c.value FROM coin_balance c
                              WHERE c.id > $1 || '-' AND c.id <= $1 || '-' || lpad(last.number::text, 10, '0')
                              ORDER BY c.id DESC LIMIT 1)::text AS value
               FROM generate_series(date_trunc('day', now() AT TIME ZONE 'UTC') - ($2::int - 1) * interval '1 day',
                                    date_trunc('day', now() AT TIME ZONE 'UTC'), interval '1 day') AS d(day)
               CROSS JOIN LATERAL (SELECT b.number FROM block b WHERE b.timestamp < (d.day + interval '1 day') AT TIME ZONE 'UTC'
                                    ORDER BY b.timestamp DESC LIMIT 1) AS last
              ORDER BY d.day`,
            [address, BALANCE_HISTORY_DAYS]
        )
        setLiveCaching(res)
        res.json({
            items: rows.filter((r) => r.value !== null).map((r) => ({ date: r.day, value: r.value })),
            days: BALANCE_HISTORY_DAYS,
        })
    })
}

