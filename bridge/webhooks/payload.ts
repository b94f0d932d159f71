import { TEST_PING } from './catalogue'

/**
 * The delivery body (docs/bridge/webhooks.md#delivery), built once when the event is recorded and stored
 * as the exact bytes sent, so every retry and every replica sends (and signs) the same body.
 * Besides the six published fields: `error_message` (swap_failed, refund_failed), `event_id` (equal
 * to the webhook-id header, the receiver's deduplication key) and `data`, the event's detail as
 * GET /api/swap/:id/events shows it.
 */

export interface SwapEventRow {
    event: string
    swap_id: string
    status: string
    tx_hash: string | null
    data: Record<string, unknown> | null
    created_at: Date
}

export function swapEventBody(eventId: string, row: SwapEventRow): string {
    const data = row.data ?? {}
    const reason = typeof data.reason === 'string' ? data.reason : null
    return JSON.stringify({
        event: row.event,
        timestamp: row.created_at.toISOString(),
        swap_id: row.swap_id,
        tx_hash: row.tx_hash,
        status: row.status,
        amount_sent: typeof data.amount_sent === 'string' ? data.amount_sent : null,
        error_message: row.event === 'swap_failed' || row.event === 'refund_failed' ? reason : null,
        event_id: eventId,
        data,
    })
}

export function testPingBody(eventId: string, subscriptionId: string, at: Date): string {
    return JSON.stringify({
        event: TEST_PING,
        timestamp: at.toISOString(),
        swap_id: null,
        tx_hash: null,
        status: null,
        amount_sent: null,
        error_message: null,
        event_id: eventId,
        data: { subscription_id: subscriptionId, message: 'test delivery from the bridge; no swap is involved' },
    })
}
