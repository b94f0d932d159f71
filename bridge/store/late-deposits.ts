import { Db } from '../db'
import { LateTransfer } from '../engine/late-transfers'
import { ChainName } from '../registry'

/**
 * bridge_late_deposit: every statement on the deposits that reached a swap's address besides the
 * credited one (docs/bridge/lifecycle.md#extra-and-late-deposits). A swap has at most one open
 * late deposit at a time (a partial unique index); its state moves only by a guarded update.
 */

export type LateState = 'detected' | 'confirmed' | 'gathered' | 'refunded' | 'held' | 'dropped'

/** States of a late deposit that is still the swap's open one. */
const OPEN = `('detected', 'confirmed', 'gathered', 'held')`

export interface LateDeposit {
    id: string
    swapId: string
    chain: ChainName
    asset: string
    amount: bigint
    /** The one transfer that is the whole amount; null when it is several or not known. */
    txHash: string | null
    /** The transfers found to make up the amount, oldest first (late-transfers.ts). */
    transfers: LateTransfer[]
    /** The part of amount they do not account for. */
    unattributed: bigint
    blockNumber: bigint
    blockHash: string
    state: LateState
    gatherTxHash: string | null
    gatheredAmount: bigint | null
    refundAddress: string | null
    refundTxHash: string | null
    refundAmount: bigint | null
    error: string | null
    createdAt: Date
}

const big = (v: string | null) => (v === null ? null : BigInt(v))

function mapLate(r: any): LateDeposit {
    const transfers: LateTransfer[] = (r.transfers ?? []).map((t: any) => ({
        txHash: t.tx_hash, amount: BigInt(t.amount), blockNumber: BigInt(t.block_number), blockHash: t.block_hash,
    }))
    const amount = BigInt(r.amount)
    return {
        id: String(r.id), swapId: r.swap_id, chain: r.chain, asset: r.asset, amount, txHash: r.tx_hash,
        transfers, unattributed: amount - transfers.reduce((sum, t) => sum + t.amount, 0n),
        blockNumber: BigInt(r.block_number), blockHash: r.block_hash, state: r.state, gatherTxHash: r.gather_tx_hash,
        gatheredAmount: big(r.gathered_amount), refundAddress: r.refund_address, refundTxHash: r.refund_tx_hash,
        refundAmount: big(r.refund_amount), error: r.error, createdAt: r.created_at,
    }
}

export async function lateDepositsOf(db: Db, swapId: string): Promise<LateDeposit[]> {
    const { rows } = await db.query('SELECT * FROM bridge_late_deposit WHERE swap_id = $1 ORDER BY id', [swapId])
    return rows.map(mapLate)
}

export async function loadLateDeposit(db: Db, id: string): Promise<LateDeposit | undefined> {
    const { rows } = await db.query('SELECT * FROM bridge_late_deposit WHERE id = $1', [id])
    return rows[0] ? mapLate(rows[0]) : undefined
}

/** An ended swap whose address is watched for late deposits. */
export interface WatchedSwap {
    id: string
    sourceChain: ChainName
    sourceToken: string
    depositAddress: string
    refundAddress: string | null
    minAmount: string
    /** The swap's credited deposit: never one of its late deposits' transfers. */
    depositTxHash: string | null
}

/**
 * The swaps of a chain that ended within the last `days` and whose address may take a late
 * deposit now, newest first, at most `limit`: completed or expired, or failed with the refund of
 * its deposit done with (gathered, or never credited), and no open late deposit.
 */
export async function swapsWatchedForLateDeposits(db: Db, chain: ChainName, days: number, limit: number): Promise<WatchedSwap[]> {
    const { rows } = await db.query(
        `SELECT s.id, s.source_chain, s.source_token, s.deposit_address, s.refund_address, s.route->>'min_amount' AS min_amount, s.deposit_tx_hash
         FROM bridge_swap s
         WHERE s.source_chain = $1 AND s.finished_at > now() - make_interval(secs => $2)
           AND (s.status IN ('completed', 'expired')
                OR (s.status = 'failed' AND s.refund_status IS DISTINCT FROM 'pending' AND (s.gathered_amount IS NOT NULL OR s.deposit_tx_hash IS NULL)))
           AND NOT EXISTS (SELECT 1 FROM bridge_late_deposit l WHERE l.swap_id = s.id AND l.state IN ${OPEN})
         ORDER BY s.finished_at DESC LIMIT $3`,
        [chain, days * 86_400, limit]
    )
    return rows.map((r) => ({
        id: r.id, sourceChain: r.source_chain, sourceToken: r.source_token, depositAddress: r.deposit_address,
        refundAddress: r.refund_address, minAmount: r.min_amount ?? '0', depositTxHash: r.deposit_tx_hash,
    }))
}

