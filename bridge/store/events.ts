import { Db } from '../db'
import { SwapStatus } from '../engine/statuses'

/**
 * bridge_swap_event: every statement on a swap's event history, the outbox its consumers read
 * (the WebSocket, the webhook dispatcher). Rows are only ever added, by lifecycle.ts's writeEvent
 * inside the transaction that changes the swap.
 */

export interface SwapEvent {
    id: string
    event: string
    status: SwapStatus
    txHash: string | null
    data: Record<string, unknown>
    createdAt: Date
}

/** Adds an event to a swap's history; its id and time. */
export async function insertEvent(db: Db, swapId: string, event: string, status: SwapStatus, txHash: string | null, data: Record<string, unknown>): Promise<{ id: string; createdAt: Date }> {
    const { rows } = await db.query(
        `INSERT INTO bridge_swap_event (swap_id, event, status, tx_hash, data) VALUES ($1, $2, $3, $4, $5) RETURNING id, created_at`,
        [swapId, event, status, txHash, JSON.stringify(data)]
    )
    return { id: String(rows[0].id), createdAt: rows[0].created_at }
}

/** A swap's events, oldest first. */
export async function eventsOf(db: Db, swapId: string): Promise<SwapEvent[]> {
    const { rows } = await db.query(
        'SELECT id, event, status, tx_hash, data, created_at FROM bridge_swap_event WHERE swap_id = $1 ORDER BY id',
        [swapId]
    )
    return rows.map(mapEvent)
}

/** The events of these ids, by id; an id whose event is gone (its swap was deleted) is absent. */
export async function eventsById(db: Db, ids: string[]): Promise<Map<string, SwapEvent>> {
    if (ids.length === 0) return new Map()
    const { rows } = await db.query(
        'SELECT id, event, status, tx_hash, data, created_at FROM bridge_swap_event WHERE id = ANY($1::bigint[])',
        [ids]
    )
    return new Map(rows.map((r) => [String(r.id), mapEvent(r)]))
}

/**
 * A swap's status and its latest event id, read together (one statement, one snapshot): where a
 * subscriber starts. Undefined when there is no such swap.
 */
export async function statusAndLastEvent(db: Db, swapId: string): Promise<{ status: SwapStatus; lastEventId: string | null } | undefined> {
    const { rows } = await db.query(
        `SELECT status, (SELECT max(id) FROM bridge_swap_event WHERE swap_id = s.id)::text AS last FROM bridge_swap s WHERE id = $1`, [swapId]
    )
    return rows[0] ? { status: rows[0].status, lastEventId: rows[0].last } : undefined
}

function mapEvent(r: any): SwapEvent {
    return { id: String(r.id), event: r.event, status: r.status, txHash: r.tx_hash, data: r.data, createdAt: r.created_at }
}
