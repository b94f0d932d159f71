import { Pool } from 'pg'
import { Logger } from '../../common/logger'
import { DurableSender, MINED, SendResult as CoreSendResult } from '../../common/sending/sender'
import { StoredTx, TxTable } from '../../common/sending/tx-table'
import { ChainAdapter, SignedTransfer, TransferRequest, TxState } from '../chains/adapter'
import { Finality } from '../chains/finality'
import { LOCK_SENDER, LockManager } from '../db'
import { KeyRole } from '../keys'
import { OperatorHoldError } from './hold'

/**
 * The bridge's transactions through the durable sender (docs/sending.md), in bridge_tx by swap and
 * purpose: one live per swap and purpose (a partial unique index refuses a second payout row), and
 * a nonce taken by no transaction of ours holds the swap for an operator (OperatorHoldError).
 */

export { MINED, SECOND_LOOK_MS } from '../../common/sending/sender'

export type Purpose = 'gather_gas' | 'gather' | 'payout' | 'refund' | 'pool_approve' | 'pool_swap' | 'provider_deposit'
    /** A late deposit's own transactions (late.ts), keyed by its bridge_late_deposit id: one live each per late deposit. */
    | `late_${'gather_gas' | 'gather' | 'refund'}:${string}`

/** What a bridge_tx row says about a transaction besides its bytes: sender role, counterparty, asset symbol. */
export interface TxMeta {
    from: KeyRole
    to: string
    asset: string
}

export interface TxRecord extends StoredTx {
    swapId: string
    purpose: Purpose
    attempt: number
    to: string
    asset: string
    amount: bigint
}

export type SendResult = CoreSendResult<TxRecord>

const LIVE = `status NOT IN ('rejected', 'dead')`

function mapTx(row: any): TxRecord {
    return {
        id: String(row.id), swapId: row.swap_id, purpose: row.purpose, attempt: row.attempt, chain: row.chain,
        from: row.from_address, to: row.to_address, asset: row.asset, amount: BigInt(row.amount),
        nonce: row.nonce === null ? null : Number(row.nonce), hash: row.tx_hash, raw: row.raw, status: row.status, error: row.error,
    }
}

export class Sender {
    private readonly core: DurableSender<TxRecord>

    constructor(private readonly pool: Pool, locks: LockManager, private readonly log: Logger) {
        const table = new TxTable(pool, 'bridge_tx', mapTx, (tx) => ({ purpose: tx.purpose }))
        this.core = new DurableSender(table, locks, LOCK_SENDER, log, (tx) => {
            throw new OperatorHoldError(
                `nonce ${tx.nonce} of ${tx.from} on ${tx.chain} was used at a final block by no transaction of ours; ` +
                `the ${tx.purpose} ${tx.hash} never landed and is not signed again`,
                { chain: tx.chain, from: tx.from, nonce: tx.nonce, tx_hash: tx.hash, purpose: tx.purpose }
            )
        })
    }

    /** The latest live transaction of a swap for a purpose. */
    async live(swapId: string, purpose: Purpose): Promise<TxRecord | undefined> {
        const { rows } = await this.pool.query(
            `SELECT * FROM bridge_tx WHERE swap_id = $1 AND purpose = $2 AND ${LIVE} ORDER BY attempt DESC LIMIT 1`,
            [swapId, purpose]
        )
        return rows[0] ? mapTx(rows[0]) : undefined
    }

    byId(id: string): Promise<TxRecord> {
        return this.core.table.byId(id)
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
        const from = await adapter.deriveAddress(meta.from)
        return this.core.send(adapter, from, {
            existing: purpose === 'gather_gas' ? undefined : () => this.live(swapId, purpose),
            sign,
            store: async (signed) => {
                const { rows } = await this.pool.query(
                    `INSERT INTO bridge_tx (swap_id, purpose, attempt, chain, from_address, to_address, asset, amount, nonce, tx_hash, raw, status)
                     SELECT $1, $2, COALESCE(MAX(attempt), 0) + 1, $3, $4, $5, $6, $7, $8, $9, $10, 'signed' FROM bridge_tx WHERE swap_id = $1 AND purpose = $2
                     RETURNING *`,
                    [swapId, purpose, adapter.chain, signed.from, meta.to, meta.asset, signed.amount.toString(), signed.nonce, signed.hash, signed.raw]
                )
                return mapTx(rows[0])
            },
        })
    }

    /**
     * Follows the transactions no step follows any more: beside them another of ours at their
     * nonce landed (an original its replacement beat, or the reverse), until the chain's final
     * state shows them dead. Each pass of the worker.
     */
    async followBesideLanded(adapterOf: (chain: string) => ChainAdapter): Promise<void> {
        for (const tx of await this.core.table.besideLanded(100)) {
            await this.core.track(adapterOf(tx.chain), tx, MINED).catch((err) => this.log.warn({ err, hash: tx.hash }, 'could not follow a transaction beside a landed one; trying again later'))
        }
    }

    /**
     * Where a stored transaction stands (DurableSender.track); a nonce taken by no transaction of
     * ours throws OperatorHoldError. The vault's transactions priced out by a base fee that stays
     * above their fee cap are replaced at their nonce (adapters with signReplacement: EVM); the
     * replacement is the swap's next attempt for the purpose, linked by `replaces`, and live()
     * returns it from then on.
     */
    async track(adapter: ChainAdapter, tx: TxRecord, finality: Finality): Promise<TxState> {
        const signReplacement = adapter.signReplacement?.bind(adapter)
        // Only the vault's key is at hand here; a deposit address's gather is not bumped (docs/sending.md).
        const vault = signReplacement && (await adapter.deriveAddress({ kind: 'vault' })).toLowerCase() === tx.from.toLowerCase()
        return this.core.track(adapter, tx, finality, vault ? {
            sign: (stuck) => signReplacement(stuck, { kind: 'vault' }),
            store: async (stuck, signed) => {
                const { rows } = await this.pool.query(
                    `INSERT INTO bridge_tx (swap_id, purpose, attempt, chain, from_address, to_address, asset, amount, nonce, tx_hash, raw, status, replaces)
                     SELECT $1, $2, COALESCE(MAX(attempt), 0) + 1, $3, $4, $5, $6, $7, $8, $9, $10, 'signed', $11 FROM bridge_tx WHERE swap_id = $1 AND purpose = $2
                     RETURNING *`,
                    [stuck.swapId, stuck.purpose, stuck.chain, stuck.from, stuck.to, stuck.asset, stuck.amount.toString(), signed.nonce, signed.hash, signed.raw, stuck.id]
                )
                return mapTx(rows[0])
            },
        } : undefined)
    }
}
