import { Pool, PoolClient } from 'pg'
import { BRIDGE_EVENT_CHANNEL, BridgeEventNotification } from '../../db/channels'
import { inTransaction } from '../db'
import { OUR_PROVIDER_STATUSES } from '../providers/status'
import { ChainName } from '../registry'
import { swapEnteredStatus } from './status-timing'

/**
 * The swap state machine (docs/bridge/lifecycle.md) and the only code that changes a swap's
 * status. Every transition is one database transaction that (1) moves the status, guarded by the
 * status it expects, so two workers can never both make the same move, (2) writes the event row,
 * and (3) NOTIFYs it. The event table is therefore the complete, ordered history, and the outbox
 * any consumer (the WebSocket now, the webhook dispatcher later) reads from: a NOTIFY is delivered
 * only if its transaction commits, and a consumer that missed one catches up by event id.
 */

/**
 * A route with an external provider leg passes through the provider's statuses (simpleswap_*,
 * one to one with the provider's own, bridge/providers/status.ts) between gathered and
 * vault_locking: gathered → simpleswap_waiting → … → simpleswap_finished → vault_locking.
 */
const OWN_STATUSES = [
    'pending_deposit', 'deposit_detected', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
    'vault_locking', 'vault_locked', 'payout_processing', 'completed', 'failed', 'expired',
] as const
export type ProviderLegStatus = (typeof OUR_PROVIDER_STATUSES)[number]
export type SwapStatus = (typeof OWN_STATUSES)[number] | ProviderLegStatus
export const STATUSES: SwapStatus[] = [...OWN_STATUSES.slice(0, 6), ...OUR_PROVIDER_STATUSES, ...OWN_STATUSES.slice(6)]

export function isProviderStatus(status: string): status is ProviderLegStatus {
    return (OUR_PROVIDER_STATUSES as readonly string[]).includes(status)
}

export const FINAL_STATUSES: SwapStatus[] = ['completed', 'failed', 'expired']

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

export type RefundStatus = 'pending' | 'sent' | 'not_requested' | 'failed'

/** bridge_swap.pool_trade: amounts are base units of the pool chain's tokens, as decimal strings. */
export interface PoolTradeRecord {
    pool: string
    chain: ChainName
    pair: string
    tx_hash: string
    block_number: string
    token_in: string
    token_out: string
    amount_in: string
    /** What the rate was locked on, the least the router had to pay (amountOutMin), and what it paid. */
    locked_amount_out: string
    amount_out_min: string
    amount_out: string
}

export interface Swap {
    id: string
    status: SwapStatus
    sourceChain: ChainName
    sourceToken: string
    targetChain: ChainName
    targetToken: string
    sourceAmount: bigint
    targetWallet: string
    refundAddress: string | null
    routeKind: string
    route: unknown
    feeBps: number
    quotedTargetAmount: bigint | null
    /** The least locked payout the swap accepts (base units of the target token); null on swaps older than the bound. */
    minTargetAmount: bigint | null
    depositFamily: string
    depositIndex: number
    depositAddress: string
    watchFromBlock: bigint
    expiresAt: Date
    depositTxHash: string | null
    depositAmount: bigint | null
    depositBlock: bigint | null
    depositBlockHash: string | null
    depositBlockTime: Date | null
    lockedTargetAmount: bigint | null
    feeAmount: bigint | null
    rate: string | null
    rateDetail: unknown
    rateLockedAt: Date | null
    gatherTxHash: string | null
    gatheredAmount: bigint | null
    payoutTxHash: string | null
    refundStatus: RefundStatus | null
    refundTxHash: string | null
    refundAmount: bigint | null
    /** Refund attempts made (the failed ones, and the one that was sent), when the next may start, and why the last failed. */
    refundAttempts: number
    refundRetryAt: Date | null
    refundError: string | null
    /** The route's pool leg as traded from a vault, once that trade is final (see pool.ts). */
    poolTrade: PoolTradeRecord | null
    errorMessage: string | null
    /** Why the engine stopped moving the swap until an operator acts (hold.ts); null when it is not held. */
    holdReason: string | null
    heldAt: Date | null
    createdAt: Date
    updatedAt: Date
    finishedAt: Date | null
}

const big = (v: string | null) => (v === null ? null : BigInt(v))