/** What a late deposit is recorded with when found. */
export type NewLateDeposit = Pick<LateDeposit, 'swapId' | 'chain' | 'asset' | 'amount' | 'txHash' | 'transfers' | 'blockNumber' | 'blockHash' | 'refundAddress'>

/** Records a detected late deposit; its id, or undefined when the swap already has an open one. */
export async function insertLateDeposit(db: Db, d: NewLateDeposit): Promise<string | undefined> {
    const stored = d.transfers.map((t) => ({ tx_hash: t.txHash, amount: t.amount.toString(), block_number: t.blockNumber.toString(), block_hash: t.blockHash }))
    const { rows } = await db.query(
        `INSERT INTO bridge_late_deposit (swap_id, chain, asset, amount, tx_hash, transfers, block_number, block_hash, state, refund_address)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'detected', $9)
         ON CONFLICT (swap_id) WHERE state IN ${OPEN} DO NOTHING RETURNING id`,
        [d.swapId, d.chain, d.asset, d.amount.toString(), d.txHash, JSON.stringify(stored), d.blockNumber.toString(), d.blockHash, d.refundAddress]
    )
    return rows[0] ? String(rows[0].id) : undefined
}

/**
 * The transfer hashes listed on a swap's late deposits, but for dropped ones (a dropped one's
 * money was never moved, so its transfers may be listed again).
 */
export async function listedLateTransfers(db: Db, swapId: string): Promise<Set<string>> {
    const { rows } = await db.query(
        `SELECT tx_hash, transfers FROM bridge_late_deposit WHERE swap_id = $1 AND state <> 'dropped'`, [swapId])
    const listed = new Set<string>()
    for (const r of rows) {
        if (r.tx_hash) listed.add(r.tx_hash)
        for (const t of r.transfers ?? []) listed.add(t.tx_hash)
    }
    return listed
}

/** Late deposits the engine still moves on (not held, refunded or dropped), least recently updated first. */
export async function lateDepositsInProgress(db: Db, limit: number): Promise<LateDeposit[]> {
    const { rows } = await db.query(
        `SELECT * FROM bridge_late_deposit WHERE state IN ('detected', 'confirmed', 'gathered') ORDER BY updated_at LIMIT $1`, [limit])
    return rows.map(mapLate)
}

/** Columns a late deposit's move may set (a closed list: names go into SQL). */
export type LateColumns = Partial<Record<'error' | 'gather_tx_hash' | 'gathered_amount' | 'refund_tx_hash' | 'refund_amount', string | bigint | null>>

/** Moves a late deposit from `from` to `to` with `set`; false when another task moved it first. */
export async function moveLateDeposit(db: Db, id: string, from: LateState, to: LateState, set: LateColumns): Promise<boolean> {
    const columns = Object.keys(set)
    const { rowCount } = await db.query(
        `UPDATE bridge_late_deposit SET state = $3, updated_at = now()${columns.map((c, i) => `, "${c}" = $${i + 4}`).join('')} WHERE id = $1 AND state = $2`,
        [id, from, to, ...Object.values(set).map((v) => (typeof v === 'bigint' ? v.toString() : v))]
    )
    return Boolean(rowCount)
}

/** A detected late deposit's transfer found in another block (a reorg moved it there). */
export async function redateLateDeposit(db: Db, id: string, blockNumber: bigint, blockHash: string): Promise<void> {
    await db.query(`UPDATE bridge_late_deposit SET block_number = $2, block_hash = $3, updated_at = now() WHERE id = $1 AND state = 'detected'`,
        [id, blockNumber.toString(), blockHash])
}

/** Why the last attempt at a late deposit's next step did not go through (it is tried again). */
export async function noteLateDepositError(db: Db, id: string, error: string): Promise<void> {
    await db.query('UPDATE bridge_late_deposit SET error = $2, updated_at = now() WHERE id = $1', [id, error])
}
