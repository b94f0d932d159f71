import { Db } from '../db'
import { SwapStatus } from '../engine/statuses'
import { ChainName } from '../registry'

/**
 * bridge_swap: every statement on the swap table (docs/bridge/lifecycle.md). Status changes go
 * through lifecycle.ts, which pairs each with its event; here are only the statements, named for
 * what they read or write.
 */

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

function mapSwap(row: any): Swap {
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

function assignments(set: Columns, firstParam: number): { sql: string; values: unknown[] } {
    const sql: string[] = []
    const values: unknown[] = []
    for (const [column, value] of Object.entries(set)) {
        // The names are SQL: a column off the list never reaches the statement, whoever calls.
        if (!SETTABLE.has(column)) throw new Error(`column ${column} cannot be set by a transition`)
        values.push(typeof value === 'bigint' ? value.toString() : value !== null && typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : value)
        sql.push(`, "${column}" = $${firstParam + values.length - 1}`)
    }
    return { sql: sql.join(''), values }
}

/** What swap creation writes (a new swap always has its quote and bound); the rest of the row starts empty. */
export type NewSwap = Pick<Swap, 'id' | 'sourceChain' | 'sourceToken' | 'targetChain' | 'targetToken' | 'sourceAmount' | 'targetWallet' | 'refundAddress'
    | 'routeKind' | 'route' | 'feeBps' | 'depositFamily' | 'depositIndex' | 'depositAddress' | 'watchFromBlock' | 'expiresAt'>
    & { quotedTargetAmount: bigint; minTargetAmount: bigint; clientIp: string | null }

/** A deposit index never handed out before (deposit addresses are single-use). */
export async function nextDepositIndex(db: Db): Promise<number> {
    const { rows } = await db.query(`SELECT nextval('bridge_deposit_index_seq')::bigint AS index`)
    return Number(rows[0].index)
}

/** Writes a new swap awaiting its deposit. */
export async function insertSwap(db: Db, s: NewSwap): Promise<Swap> {
    const { rows } = await db.query(
        `INSERT INTO bridge_swap (id, status, source_chain, source_token, target_chain, target_token, source_amount, target_wallet,
            refund_address, route_kind, route, fee_bps, quoted_target_amount, deposit_family, deposit_index, deposit_address,
            watch_from_block, expires_at, min_target_amount, client_ip)
         VALUES ($1, 'pending_deposit', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING *`,
        [s.id, s.sourceChain, s.sourceToken, s.targetChain, s.targetToken, s.sourceAmount.toString(), s.targetWallet, s.refundAddress,
            s.routeKind, JSON.stringify(s.route), s.feeBps, s.quotedTargetAmount.toString(), s.depositFamily, s.depositIndex,
            s.depositAddress, s.watchFromBlock.toString(), s.expiresAt, s.minTargetAmount.toString(), s.clientIp]
    )
    return mapSwap(rows[0])
}

/** How many swaps of a client IP still wait for a deposit in their window. */
export async function pendingSwapsOfIp(db: Db, ip: string): Promise<number> {
    const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM bridge_swap WHERE client_ip = $1 AND status = 'pending_deposit' AND expires_at > now()`,
        [ip]
    )
    return rows[0].n
}

export async function loadSwap(db: Db, id: string): Promise<Swap | undefined> {
    const { rows } = await db.query('SELECT * FROM bridge_swap WHERE id = $1', [id])
    return rows[0] ? mapSwap(rows[0]) : undefined
}

/**
 * Moves a swap from one of `from` to `to`, setting `set` (and finished_at when `finished`); the
 * updated swap, or undefined when it was in none of `from`. The status guard is what keeps two
 * workers from making the same move.
 */
export async function moveSwap(db: Db, id: string, from: SwapStatus[], to: SwapStatus, set: Columns, finished: boolean): Promise<Swap | undefined> {
    const { sql, values } = assignments(set, 4)
    const { rows } = await db.query(
        `UPDATE bridge_swap SET "status" = $1, "updated_at" = now()${finished ? ', "finished_at" = now()' : ''}${sql}
         WHERE "id" = $2 AND "status" = ANY($3) RETURNING *`,
        [to, id, from, ...values]
    )
    return rows[0] ? mapSwap(rows[0]) : undefined
}

/** Sets columns of a swap still in `status`; the updated swap, or undefined when it has moved on. */
export async function updateSwap(db: Db, id: string, status: SwapStatus, set: Columns): Promise<Swap | undefined> {
    const { sql, values } = assignments(set, 3)
    const { rows } = await db.query(
        `UPDATE bridge_swap SET "updated_at" = now()${sql} WHERE "id" = $1 AND "status" = $2 RETURNING *`,
        [id, status, ...values]
    )
    return rows[0] ? mapSwap(rows[0]) : undefined
}

/** Holds a swap for an operator; undefined when it was already held (a hold is never overwritten). */
export async function holdSwap(db: Db, id: string, reason: string): Promise<Swap | undefined> {
    const { rows } = await db.query(
        `UPDATE bridge_swap SET hold_reason = $2, held_at = now(), updated_at = now() WHERE id = $1 AND hold_reason IS NULL RETURNING *`,
        [id, reason]
    )
    return rows[0] ? mapSwap(rows[0]) : undefined
}

// A provider leg is polled every providerPollSeconds ($1), not on every pass: its API is rate limited.
const ACTIVE = `hold_reason IS NULL AND (status IN ('deposit_detected', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered', 'vault_locking', 'vault_locked', 'payout_processing')
    OR (status = 'failed' AND refund_status = 'pending' AND (refund_retry_at IS NULL OR refund_retry_at <= now()))
    OR (status LIKE 'simpleswap\\_%' AND EXISTS (SELECT 1 FROM bridge_provider_leg l WHERE l.swap_id = bridge_swap.id
        AND l.state IN ('created', 'settled') AND l.updated_at <= now() - make_interval(secs => $1))))`

/** Swaps the engine has something to do for now (past their deposit, not held), least recently updated first. */
export async function activeSwapIds(db: Db, providerPollSeconds: number, limit: number): Promise<string[]> {
    const { rows } = await db.query(`SELECT id FROM bridge_swap WHERE ${ACTIVE} ORDER BY updated_at LIMIT ${Number(limit)}`, [providerPollSeconds])
    return rows.map((r) => r.id)
}

/** What the monitor needs of a waiting swap (not the whole row: it reads thousands every cycle). */
export interface AwaitingDeposit {
    id: string
    sourceChain: ChainName
    sourceToken: string
    depositAddress: string
    watchFromBlock: bigint
    expiresAt: Date
}

/** The swaps of a chain waiting for a deposit, oldest first, at most `limit`. */
export async function swapsAwaitingDeposit(db: Db, chain: ChainName, limit: number): Promise<AwaitingDeposit[]> {
    const { rows } = await db.query(
        `SELECT id, source_chain, source_token, deposit_address, watch_from_block, expires_at FROM bridge_swap
         WHERE status = 'pending_deposit' AND source_chain = $1 ORDER BY created_at LIMIT $2`,
        [chain, limit]
    )
    return rows.map((r) => ({
        id: r.id, sourceChain: r.source_chain, sourceToken: r.source_token, depositAddress: r.deposit_address,
        watchFromBlock: BigInt(r.watch_from_block), expiresAt: r.expires_at,
    }))
}

/** Which address a listing goes by: the target wallet (on the target chain) or the refund address (on the source chain). */
export type ListedBy = 'target_wallet' | 'refund_address'

/** A swap of a listing, with its keyset position: created_at in microseconds since the epoch, exact. */
export interface ListedSwap {
    swap: Swap
    createdMicros: string
}

/**
 * One page of the swaps of an address, newest first by (created_at, id), after the position
 * `after` (created micros, id) when given. `forms` are the address as each network would have stored it.
 */
export async function swapsOfAddress(db: Db, by: ListedBy, forms: string[], chain: ChainName | null, after: string[] | undefined, limit: number): Promise<ListedSwap[]> {
    // Column names from code only; both have an index on (column, created_at, id), scanned backwards.
    const chainColumn = by === 'target_wallet' ? 'target_chain' : 'source_chain'
    // One form (the usual case: every EVM network checksums alike) is an equality the index answers in order; several, a list.
    const match = forms.length === 1 ? `${by} = $1::text` : `${by} = ANY($1::text[])`
    // extract(epoch …) is numeric (PostgreSQL 14 and later), exact to the microsecond: the cursor's key is the row's own.
    const { rows } = await db.query(
        `SELECT *, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_micros FROM bridge_swap
         WHERE ${match} AND ($2::text IS NULL OR ${chainColumn} = $2)
           AND ($3::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + $3::bigint * interval '1 microsecond', $4::uuid))
         ORDER BY created_at DESC, id DESC LIMIT $5`,
        [forms.length === 1 ? forms[0] : forms, chain, after?.[0] ?? null, after?.[1] ?? null, limit]
    )
    return rows.map((row) => ({ swap: mapSwap(row), createdMicros: row.created_micros }))
}

/** How many swaps are in each status (statuses no swap is in are absent). */
export async function swapCountsByStatus(db: Db): Promise<{ status: string; count: string }[]> {
    const { rows } = await db.query('SELECT status, count(*) AS count FROM bridge_swap GROUP BY status')
    return rows
}
