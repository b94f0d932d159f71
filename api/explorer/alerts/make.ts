import { Pool } from 'pg'
import { inTransaction } from '../../../db/transaction'
import { ALERT_SWITCHES, AlertTransferKind } from '../watchlist'

/** Turning final blocks into alert rows: docs/explorer-api.md#watchlist-alerts */

/** Most final blocks one pass turns into alerts, so a long pause catches up in bounded steps. */
const BLOCKS_PER_PASS = 500

export interface AlertTransfer {
    kind: AlertTransferKind
    direction: 'incoming' | 'outgoing'
    counterparty: string
    /** Base units (coin, ERC-20), how many of the id (ERC-1155); null for an ERC-721. */
    value: string | null
    token: string | null
    token_id: string | null
    symbol: string | null
    decimals: number | null
    tx_hash: string
}

/**
 * The coin moved by successful transactions and the token transfers of blocks $1..$2 that touch an
 * address of $3, once per side a watched address is on (a transfer to oneself is both), with the
 * entry's switches. Both tables are read through their (from, block) and (to, block) indexes.
 */
const MATCHES = `
    WITH moves AS (
        SELECT t.block_number, 'native' AS kind, t."from", t."to", t.value, NULL::text AS token, NULL::numeric AS token_id, t.id AS tx_hash, t.index AS position
        FROM "transaction" t
        WHERE (t."from" = ANY($3) OR t."to" = ANY($3)) AND t.block_number BETWEEN $1 AND $2 AND t.value > 0 AND t.status = 1
        UNION ALL
        SELECT tt.block_number, tt.token_type, tt."from", tt."to", tt.value, tt.token, tt.token_id, tt.transaction_hash, tt.log_index
        FROM token_transfer tt
        WHERE (tt."from" = ANY($3) OR tt."to" = ANY($3)) AND tt.block_number BETWEEN $1 AND $2
    )
    SELECT w.account_id, w.address, m.block_number, m.kind, d.direction, d.counterparty, m.value::text AS value, m.token,
           m.token_id::text AS token_id, m.tx_hash, k.symbol, k.decimals,
           w.notify_native_incoming, w.notify_native_outgoing, w.notify_erc20_incoming, w.notify_erc20_outgoing,
           w.notify_erc721_incoming, w.notify_erc721_outgoing
    FROM moves m
    CROSS JOIN LATERAL (VALUES ('incoming', m."to", m."from"), ('outgoing', m."from", m."to")) AS d(direction, party, counterparty)
    JOIN explorer_watchlist w ON w.address = d.party AND w.notify_email AND m.block_number >= w.alerts_from_block
    LEFT JOIN token k ON k.id = m.token
    ORDER BY m.block_number, m.position, d.direction`

interface MatchRow extends Omit<AlertTransfer, 'kind' | 'direction'> {
    account_id: string
    address: string
    block_number: number
    kind: string
    direction: 'incoming' | 'outgoing'
    [flag: `notify_${string}`]: boolean
}

/**
 * Makes the alerts of the final blocks after the cursor (the indexer's final height is Subsquid's
 * status row; unfinalized blocks may still be undone, and a mail cannot be). One replica at a
 * time: the cursor row is locked, and a replica that finds it locked skips this pass. An account
 * past `dailyCap` alerts in 24 hours gets its further alerts recorded as `capped`, not mailed.
 * Returns how many alerts it made.
 */
export async function makeAlerts(pool: Pool, dailyCap: number): Promise<number> {
    return inTransaction(pool, async (db) => {
        const final = (await db.query<{ height: number }>('SELECT height FROM squid_processor.status WHERE id = 0')).rows[0]?.height
        if (final === undefined) return 0
        const cursor = (await db.query<{ block_number: number }>('SELECT block_number FROM explorer_alert_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED')).rows[0]
        if (!cursor) {
            // First pass ever (or another replica holds it): alerts start at what is final now.
            await db.query('INSERT INTO explorer_alert_cursor (id, block_number) VALUES (1, $1) ON CONFLICT DO NOTHING', [final])
            return 0
        }
        if (cursor.block_number >= final) return 0
        const from = cursor.block_number + 1
        const to = Math.min(final, cursor.block_number + BLOCKS_PER_PASS)
        const watched = (await db.query<{ address: string }>('SELECT DISTINCT address FROM explorer_watchlist WHERE notify_email')).rows.map((r) => r.address)
        let made = 0
        if (watched.length) {
            const { rows } = await db.query<MatchRow>(MATCHES, [from, to, watched])
            const alerts = new Map<string, { account: string; address: string; block: number; transfers: AlertTransfer[] }>()
            for (const row of rows) {
                const kind = row.kind as AlertTransferKind
                if (!(kind in ALERT_SWITCHES) || !row[`notify_${ALERT_SWITCHES[kind]}_${row.direction}`]) continue
                const key = `${row.account_id}/${row.address}/${row.block_number}`
                let alert = alerts.get(key)
                if (!alert) alerts.set(key, alert = { account: row.account_id, address: row.address, block: row.block_number, transfers: [] })
                alert.transfers.push({
                    kind, direction: row.direction, counterparty: row.counterparty, value: row.value, token: row.token,
                    token_id: row.token_id, symbol: row.symbol, decimals: row.decimals, tx_hash: row.tx_hash,
                })
            }
            if (alerts.size) {
                const accounts = [...new Set([...alerts.values()].map((a) => a.account))]
                const { rows: counts } = await db.query<{ account_id: string; n: number }>(
                    `SELECT account_id, count(*)::int AS n FROM explorer_alert
                     WHERE account_id = ANY($1) AND created_at > now() - interval '1 day' AND state <> 'capped' GROUP BY account_id`,
                    [accounts]
                )
                const today = new Map(counts.map((c) => [c.account_id, c.n]))
                const list = [...alerts.values()]
                const states = list.map((a) => {
                    const n = today.get(a.account) ?? 0
                    today.set(a.account, n + 1)
                    return n < dailyCap ? 'pending' : 'capped'
                })
                const inserted = await db.query(
                    `INSERT INTO explorer_alert (account_id, address, block_number, transfers, state)
                     SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::jsonb[], $5::text[])
                     ON CONFLICT DO NOTHING`,
                    [list.map((a) => a.account), list.map((a) => a.address), list.map((a) => a.block), list.map((a) => JSON.stringify(a.transfers)), states]
                )
                made = inserted.rowCount ?? 0
            }
        }
        await db.query('UPDATE explorer_alert_cursor SET block_number = $1 WHERE id = 1', [to])
        return made
    })
}
