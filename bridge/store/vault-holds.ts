import { Pool } from 'pg'

/**
 * bridge_vault_hold: every statement on vault holds (docs/bridge/lifecycle.md#vault-holds). An open
 * hold (released_at NULL) stops every signature from its vault; a released one records that an
 * operator accounted for the vault's transactions: on EVM those below its chain_next, on chains
 * without account nonces (BITCOIN, TRON, SOLANA) those it names in unknown_txs.
 */

export interface VaultHold {
    id: string
    chain: string
    address: string
    /** EVM: what the ledger accounted for when the hold opened (the next nonce after its highest stored one); null elsewhere. */
    ledgerNext: number | null
    /** EVM: what the node counted then (its nonce, latest or pending, whichever was higher); null elsewhere. */
    chainNext: number | null
    /** Chains without account nonces: the vault's transactions the node listed and the ledger did not know (bridge_tx.hash form); null on EVM. */
    unknownTxs: string[] | null
    reason: string
    heldAt: Date
}

const countOf = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

function mapHold(row: any): VaultHold {
    return {
        id: String(row.id), chain: row.chain, address: row.address, ledgerNext: countOf(row.ledger_next), chainNext: countOf(row.chain_next),
        unknownTxs: row.unknown_txs ?? null, reason: row.reason, heldAt: row.held_at,
    }
}

/**
 * The form a vault's address is stored in: EVM addresses lowercase (their checksum case is only a
 * spelling); the others as the adapter writes them (a Solana or TRON address is case-sensitive base58).
 */
function stored(address: string): string {
    return /^0x[0-9a-f]{40}$/i.test(address) ? address.toLowerCase() : address
}

export class VaultHolds {
    constructor(private readonly pool: Pool) {}

    /** The vault's open hold, if any. */
    async open(chain: string, address: string): Promise<VaultHold | undefined> {
        const { rows } = await this.pool.query(`SELECT * FROM bridge_vault_hold WHERE chain = $1 AND address = $2 AND released_at IS NULL`, [chain, stored(address)])
        return rows[0] ? mapHold(rows[0]) : undefined
    }

    /** Every open hold (the metric). */
    async allOpen(): Promise<VaultHold[]> {
        const { rows } = await this.pool.query(`SELECT * FROM bridge_vault_hold WHERE released_at IS NULL ORDER BY id`)
        return rows.map(mapHold)
    }

    /** The highest count an operator has accounted for by releasing a hold of the vault (0 when none was released). */
    async acknowledgedNext(chain: string, address: string): Promise<number> {
        const { rows } = await this.pool.query(
            `SELECT COALESCE(max(chain_next), 0) AS next FROM bridge_vault_hold WHERE chain = $1 AND address = $2 AND released_at IS NOT NULL`,
            [chain, stored(address)]
        )
        return Number(rows[0].next)
    }

    /** Which of `txs` an operator has accounted for by releasing a hold of the vault that named them. */
    async acknowledgedTxs(chain: string, address: string, txs: string[]): Promise<Set<string>> {
        if (!txs.length) return new Set()
        const { rows } = await this.pool.query(
            `SELECT DISTINCT tx FROM bridge_vault_hold, unnest(unknown_txs) AS tx
             WHERE chain = $1 AND address = $2 AND released_at IS NOT NULL AND tx = ANY($3)`,
            [chain, stored(address), txs]
        )
        return new Set(rows.map((r) => r.tx))
    }

    /** Opens the vault's hold; whether this call opened it (another replica may have first). */
    async hold(hold: Omit<VaultHold, 'id' | 'heldAt'>): Promise<boolean> {
        const { rowCount } = await this.pool.query(
            `INSERT INTO bridge_vault_hold (chain, address, ledger_next, chain_next, unknown_txs, reason) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (chain, address) WHERE released_at IS NULL DO NOTHING`,
            [hold.chain, stored(hold.address), hold.ledgerNext, hold.chainNext, hold.unknownTxs, hold.reason.slice(0, 1000)]
        )
        return Boolean(rowCount)
    }
}
