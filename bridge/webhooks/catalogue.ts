/**
 * The webhook event catalogue and subscription filters. `spec: true` marks the published events a
 * receiver can rely on; the engine writes a few more (statuses without a published event, refunds,
 * reorgs), which are delivered too, marked `spec: false`, so "every event" means every lifecycle
 * event the swap history (GET /api/swap/:id/events) shows.
 */

export interface EventType {
    name: string
    meaning: string
    /** A published event receivers rely on (otherwise an addition of this implementation). */
    spec: boolean
}

/** External swap provider's legs: `simpleswap_<state>` (bridge/engine/provider-leg.ts writes them). */
export const PROVIDER_PREFIX = 'simpleswap_'
export const TEST_PING = 'test_ping'

export const EVENT_TYPES: EventType[] = [
    { name: 'deposit_wallet_created', meaning: 'A deposit address was generated (the swap was created)', spec: true },
    { name: 'source_token_deposited', meaning: 'Funds arrived at the deposit address; tx_hash is the deposit transaction', spec: true },
    { name: 'deposit_confirmed', meaning: 'The deposit reached the source chain\'s finality; tx_hash is the deposit transaction', spec: false },
    { name: 'rate_locked', meaning: 'Exchange rate fixed', spec: true },
    { name: 'gathering', meaning: 'The deposit is being moved into the source vault; tx_hash is the gather transaction', spec: false },
    { name: 'gathered', meaning: 'The deposit is in the source vault; tx_hash is the gather transaction', spec: false },
    { name: 'vault_locking', meaning: 'Source funds being locked into the vault (the payout is being reserved)', spec: true },
    { name: 'vault_locked', meaning: 'Locked; tx_hash is the gather transaction', spec: true },
    { name: 'payout_processing', meaning: 'Payout submitted; tx_hash is the payout transaction', spec: true },
    { name: 'target_token_sent', meaning: 'Payout confirmed; tx_hash is the payout transaction, amount_sent the amount paid', spec: true },
    { name: 'swap_failed', meaning: 'Could not complete; error_message says why', spec: true },
    { name: 'swap_expired', meaning: 'Deposit window closed without a deposit', spec: true },
    { name: 'refund_sent', meaning: 'The deposit of a failed swap was returned to refund_address; tx_hash is the refund transaction', spec: false },
    { name: 'refund_failed', meaning: 'The refund of a failed swap could not be sent; error_message says why', spec: false },
    { name: 'deposit_reorged', meaning: 'A reorganisation removed the detected deposit; the swap waits for a deposit again', spec: false },
    { name: 'provider_leg_held', meaning: 'The external swap provider\'s leg needs an operator (an unconfirmed exchange creation, a status the bridge does not know, a verification hold); data.reason says which', spec: false },
    { name: 'swap_held', meaning: 'The engine stopped moving the swap until an operator acts (a vault nonce used by no transaction of ours, a gathered deposit a deep reorganisation removed); data.reason says why, operator_action_required is true', spec: false },
    { name: 'late_deposit_detected', meaning: 'Funds other than the credited deposit found at the deposit address once the swap ended (a second deposit, whenever it arrived); data.amount, data.late_deposit_id, data.transfers (each transfer found to make it up: tx_hash, amount); refunded once final (data.refund says pending or held)', spec: false },
    { name: 'late_deposit_refunded', meaning: 'A late deposit was returned to refund_address; tx_hash is the refund transaction', spec: false },
    { name: 'late_deposit_held', meaning: 'A late deposit cannot be refunded automatically (no refund_address, or it could not be gathered); an operator must act', spec: false },
    { name: `${PROVIDER_PREFIX}*`, meaning: 'External swap leg state changes (prefix of the external provider; one event per provider state)', spec: true },
    { name: TEST_PING, meaning: 'Sent only by POST /api/webhook/subscriptions/:id/test; never retried', spec: true },
]

const EXACT = new Set(EVENT_TYPES.map((e) => e.name).filter((n) => !n.endsWith('*')))
const PROVIDER_EVENT = /^simpleswap_[a-z0-9_]{1,48}$/
const PATTERN = /^[a-z0-9_]{0,63}\*?$/

export class FilterError extends Error {}

/** True for a name a lifecycle event or the test route can carry. */
export function isKnownEvent(name: string): boolean {
    return EXACT.has(name) || PROVIDER_EVENT.test(name)
}

/**
 * Validates and normalises a subscription's event_types: exact names of the catalogue, or a
 * prefix ending in `*` (`*` alone is every event). A pattern that could match nothing is refused,
 * so a typo does not silently subscribe to nothing.
 */
export function parseEventTypes(list: string[]): string[] {
    const out: string[] = []
    for (const raw of list) {
        const entry = raw.trim()
        if (!PATTERN.test(entry)) throw new FilterError(`"${raw}" is not an event name or a prefix ending in * (lowercase letters, digits and _)`)
        if (entry.endsWith('*')) {
            const prefix = entry.slice(0, -1)
            const reachable = [...EXACT].some((n) => n.startsWith(prefix)) || PROVIDER_PREFIX.startsWith(prefix) || prefix.startsWith(PROVIDER_PREFIX)
            if (!reachable) throw new FilterError(`"${raw}" matches no event type (GET /api/webhook/event-types lists them)`)
        } else if (!isKnownEvent(entry)) {
            throw new FilterError(`"${raw}" is not an event type (GET /api/webhook/event-types lists them)`)
        }
        if (!out.includes(entry)) out.push(entry)
    }
    return out
}

/** Whether a subscription with these filters (null: every event) receives an event. test_ping goes only where the test route sends it. */
export function matches(filters: string[] | null, event: string): boolean {
    if (event === TEST_PING) return false
    if (filters === null) return true
    return filters.some((f) => (f.endsWith('*') ? event.startsWith(f.slice(0, -1)) : f === event))
}
