import { Pool } from 'pg'
import { FirstSightings } from '../second-look'

export type TxStatus = 'signed' | 'broadcast' | 'confirmed' | 'reverted' | 'rejected' | 'dead'

/** What every stored transaction of ours has, whichever service signed it. */
export interface StoredTx {
    id: string
    chain: string
    from: string
    nonce: number | null
    hash: string
    raw: string
    status: TxStatus
    error: string | null
}

/** Nonces of a sender's own landed transactions that the next signature skips (the most recent ones suffice). */
const LANDED_NONCES = 256

/**
 * A table of our signed transactions (bridge_tx, platform_tx), through the columns they share:
 * chain, from_address, nonce, tx_hash, raw, status, error, block_number, suspect_since,
 * updated_at. Each service's rows carry what else it needs (the bridge's swap and purpose, the
 * platform's request); `map` reads a row, `describe` names it in logs, and the service inserts its
 * rows itself. Every transition is a conditional update, safe to race.
 */
export class TxTable<T extends StoredTx> {
    constructor(
        readonly pool: Pool,
        /** A table name from code, never from input. */
        readonly table: string,
        readonly map: (row: any) => T,
        readonly describe: (tx: T) => Record<string, unknown>
    ) {}

    async byId(id: string): Promise<T> {
        const { rows } = await this.pool.query(`SELECT * FROM ${this.table} WHERE id = $1`, [id])
        return this.map(rows[0])
    }

    /** A sender's transactions not yet seen landed: signed (maybe never broadcast) or broadcast. */
    async unfinished(chain: string, from: string): Promise<T[]> {
        const { rows } = await this.pool.query(
            `SELECT * FROM ${this.table} WHERE chain = $1 AND from_address = $2 AND status IN ('signed', 'broadcast')`,
            [chain, from]
        )
        return rows.map(this.map)
    }

    /** Every unfinished transaction on a chain, oldest first (a process resuming what it left). */
    async allUnfinished(chain: string, limit: number): Promise<T[]> {
        const { rows } = await this.pool.query(
            `SELECT * FROM ${this.table} WHERE chain = $1 AND status IN ('signed', 'broadcast') ORDER BY id LIMIT $2`,
            [chain, limit]
        )
        return rows.map(this.map)
    }

    /** The nonces of a sender's most recent landed transactions. */
    async landedNonces(chain: string, from: string): Promise<number[]> {
        const { rows } = await this.pool.query(
            `SELECT nonce FROM ${this.table} WHERE chain = $1 AND from_address = $2 AND nonce IS NOT NULL AND status IN ('confirmed', 'reverted')
             ORDER BY nonce DESC LIMIT ${LANDED_NONCES}`,
            [chain, from]
        )
        return rows.map((r) => Number(r.nonce))
    }

    /** Our other transactions signed with tx's nonce. */
    async atNonce(tx: T): Promise<T[]> {
        const { rows } = await this.pool.query(
            `SELECT * FROM ${this.table} WHERE chain = $1 AND from_address = $2 AND nonce = $3 AND id <> $4`,
            [tx.chain, tx.from, tx.nonce, tx.id]
        )
        return rows.map(this.map)
    }

    /**
     * The intent write: a signed transaction is about to be handed to a node (its bytes may leave
     * from now on). Whether this call made the change: only that caller's broadcast is the first.
     */
    async markBroadcast(id: string): Promise<boolean> {
        const { rowCount } = await this.pool.query(`UPDATE ${this.table} SET status = 'broadcast', updated_at = now() WHERE id = $1 AND status = 'signed'`, [id])
        return Boolean(rowCount)
    }

    async markRejected(id: string, reason: string): Promise<void> {
        await this.pool.query(`UPDATE ${this.table} SET status = 'rejected', error = $2, updated_at = now() WHERE id = $1 AND status = 'broadcast'`, [id, reason.slice(0, 500)])
    }

    /**
     * Whether a stuck transaction may be replaced now: no live transaction of ours at its nonce
     * is newer than it (a replacement of it already stands), and the newest of them all is at
     * least `afterMs` old (one replacement per interval, however often it is looked at).
     */
    async replaceable(tx: T, afterMs: number): Promise<boolean> {
        const { rows } = await this.pool.query(
            `SELECT bool_and(id <= $4 OR status IN ('rejected', 'dead')) AND max(created_at) <= now() - make_interval(secs => $5) AS ok
             FROM ${this.table} WHERE chain = $1 AND from_address = $2 AND nonce = $3`,
            [tx.chain, tx.from, tx.nonce, tx.id, afterMs / 1000]
        )
        return Boolean(rows[0]?.ok)
    }

    /**
     * Unfinished transactions beside which another of ours at the same nonce was seen landed: a
     * replaced original, or a replacement its original beat. Their caller follows the one that
     * landed; these are followed until the chain's final state shows them dead.
     */
    async besideLanded(limit: number): Promise<T[]> {
        const { rows } = await this.pool.query(
            `SELECT * FROM ${this.table} t WHERE t.status IN ('signed', 'broadcast') AND t.nonce IS NOT NULL AND EXISTS (
                SELECT 1 FROM ${this.table} o WHERE o.chain = t.chain AND o.from_address = t.from_address AND o.nonce = t.nonce
                AND o.id <> t.id AND o.status IN ('confirmed', 'reverted')) ORDER BY t.id LIMIT $1`,
            [limit]
        )
        return rows.map(this.map)
    }

    /** A transaction that can never land; `error` says why when the caller knows more than the status does (its error is kept otherwise). */
    async markDead(id: string, error?: string): Promise<void> {
        await this.pool.query(`UPDATE ${this.table} SET status = 'dead', error = COALESCE($2, error), updated_at = now() WHERE id = $1`, [id, error ?? null])
    }

    async markMined(id: string, status: 'confirmed' | 'reverted', blockNumber: bigint): Promise<void> {
        await this.pool.query(
            `UPDATE ${this.table} SET status = $2, block_number = $3, updated_at = now() WHERE id = $1 AND (status <> $2 OR block_number IS DISTINCT FROM $3)`,
            [id, status, blockNumber.toString()]
        )
    }

    /** A mined transaction back to broadcast (a reorg took its block); whether it had been mined. */
    async markUnmined(id: string): Promise<boolean> {
        const { rowCount } = await this.pool.query(
            `UPDATE ${this.table} SET status = 'broadcast', block_number = NULL, updated_at = now() WHERE id = $1 AND status IN ('confirmed', 'reverted')`,
            [id]
        )
        return Boolean(rowCount)
    }

    /**
     * First sightings of the verdict that a transaction can never land, by its id, kept on its row
     * (suspect_since) and timed by Postgres's clock: the second look (common/second-look.ts) may be
     * any replica's. One that stood stays on the row: the transaction is marked dead, or held for an
     * operator, and a later look at it finds the verdict standing still.
     */
    readonly cannotLand: FirstSightings<string> = {
        sight: async (id) => {
            const { rows } = await this.pool.query(
                `UPDATE ${this.table} SET suspect_since = COALESCE(suspect_since, now()) WHERE id = $1
                 RETURNING (extract(epoch FROM now() - suspect_since) * 1000)::float8 AS age_ms`,
                [id]
            )
            // A row that is not there has no verdict to keep: no look agrees.
            return rows[0] ? Number(rows[0].age_ms) : -Infinity
        },
        forget: async (id) => {
            await this.pool.query(`UPDATE ${this.table} SET suspect_since = NULL WHERE id = $1 AND suspect_since IS NOT NULL`, [id])
        },
        stood: async () => {},
    }
}
