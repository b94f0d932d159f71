import { Pool } from 'pg'
import { Logger } from '../../common/logger'
import { ChainAdapter, SignedTransfer, TransferRequest, TxState } from '../chains/adapter'
import { Finality } from '../chains/finality'
import { LOCK_SENDER, LockManager } from '../db'
import { KeyRole } from '../keys'
import { OperatorHoldError } from './hold'

/**
 * Idempotent sending, the rule every outgoing transfer follows (gathers, payouts, refunds):
 *
 * 1. A transaction is signed and stored in bridge_tx *before* it is broadcast. A crash between
 *    the two leaves a stored transaction that the next attempt broadcasts: the same bytes, never a
 *    new signature.
 * 2. At most one transaction per swap and purpose can be live (a partial unique index): a second
 *    payout row for a swap cannot even be inserted while the first may still land.
 * 3. A stored transaction is replaced only on final evidence that it cannot land: the node
 *    refused it outright on its first broadcast (it never entered any pool), or the chain's final
 *    state rules it out (the adapter's 'dead': spent inputs, a passed expiration; or, on account
 *    chains, its nonce used at a final block by another transaction of ours). Such a verdict
 *    counts only when a second look, SECOND_LOOK_MS later, agrees: nodes behind load balancers lag
 *    each other, and one read is no evidence. A nonce used at a final block by no transaction of
 *    ours holds the swap for an operator (OperatorHoldError): nothing is signed again.
 *    Once its bytes may have reached a node (any broadcast that was not a clean refusal), a later
 *    refusal is no evidence either: another node may hold it, and it is rebroadcast instead.
 * 4. Signing for one sender address is serialized across replicas (advisory lock), so nonces are
 *    handed out once; the nonce is the node's pending count, skipping the nonces of the stored
 *    transactions of that address that are unfinished or landed (a lagging node's count can be
 *    behind what we know was used).
 */

export type Purpose = 'gather_gas' | 'gather' | 'payout' | 'refund' | 'pool_approve' | 'pool_swap' | 'provider_deposit'
    /** A late deposit's own transactions (late.ts), keyed by its bridge_late_deposit id: one live each per late deposit. */
    | `late_${'gather_gas' | 'gather' | 'refund'}:${string}`

/** What a bridge_tx row says about a transaction besides its bytes: sender role, counterparty, asset symbol. */
export interface TxMeta {
    from: KeyRole
    to: string
    asset: string
}

export interface TxRecord {
    id: string
    swapId: string
    purpose: Purpose
    attempt: number
    chain: string
    from: string
    to: string
    asset: string
    amount: bigint
    nonce: number | null
    hash: string
    raw: string
    status: 'signed' | 'broadcast' | 'confirmed' | 'reverted' | 'rejected' | 'dead'
    error: string | null
}

export type SendResult = { kind: 'sent'; tx: TxRecord } | { kind: 'rejected'; tx: TxRecord; insufficientFunds: boolean; reason: string }

const LIVE = `status NOT IN ('rejected', 'dead')`

/** The finality of a transaction whose landing is enough (gathers, gas top-ups, approvals): one confirmation. */
export const MINED: Finality = { confirmations: 1 }

/** How long a "cannot land" verdict must stand before it is acted on (two looks, never one). */
export const SECOND_LOOK_MS = 10_000

/** Nonces of a sender's own landed transactions that the next signature skips (the most recent ones suffice). */
const LANDED_NONCES = 256

function mapTx(row: any): TxRecord {
    return {
        id: String(row.id), swapId: row.swap_id, purpose: row.purpose, attempt: row.attempt, chain: row.chain,
        from: row.from_address, to: row.to_address, asset: row.asset, amount: BigInt(row.amount),
        nonce: row.nonce === null ? null : Number(row.nonce), hash: row.tx_hash, raw: row.raw, status: row.status, error: row.error,
    }
}

export class Sender {
    constructor(private readonly pool: Pool, private readonly locks: LockManager, private readonly log: Logger) {}

    /** The latest live transaction of a swap for a purpose. */
    async live(swapId: string, purpose: Purpose): Promise<TxRecord | undefined> {
        const { rows } = await this.pool.query(
            `SELECT * FROM bridge_tx WHERE swap_id = $1 AND purpose = $2 AND ${LIVE} ORDER BY attempt DESC LIMIT 1`,
            [swapId, purpose]
        )
        return rows[0] ? mapTx(rows[0]) : undefined
    }

    async byId(id: string): Promise<TxRecord> {
        const { rows } = await this.pool.query('SELECT * FROM bridge_tx WHERE id = $1', [id])
        return mapTx(rows[0])
    }

