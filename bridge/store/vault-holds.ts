import { Pool } from 'pg'

/**
 * bridge_vault_hold: every statement on vault holds (docs/bridge/lifecycle.md#vault-holds). An open
 * hold (released_at NULL) stops every signature from its vault; a released one records that an
 * operator accounted for the vault's transactions below its chain_next.
 */

export interface VaultHold {
    id: string
    chain: string
    address: string
    /** What the ledger accounted for when the hold opened: the next nonce after its highest stored one. */
    ledgerNext: number
    /** What the node counted then (its nonce, latest or pending, whichever was higher). */
    chainNext: number
    reason: string
    heldAt: Date
}

function mapHold(row: any): VaultHold {
    return {
        id: String(row.id), chain: row.chain, address: row.address, ledgerNext: Number(row.ledger_next), chainNext: Number(row.chain_next),
        reason: row.reason, heldAt: row.held_at,
    }
}

export class VaultHolds {
    constructor(private readonly pool: Pool) {}

    /** The vault's open hold, if any. */
    async open(chain: string, address: string): Promise<VaultHold | undefined> {
        const { rows } = await this.pool.query(`SELECT * FROM bridge_vault_hold WHERE chain = $1 AND address = $2 AND released_at IS NULL`, [chain, address.toLowerCase()])
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
            [chain, address.toLowerCase()]
        )
        return Number(rows[0].next)
    }

    /** Opens the vault's hold; whether this call opened it (another replica may have first). */
    async hold(hold: Omit<VaultHold, 'id' | 'heldAt'>): Promise<boolean> {
        const { rowCount } = await this.pool.query(
            `INSERT INTO bridge_vault_hold (chain, address, ledger_next, chain_next, reason) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (chain, address) WHERE released_at IS NULL DO NOTHING`,
            [hold.chain, hold.address.toLowerCase(), hold.ledgerNext, hold.chainNext, hold.reason.slice(0, 1000)]
        )
        return Boolean(rowCount)
    }
}
