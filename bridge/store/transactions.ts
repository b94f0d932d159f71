import { Pool } from 'pg'
import { SignedTx } from '../../common/sending/chain'
import { StoredTx, TxTable } from '../../common/sending/tx-table'
import { SignedTransfer } from '../chains/adapter'

/**
 * bridge_tx: every statement on the bridge's signed transactions. The durable sender's own
 * statements are TxTable's (common/sending/tx-table.ts, shared with platform_tx) on this table;
 * the bridge's rows add the swap and purpose they are for, one live row per swap and purpose (a
 * partial unique index refuses a second payout row).
 */

export type Purpose = 'gather_gas' | 'gather' | 'payout' | 'refund' | 'pool_approve' | 'pool_swap' | 'provider_deposit'
    /** A late deposit's own transactions (late.ts), keyed by its bridge_late_deposit id: one live each per late deposit. */
    | `late_${'gather_gas' | 'gather' | 'refund'}:${string}`

export interface TxRecord extends StoredTx {
    swapId: string
    purpose: Purpose
    attempt: number
    to: string
    asset: string
    amount: bigint
}

/** What a bridge_tx row says about a transaction besides its bytes: counterparty and asset symbol. */
export interface TxRow {
    to: string
    asset: string
}

const LIVE = `status NOT IN ('rejected', 'dead')`

function mapTx(row: any): TxRecord {
    return {
        id: String(row.id), swapId: row.swap_id, purpose: row.purpose, attempt: row.attempt, chain: row.chain,
        from: row.from_address, to: row.to_address, asset: row.asset, amount: BigInt(row.amount),
        nonce: row.nonce === null ? null : Number(row.nonce), hash: row.tx_hash, raw: row.raw, status: row.status, error: row.error,
    }
}

export class BridgeTransactions extends TxTable<TxRecord> {
    constructor(pool: Pool) {
        super(pool, 'bridge_tx', mapTx, (tx) => ({ purpose: tx.purpose }))
    }

    /** The latest live transaction of a swap for a purpose. */
    async live(swapId: string, purpose: Purpose): Promise<TxRecord | undefined> {
        const { rows } = await this.pool.query(
            `SELECT * FROM bridge_tx WHERE swap_id = $1 AND purpose = $2 AND ${LIVE} ORDER BY attempt DESC LIMIT 1`,
            [swapId, purpose]
        )
        return rows[0] ? mapTx(rows[0]) : undefined
    }

    /**
     * What the ledger accounts for of a sender's nonces: one past its highest stored nonce, whatever
     * became of that transaction (0 when none is stored). The ledger guard compares the node's
     * count with it (engine/ledger-guard.ts).
     */
    async ledgerNext(chain: string, from: string): Promise<number> {
        const { rows } = await this.pool.query(
            `SELECT COALESCE(max(nonce) + 1, 0) AS next FROM bridge_tx WHERE chain = $1 AND from_address = $2 AND nonce IS NOT NULL`,
            [chain, from]
        )
        return Number(rows[0].next)
    }

    /**
     * Which of `hashes` the ledger holds on the chain, from any sender and whatever became of them:
     * the ledger guard's test of a vault's listed transactions on chains without account nonces.
     */
    async knownHashes(chain: string, hashes: string[]): Promise<Set<string>> {
        if (!hashes.length) return new Set()
        const { rows } = await this.pool.query(`SELECT tx_hash FROM bridge_tx WHERE chain = $1 AND tx_hash = ANY($2)`, [chain, hashes])
        return new Set(rows.map((r) => r.tx_hash))
    }

    /** Stores a signed transaction as the swap's next attempt for the purpose (status 'signed'). */
    async insertSigned(swapId: string, purpose: Purpose, chain: string, row: TxRow, signed: SignedTransfer): Promise<TxRecord> {
        const { rows } = await this.pool.query(
            `INSERT INTO bridge_tx (swap_id, purpose, attempt, chain, from_address, to_address, asset, amount, nonce, tx_hash, raw, status)
             SELECT $1, $2, COALESCE(MAX(attempt), 0) + 1, $3, $4, $5, $6, $7, $8, $9, $10, 'signed' FROM bridge_tx WHERE swap_id = $1 AND purpose = $2
             RETURNING *`,
            [swapId, purpose, chain, signed.from, row.to, row.asset, signed.amount.toString(), signed.nonce, signed.hash, signed.raw]
        )
        return mapTx(rows[0])
    }

    /** Stores a replacement of `stuck` at its nonce as the next attempt for its swap and purpose, linked by `replaces`. */
    async insertReplacement(stuck: TxRecord, signed: SignedTx): Promise<TxRecord> {
        const { rows } = await this.pool.query(
            `INSERT INTO bridge_tx (swap_id, purpose, attempt, chain, from_address, to_address, asset, amount, nonce, tx_hash, raw, status, replaces)
             SELECT $1, $2, COALESCE(MAX(attempt), 0) + 1, $3, $4, $5, $6, $7, $8, $9, $10, 'signed', $11 FROM bridge_tx WHERE swap_id = $1 AND purpose = $2
             RETURNING *`,
            [stuck.swapId, stuck.purpose, stuck.chain, stuck.from, stuck.to, stuck.asset, stuck.amount.toString(), signed.nonce, signed.hash, signed.raw, stuck.id]
        )
        return mapTx(rows[0])
    }
}
