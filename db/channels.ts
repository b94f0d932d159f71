/**
 * Postgres NOTIFY channels between processes. Every replica LISTENs itself, so live updates fan
 * out across any number of api processes without another message bus.
 */

/** The indexer announces each commit: the new indexed head and how many blocks the commit added. */
export const HEAD_CHANNEL = 'chain_head'

export interface HeadNotification {
    number: number
    hash: string
    blocks: number
}

/**
 * The bridge announces each swap lifecycle event, in the transaction that writes it (so listeners
 * never see an event that was rolled back). Every bridge replica pushes it to its WebSocket
 * subscribers; the row in bridge_swap_event (same id) stays the source of truth for catch-up.
 */
export const BRIDGE_EVENT_CHANNEL = 'bridge_event'

export interface BridgeEventNotification {
    id: string
    swap_id: string
    event: string
    status: string
    tx_hash: string | null
    created_at: string
    /** Lowercase addresses the swap concerns (deposit, target wallet, refund), for address topics. */
    addresses: string[]
}

/**
 * The bridge's webhook queue has deliveries due now that no lifecycle event announced (a manual
 * retry, a re-enabled subscription): every replica's dispatcher wakes instead of waiting for its poll.
 */
export const BRIDGE_WEBHOOK_CHANNEL = 'bridge_webhook'

/**
 * The api announces each finished contract verification (docs/contract-verification.md): every
 * replica pushes Blockscout's `verification_result` to the sockets on the address's channel,
 * whichever replica compiled it.
 */
export const VERIFICATION_CHANNEL = 'contract_verification'

export interface VerificationNotification {
    address: string
    status: 'success' | 'error'
    /** why it failed */
    reason?: string
}