    /**
     * Signs, stores and broadcasts a transfer for (swap, purpose), unless a live one exists, which
     * is then (re)broadcast and returned instead. Every purpose allows one live transaction per
     * swap except gas top-ups, which may take several.
     */
    async send(adapter: ChainAdapter, swapId: string, purpose: Purpose, request: TransferRequest): Promise<SendResult> {
        return this.sendSigned(adapter, swapId, purpose, { from: request.from, to: request.to, asset: request.asset.symbol }, (held) =>
            adapter.signTransfer(request, held)
        )
    }

    /** send() for any transaction the adapter signs (a pool trade, an approval): the same rules, another signer. */
    async sendSigned(
        adapter: ChainAdapter,
        swapId: string,
        purpose: Purpose,
        meta: TxMeta,
        sign: (reservedSequences: number[]) => Promise<SignedTransfer>
    ): Promise<SendResult> {
        if (purpose !== 'gather_gas') {
            const existing = await this.live(swapId, purpose)
            if (existing) return this.rebroadcastIfNeeded(adapter, existing)
        }
        const from = await adapter.deriveAddress(meta.from)
        const release = await this.locks.lock(LOCK_SENDER, `${adapter.chain}:${from.toLowerCase()}`)
        try {
            if (purpose !== 'gather_gas') {
                const existing = await this.live(swapId, purpose)
                if (existing) return await this.rebroadcastIfNeeded(adapter, existing)
            }
            // Stored but unconfirmed-broadcast transactions of this sender go out first: a later
            // nonce would wait behind them anyway.
            const { rows: unfinished } = await this.pool.query(
                `SELECT * FROM bridge_tx WHERE chain = $1 AND from_address = $2 AND status IN ('signed', 'broadcast')`,
                [adapter.chain, from]
            )
            const held: number[] = []
            for (const row of unfinished.map(mapTx)) {
                if (row.status === 'signed' && (await this.broadcastRow(adapter, row)).kind === 'rejected') continue
                if (row.nonce !== null) held.push(row.nonce)
            }
            const { rows: landed } = await this.pool.query(
                `SELECT nonce FROM bridge_tx WHERE chain = $1 AND from_address = $2 AND nonce IS NOT NULL AND status IN ('confirmed', 'reverted')
                 ORDER BY nonce DESC LIMIT ${LANDED_NONCES}`,
                [adapter.chain, from]
            )
            held.push(...landed.map((r) => Number(r.nonce)))
            const signed = await sign(held)
            const { rows } = await this.pool.query(
                `INSERT INTO bridge_tx (swap_id, purpose, attempt, chain, from_address, to_address, asset, amount, nonce, tx_hash, raw, status)
                 SELECT $1, $2, COALESCE(MAX(attempt), 0) + 1, $3, $4, $5, $6, $7, $8, $9, $10, 'signed' FROM bridge_tx WHERE swap_id = $1 AND purpose = $2
                 RETURNING *`,
                [swapId, purpose, adapter.chain, signed.from, meta.to, meta.asset, signed.amount.toString(), signed.nonce, signed.hash, signed.raw]
            )
            return await this.broadcastRow(adapter, mapTx(rows[0]))
        } finally {
            await release()
        }
    }

    /**
     * Where a stored transaction stands, judged against `finality` once mined; a missing one is
     * rebroadcast (same bytes), a dead one is marked so that the next send() may sign a
     * replacement. A transaction seen mined and later gone (a reorg took its block) is a
     * broadcast one again: the same bytes go out again, and its nonce stays held.
     */
    async track(adapter: ChainAdapter, tx: TxRecord, finality: Finality): Promise<TxState> {
        const state = await adapter.inspect({ hash: tx.hash, from: tx.from, nonce: tx.nonce, raw: tx.raw }, finality)
        if (state.kind === 'dead' || state.kind === 'superseded') return this.provenDead(adapter, tx, state.kind)
        await this.pool.query(`UPDATE bridge_tx SET suspect_since = NULL WHERE id = $1 AND suspect_since IS NOT NULL`, [tx.id])
        if (state.kind === 'confirmed' || state.kind === 'reverted') {
            await this.pool.query(
                `UPDATE bridge_tx SET status = $2, block_number = $3, updated_at = now() WHERE id = $1 AND (status <> $2 OR block_number IS DISTINCT FROM $3)`,
                [tx.id, state.kind, state.blockNumber.toString()]
            )
            return state
        }
        const { rowCount } = await this.pool.query(
            `UPDATE bridge_tx SET status = 'broadcast', block_number = NULL, updated_at = now() WHERE id = $1 AND status IN ('confirmed', 'reverted')`,
            [tx.id]
        )
        if (rowCount) this.log.warn({ chain: tx.chain, hash: tx.hash, purpose: tx.purpose }, 'a mined transaction was reorged out; following it again')
        if (state.kind === 'missing') {
            const result = await this.broadcastRow(adapter, rowCount ? { ...tx, status: 'broadcast' } : tx)
            if (result.kind === 'rejected') return { kind: 'dead' }
        }
        return state
    }