export function mapSwap(row: any): Swap {
    return {
        id: row.id,
        status: row.status,
        sourceChain: row.source_chain,
        sourceToken: row.source_token,
        targetChain: row.target_chain,
        targetToken: row.target_token,
        sourceAmount: BigInt(row.source_amount),
        targetWallet: row.target_wallet,
        refundAddress: row.refund_address,
        routeKind: row.route_kind,
        route: row.route,
        feeBps: row.fee_bps,
        quotedTargetAmount: big(row.quoted_target_amount),
        minTargetAmount: big(row.min_target_amount ?? null),
        depositFamily: row.deposit_family,
        depositIndex: Number(row.deposit_index),
        depositAddress: row.deposit_address,
        watchFromBlock: BigInt(row.watch_from_block),
        expiresAt: row.expires_at,
        depositTxHash: row.deposit_tx_hash,
        depositAmount: big(row.deposit_amount),
        depositBlock: big(row.deposit_block),
        depositBlockHash: row.deposit_block_hash,
        depositBlockTime: row.deposit_block_time,
        lockedTargetAmount: big(row.locked_target_amount),
        feeAmount: big(row.fee_amount),
        rate: row.rate,
        rateDetail: row.rate_detail,
        rateLockedAt: row.rate_locked_at,
        gatherTxHash: row.gather_tx_hash,
        gatheredAmount: big(row.gathered_amount),
        payoutTxHash: row.payout_tx_hash,
        refundStatus: row.refund_status,
        refundTxHash: row.refund_tx_hash,
        refundAmount: big(row.refund_amount),
        refundAttempts: row.refund_attempts ?? 0,
        refundRetryAt: row.refund_retry_at ?? null,
        refundError: row.refund_error ?? null,
        poolTrade: row.pool_trade ?? null,
        errorMessage: row.error_message,
        holdReason: row.hold_reason ?? null,
        heldAt: row.held_at ?? null,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        finishedAt: row.finished_at,
    }
}

/** Columns a transition may set besides the status (a closed list: names go into SQL). */
const SETTABLE = new Set([
    'deposit_tx_hash', 'deposit_amount', 'deposit_block', 'deposit_block_hash', 'deposit_block_time',
    'locked_target_amount', 'fee_amount', 'rate', 'rate_detail', 'rate_locked_at',
    'gather_tx_hash', 'gathered_amount', 'payout_tx_hash',
    'refund_status', 'refund_tx_hash', 'refund_amount', 'error_message',
    'refund_attempts', 'refund_retry_at', 'refund_error', 'pool_trade',
])

export type Columns = Record<string, string | number | bigint | Date | object | null>

export interface EventInput {
    event: string
    txHash?: string | null
    data?: Record<string, unknown>
}

export class TransitionError extends Error {}

function assignments(set: Columns, firstParam: number): { sql: string[]; values: unknown[] } {
    const sql: string[] = []
    const values: unknown[] = []
    for (const [column, value] of Object.entries(set)) {
        if (!SETTABLE.has(column)) throw new TransitionError(`column ${column} cannot be set by a transition`)
        values.push(typeof value === 'bigint' ? value.toString() : value !== null && typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : value)
        sql.push(`"${column}" = $${firstParam + values.length - 1}`)
    }
    return { sql, values }
}

/** Writes an event row of a swap and announces it, inside the caller's transaction. */
export async function writeEvent(client: PoolClient, swap: Swap, input: EventInput): Promise<void> {
    const { rows } = await client.query(
        `INSERT INTO bridge_swap_event (swap_id, event, status, tx_hash, data) VALUES ($1, $2, $3, $4, $5) RETURNING id, created_at`,
        [swap.id, input.event, swap.status, input.txHash ?? null, JSON.stringify(input.data ?? {})]
    )
    const notification: BridgeEventNotification = {
        id: String(rows[0].id),
        swap_id: swap.id,
        event: input.event,
        status: swap.status,
        tx_hash: input.txHash ?? null,
        created_at: rows[0].created_at.toISOString(),
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
        const { sql, values } = assignments(options.set ?? {}, 4)
        const finished = FINAL_STATUSES.includes(to) ? ', "finished_at" = now()' : ''
        const { rows } = await client.query(
            `UPDATE bridge_swap SET "status" = $1, "updated_at" = now()${finished}${sql.map((s) => `, ${s}`).join('')}
             WHERE "id" = $2 AND "status" = ANY($3) RETURNING *`,
            [to, id, fromList, ...values]
        )
        if (rows.length === 0) return undefined
        const swap = mapSwap(rows[0])
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
        const { sql, values } = assignments(set, 3)
        const { rows } = await client.query(
            `UPDATE bridge_swap SET "updated_at" = now()${sql.map((s) => `, ${s}`).join('')} WHERE "id" = $1 AND "status" = $2 RETURNING *`,
            [id, status, ...values]
        )
        if (rows.length === 0) return undefined
        const swap = mapSwap(rows[0])
        if (event) await writeEvent(client, swap, event)
        return swap
    })
}

export async function loadSwap(pool: Pool | PoolClient, id: string): Promise<Swap | undefined> {
    const { rows } = await pool.query('SELECT * FROM bridge_swap WHERE id = $1', [id])
    return rows[0] ? mapSwap(rows[0]) : undefined
}

export interface SwapEvent {
    id: string
    event: string
    status: SwapStatus
    txHash: string | null
    data: Record<string, unknown>
    createdAt: Date
}

export async function loadEvents(pool: Pool, swapId: string): Promise<SwapEvent[]> {
    const { rows } = await pool.query(
        'SELECT id, event, status, tx_hash, data, created_at FROM bridge_swap_event WHERE swap_id = $1 ORDER BY id',
        [swapId]
    )
    return rows.map((r) => ({ id: String(r.id), event: r.event, status: r.status, txHash: r.tx_hash, data: r.data, createdAt: r.created_at }))
}
