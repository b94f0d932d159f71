import { coinBalanceId } from '../../../db/row-ids'
import { Db } from '../db'
import { FETCH_SIZE } from '../pagination'

/**
 * Reads of the indexer's `coin_balance` table: an address's native balance history, one point per
 * block that changed it. History ids are `<address>-<10-digit block>` (db/row-ids.ts), so an
 * address's points are a primary-key range, and '.' sorts right after '-' to close it.
 */

/** SQL: the ids (of `coin_balance c`) of the points of `address` (an SQL text expression). */
function pointsOf(address: string): string {
    return `c.id > ${address} || '-' AND c.id < ${address} || '.'`
}

/** SQL: the ids of the points of `address` in blocks `cmp` `block` (SQL expressions). */
function pointsBefore(address: string, cmp: '<' | '<=', block: string): string {
    return `c.id > ${address} || '-' AND c.id ${cmp} ${address} || '-' || lpad(${block}::text, 10, '0')`
}

export interface CoinBalanceRow {
    block_number: number
    timestamp: Date
    value: string
    delta: string
    transaction_hash: string | null
}

/** A page of an address's history points before block `before` (none: from the newest), newest first. */
export async function balanceHistory(db: Db, address: string, before: number | undefined): Promise<CoinBalanceRow[]> {
    const { rows } = await db.query<CoinBalanceRow>(
        `SELECT block_number, timestamp, value, delta, transaction_hash FROM coin_balance
          WHERE id > $1 AND id < $2 ORDER BY id DESC LIMIT ${FETCH_SIZE}`,
        [`${address}-`, before === undefined ? `${address}.` : coinBalanceId(address, before)]
    )
    return rows
}

/**
 * The balance at the end of each of the last `days` UTC days, oldest first: per day one probe for
 * the day's last block and one for the address's last point at or before it, so the cost does not
 * grow with how busy the address is. A day before the address's first point has a null value.
 */
export async function balanceByDay(db: Db, address: string, days: number): Promise<{ day: string; value: string | null }[]> {
    const { rows } = await db.query<{ day: string; value: string | null }>(
        `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, (SELECT c.value FROM coin_balance c
                          WHERE ${pointsBefore('$1', '<=', 'last.number')}
                          ORDER BY c.id DESC LIMIT 1)::text AS value
           FROM generate_series(date_trunc('day', now() AT TIME ZONE 'UTC') - ($2::int - 1) * interval '1 day',
                                date_trunc('day', now() AT TIME ZONE 'UTC'), interval '1 day') AS d(day)
           CROSS JOIN LATERAL (SELECT b.number FROM block b WHERE b.timestamp < (d.day + interval '1 day') AT TIME ZONE 'UTC'
                                ORDER BY b.timestamp DESC LIMIT 1) AS last
          ORDER BY d.day`,
        [address, days]
    )
    return rows
}

/**
 * Each address's coin balance at the end of block − 1: its last history point before the block;
 * without one, its first point's balance before that point's change; without any point, its
 * balance never changed and is the indexed one.
 */
export async function balancesBefore(db: Db, addresses: string[], blockNumber: number): Promise<Map<string, bigint>> {
    const { rows } = await db.query<{ address: string; value: string }>(
        `SELECT a.address, COALESCE(
                (SELECT c.value FROM coin_balance c WHERE ${pointsBefore('a.address', '<', '$2')}
                  ORDER BY c.id DESC LIMIT 1),
                (SELECT c.value - c.delta FROM coin_balance c WHERE ${pointsOf('a.address')}
                  ORDER BY c.id LIMIT 1),
                (SELECT x.balance FROM address x WHERE x.id = a.address), 0)::text AS value
           FROM unnest($1::text[]) AS a(address)`,
        [addresses, blockNumber]
    )
    return new Map(rows.map((r) => [r.address, BigInt(r.value)]))
}