    /**
     * A verdict that the transaction cannot land, acted on only when a look SECOND_LOOK_MS after
     * the first still says so ('pending' until then: the caller waits). A nonce used at a final
     * block (superseded) is then traced to the transaction of ours that used it; when there is
     * none, the swap is held for an operator.
     */
    private async provenDead(adapter: ChainAdapter, tx: TxRecord, verdict: 'dead' | 'superseded'): Promise<TxState> {
        const { rows } = await this.pool.query(
            `UPDATE bridge_tx SET suspect_since = COALESCE(suspect_since, now()) WHERE id = $1
             RETURNING suspect_since <= now() - make_interval(secs => $2) AS settled`,
            [tx.id, SECOND_LOOK_MS / 1000]
        )
        if (!rows[0]?.settled) return { kind: 'pending' }
        if (verdict === 'superseded') {
            const user = await this.nonceUser(adapter, tx)
            if (!user) {
                throw new OperatorHoldError(
                    `nonce ${tx.nonce} of ${tx.from} on ${tx.chain} was used at a final block by no transaction of ours; ` +
                    `the ${tx.purpose} ${tx.hash} never landed and is not signed again`,
                    { chain: tx.chain, from: tx.from, nonce: tx.nonce, tx_hash: tx.hash, purpose: tx.purpose }
                )
            }
            this.log.warn({ chain: tx.chain, hash: tx.hash, nonce: tx.nonce, by: user }, 'transaction can no longer land: another of ours used its nonce')
        } else {
            this.log.warn({ chain: tx.chain, hash: tx.hash, purpose: tx.purpose }, 'transaction can no longer land, by the final state of the chain')
        }
        await this.pool.query(`UPDATE bridge_tx SET status = 'dead', updated_at = now() WHERE id = $1`, [tx.id])
        return { kind: 'dead' }
    }

    /** The hash of the stored transaction of ours, other than `tx`, that landed at tx's nonce. */
    private async nonceUser(adapter: ChainAdapter, tx: TxRecord): Promise<string | undefined> {
        const { rows } = await this.pool.query(
            `SELECT * FROM bridge_tx WHERE chain = $1 AND from_address = $2 AND nonce = $3 AND id <> $4`,
            [tx.chain, tx.from, tx.nonce, tx.id]
        )
        for (const other of rows.map(mapTx)) {
            const state = await adapter.inspect({ hash: other.hash, from: other.from, nonce: other.nonce, raw: other.raw }, MINED)
            if (state.kind === 'confirmed' || state.kind === 'reverted') return other.hash
        }
        return undefined
    }

    private async rebroadcastIfNeeded(adapter: ChainAdapter, tx: TxRecord): Promise<SendResult> {
        if (tx.status === 'signed') return this.broadcastRow(adapter, tx)
        return { kind: 'sent', tx }
    }

    private async broadcastRow(adapter: ChainAdapter, tx: TxRecord): Promise<SendResult> {
        const result = await adapter.broadcast(tx.raw)
        if (result.kind === 'accepted') {
            if (tx.status === 'signed') {
                await this.pool.query(`UPDATE bridge_tx SET status = 'broadcast', updated_at = now() WHERE id = $1 AND status = 'signed'`, [tx.id])
            }
            return { kind: 'sent', tx: { ...tx, status: tx.status === 'signed' ? 'broadcast' : tx.status } }
        }
        if (result.kind === 'rejected' && tx.status !== 'signed') {
            // These bytes may already be in some node's pool, or mined where this node cannot see yet.
            this.log.warn({ chain: tx.chain, hash: tx.hash, purpose: tx.purpose, reason: result.reason }, 'a node refused a transaction sent before; following it still')
            return { kind: 'sent', tx }
        }
        if (result.kind === 'rejected') {
            // Refused outright on its first broadcast: it never entered any pool, its nonce is free again.
            this.log.warn({ chain: tx.chain, hash: tx.hash, purpose: tx.purpose, reason: result.reason }, 'transaction rejected by the node')
            await this.pool.query(`UPDATE bridge_tx SET status = 'rejected', error = $2, updated_at = now() WHERE id = $1`, [tx.id, result.reason.slice(0, 500)])
            return { kind: 'rejected', tx: { ...tx, status: 'rejected' }, insufficientFunds: result.insufficientFunds, reason: result.reason }
        }
        this.log.warn({ chain: tx.chain, hash: tx.hash, purpose: tx.purpose, reason: result.reason }, 'broadcast uncertain; the same bytes will be sent again')
        // It may have reached a node: from now on a refusal is no proof that it cannot land.
        if (tx.status === 'signed') {
            await this.pool.query(`UPDATE bridge_tx SET status = 'broadcast', updated_at = now() WHERE id = $1 AND status = 'signed'`, [tx.id])
            return { kind: 'sent', tx: { ...tx, status: 'broadcast' } }
        }
        return { kind: 'sent', tx }
    }
}
