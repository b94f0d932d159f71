import { Pool, PoolClient } from 'pg'
import { Histogram } from 'prom-client'
import { registry } from '../../common/service/metrics'
import { BRIDGE_EVENT_CHANNEL, BridgeEventNotification } from '../../db/channels'
import { inTransaction } from '../db'
import { OUR_PROVIDER_STATUSES } from '../providers/status'
import { insertEvent } from '../store/events'
import { Columns, moveSwap, Swap, updateSwap } from '../store/swaps'
import { FINAL_STATUSES, ProviderLegStatus, STATUSES, SwapStatus } from './statuses'

/**
 * The swap state machine (docs/bridge/lifecycle.md) and the only code that changes a swap's
 * status. Every transition is one database transaction that (1) moves the status, guarded by the
 * status it expects, so two workers can never both make the same move, (2) writes the event row,
 * and (3) NOTIFYs it. The event table is therefore the complete, ordered history, and the outbox
 * any consumer (the WebSocket now, the webhook dispatcher later) reads from: a NOTIFY is delivered
 * only if its transaction commits, and a consumer that missed one catches up by event id. Once
 * committed, the move is timed from the deposit (the bridge_swap_seconds_since_deposit metric).
 */

/** The event written when a swap enters a status, under the webhook catalogue's name where it has one (bridge/webhooks/catalogue.ts). */
export const EVENT_OF_STATUS: Record<SwapStatus, string> = {
    pending_deposit: 'deposit_wallet_created',
    deposit_detected: 'source_token_deposited',
    deposit_confirmed: 'deposit_confirmed',
    rate_locked: 'rate_locked',
    gathering: 'gathering',
    gathered: 'gathered',
    vault_locking: 'vault_locking',
    vault_locked: 'vault_locked',
    payout_processing: 'payout_processing',
    completed: 'target_token_sent',
    failed: 'swap_failed',
    expired: 'swap_expired',
    ...Object.fromEntries(OUR_PROVIDER_STATUSES.map((s) => [s, s])) as Record<ProviderLegStatus, string>,
}

/**
 * Events that do not change the status: the refund of a failed swap, a deposit undone by a reorg,
 * a provider leg that needs an operator (held: an uncertain create, a status the table does
 * not know, or verification at the provider), a swap held for an operator (hold.ts), and deposits
 * other than the credited one, refunded once the swap ended (late.ts).
 */
export const OTHER_EVENTS = [
    'refund_sent', 'refund_failed', 'deposit_reorged', 'provider_leg_held', 'swap_held',
    'late_deposit_detected', 'late_deposit_refunded', 'late_deposit_held',
] as const

/** Every event type a swap can produce, in lifecycle order (also the future webhook catalogue's swap part). */
export const EVENT_TYPES = [...STATUSES.map((s) => EVENT_OF_STATUS[s]), ...OTHER_EVENTS]

/** Allowed moves. failed is reachable until the payout is known to have landed. */
const NEXT: Record<SwapStatus, SwapStatus[]> = {
    pending_deposit: ['deposit_detected', 'expired'],
    deposit_detected: ['deposit_confirmed', 'pending_deposit', 'failed'],
    deposit_confirmed: ['rate_locked', 'failed'],
    rate_locked: ['gathering', 'failed'],
    gathering: ['gathered', 'failed'],
    gathered: ['vault_locking', 'failed', ...OUR_PROVIDER_STATUSES],
    vault_locking: ['vault_locked', 'failed'],
    vault_locked: ['payout_processing', 'failed'],
    payout_processing: ['completed', 'failed'],
    completed: [],
    failed: [],
    expired: [],
    // The provider may skip statuses or report them out of order; it decides, we follow.
    ...Object.fromEntries(OUR_PROVIDER_STATUSES.map((s) => [s, [...OUR_PROVIDER_STATUSES.filter((o) => o !== s), 'vault_locking', 'failed']])) as Record<ProviderLegStatus, SwapStatus[]>,
}

export interface EventInput {
    event: string
    txHash?: string | null
    data?: Record<string, unknown>
}

export class TransitionError extends Error {}

/** How long swaps take from their deposit to each status, for GET /metrics: docs/operations.md#bridge */
const sinceDeposit = new Histogram({
    name: 'bridge_swap_seconds_since_deposit',
    help: "Seconds from the deposit's block time on the source chain to the swap entering each status, by status and source chain",
    labelNames: ['status', 'source_chain'] as const,
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 21600, 86400],
    registers: [registry],
})

/**
 * Observed once per transition, by the process that made it, after it committed. Transitions before
 * the deposit is seen (and swaps that never got one) have no deposit time and are not counted.
 */
function swapEnteredStatus(swap: Swap): void {
    if (!swap.depositBlockTime) return
    // A source chain's clock may run slightly ahead of ours: such a moment counts as no time at all.
    sinceDeposit.observe({ status: swap.status, source_chain: swap.sourceChain }, Math.max(0, (Date.now() - swap.depositBlockTime.getTime()) / 1000))
}

/** Writes an event row of a swap and announces it, inside the caller's transaction. */
export async function writeEvent(client: PoolClient, swap: Swap, input: EventInput): Promise<void> {
    const written = await insertEvent(client, swap.id, input.event, swap.status, input.txHash ?? null, input.data ?? {})
    const notification: BridgeEventNotification = {
        id: written.id,
        swap_id: swap.id,
        event: input.event,
        status: swap.status,
        tx_hash: input.txHash ?? null,
        created_at: written.createdAt.toISOString(),
        addresses: [...new Set([swap.depositAddress, swap.targetWallet, swap.refundAddress].filter((a): a is string => !!a).map((a) => a.toLowerCase()))],
    }
    await client.query('SELECT pg_notify($1, $2)', [BRIDGE_EVENT_CHANNEL, JSON.stringify(notification)])
}

/**
 * Moves a swap from one of `from` to `to`, setting `set`, with the status's event (its tx hash and
 * data from `event`). Returns the updated swap, or undefined when the swap was no longer in one of
 * `from` (another worker moved it first): the caller then simply stops.
 */
export async function transition(
    pool: Pool,
    id: string,
    from: SwapStatus | SwapStatus[],
    to: SwapStatus,
    options: { set?: Columns; txHash?: string | null; data?: Record<string, unknown>; event?: string } = {}
): Promise<Swap | undefined> {
    const fromList = Array.isArray(from) ? from : [from]
    for (const f of fromList) {
        if (!NEXT[f].includes(to)) throw new TransitionError(`no transition from ${f} to ${to}`)
    }
    const moved = await inTransaction(pool, async (client) => {
        const swap = await moveSwap(client, id, fromList, to, options.set ?? {}, FINAL_STATUSES.includes(to))
        if (!swap) return undefined
        await writeEvent(client, swap, { event: options.event ?? EVENT_OF_STATUS[to], txHash: options.txHash, data: options.data })
        return swap
    })
    if (moved) swapEnteredStatus(moved)
    return moved
}

/** Updates columns without a status change, optionally with an event (refunds), guarded by the current status. */
export async function update(
    pool: Pool,
    id: string,
    status: SwapStatus,
    set: Columns,
    event?: EventInput
): Promise<Swap | undefined> {
    return inTransaction(pool, async (client) => {
        const swap = await updateSwap(client, id, status, set)
        if (!swap) return undefined
        if (event) await writeEvent(client, swap, event)
        return swap
    })
}
