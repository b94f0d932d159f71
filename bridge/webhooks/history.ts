import { Pool } from 'pg'

/**
 * The delivery history of a subscription: one entry per delivery (stable id across
 * retries), newest first, each with every attempt. "Failed" means not delivered and at least one
 * attempt failed: undelivered, or pending a retry.
 */

export interface HistoryQuery {
    subscriptionId: string
    failedOnly: boolean
    limit: number
    /** Cursor: entries older than this sequence number. */
    before?: string
}

export async function deliveryHistory(pool: Pool, q: HistoryQuery): Promise<{ items: unknown[]; next_page_params: { before: string } | null }> {
    const { rows } = await pool.query(
        `SELECT d.id, d.seq, d.event_id, e.event, e.swap_id, d.state, d.attempts, d.last_status, d.last_error, d.last_attempt_at,
                d.next_attempt_at, d.lease_token IS NOT NULL AS in_flight, d.delivered_at, d.created_at
         FROM bridge_webhook_delivery d JOIN bridge_webhook_event e ON e.id = d.event_id
         WHERE d.subscription_id = $1 AND ($2::bigint IS NULL OR d.seq < $2::bigint)
           AND (NOT $3::boolean OR d.state = 'undelivered' OR (d.state = 'pending' AND d.attempts > 0))
         ORDER BY d.seq DESC LIMIT $4`,
        [q.subscriptionId, q.before ?? null, q.failedOnly, q.limit + 1]
    )
    const page = rows.slice(0, q.limit)
    const attempts = page.length
        ? (await pool.query(
            `SELECT delivery_id, attempt, started_at, duration_ms, status, error, next_attempt_at, retry_in_ms FROM bridge_webhook_attempt
             WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt, id`,
            [page.map((r) => r.id)]
        )).rows
        : []
    const iso = (d: Date | null) => d?.toISOString() ?? null
    const items = page.map((r) => ({
        id: r.id,
        event_id: r.event_id,
        event: r.event,
        swap_id: r.swap_id,
        state: r.state,
        attempts: r.attempts,
        last_status: r.last_status,
        last_error: r.last_error,
        last_attempt_at: iso(r.last_attempt_at),
        // While an attempt is in flight the column holds the end of its lease, not a scheduled time.
        next_attempt_at: r.state === 'pending' && !r.in_flight ? iso(r.next_attempt_at) : null,
        in_flight: r.state === 'pending' && r.in_flight,
        delivered_at: iso(r.delivered_at),
        created_at: iso(r.created_at),
        history: attempts.filter((a) => a.delivery_id === r.id).map((a) => ({
            attempt: a.attempt,
            started_at: iso(a.started_at),
            duration_ms: a.duration_ms,
            status: a.status,
            error: a.error,
            next_attempt_at: iso(a.next_attempt_at),
            retry_in_ms: a.retry_in_ms,
        })),
    }))
    return { items, next_page_params: rows.length > q.limit ? { before: String(page[page.length - 1].seq) } : null }
}
