import { Pool, PoolClient } from 'pg'
import { Address, getAddress } from 'viem'
import { SealedKey } from './keystore'

/**
 * The platform_wallet table: one row per managed address, owned by exactly one user, holding the
 * private key sealed under that user's password and the master key (keystore.ts).
 */

/** How the key came to the platform. */
export type WalletOrigin = 'private_key' | 'random' | 'mnemonic'

export interface WalletRow {
    address: Address
    userId: string
    origin: WalletOrigin
    sealed: SealedKey
    createdAt: Date
    updatedAt: Date
}

type Db = Pool | PoolClient

export async function findWallet(db: Db, address: Address): Promise<WalletRow | undefined> {
    const { rows } = await db.query(
        `SELECT address, user_id, origin, key_salt, key_iv, key_ciphertext, created_at, updated_at
         FROM platform_wallet WHERE address = $1`,
        [address.toLowerCase()]
    )
    return rows[0] ? toWallet(rows[0]) : undefined
}

/** The user's wallet addresses, oldest first. */
export async function walletsOf(db: Db, userId: string): Promise<Address[]> {
    const { rows } = await db.query('SELECT address FROM platform_wallet WHERE user_id = $1 ORDER BY created_at, address', [userId])
    return rows.map((r) => getAddress(r.address))
}

export type InsertOutcome = { inserted: true; row: WalletRow } | { inserted: false; ownerId: string; row: WalletRow }

/**
 * Stores a wallet unless its address is already managed; then reports the existing row, so the
 * caller can tell a repeated import by the same user from an address another user holds.
 */
export async function insertWallet(
    db: Db,
    wallet: { address: Address; userId: string; origin: WalletOrigin; sealed: SealedKey }
): Promise<InsertOutcome> {
    const { rows } = await db.query(
        `INSERT INTO platform_wallet (address, user_id, origin, key_salt, key_iv, key_ciphertext)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (address) DO NOTHING
         RETURNING address, user_id, origin, key_salt, key_iv, key_ciphertext, created_at, updated_at`,
        [wallet.address.toLowerCase(), wallet.userId, wallet.origin, wallet.sealed.salt, wallet.sealed.iv, wallet.sealed.ciphertext]
    )
    if (rows[0]) return { inserted: true, row: toWallet(rows[0]) }
    const existing = await findWallet(db, wallet.address)
    if (!existing) throw new Error(`wallet ${wallet.address} neither inserted nor found`)
    return { inserted: false, ownerId: existing.userId, row: existing }
}

function toWallet(row: any): WalletRow {
    return {
        address: getAddress(row.address),
        userId: row.user_id,
        origin: row.origin,
        sealed: { salt: row.key_salt, iv: row.key_iv, ciphertext: row.key_ciphertext },
        createdAt: row.created_at,
        updatedAt: row.updated_at,
    }
}
