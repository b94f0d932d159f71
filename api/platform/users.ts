import { Pool, PoolClient } from 'pg'
import { StoredCredential } from './keystore'

/** The platform_user table: a user is a user_id and the verifier of its password. */

export interface UserRow extends StoredCredential {
    userId: string
    createdAt: Date
    updatedAt: Date
}

type Db = Pool | PoolClient

export async function findUser(db: Db, userId: string): Promise<UserRow | undefined> {
    const { rows } = await db.query(
        'SELECT user_id, kdf, salt, verifier, created_at, updated_at FROM platform_user WHERE user_id = $1',
        [userId]
    )
    return rows[0] ? toUser(rows[0]) : undefined
}

/** Inserts the user unless the id is taken; true when this call created it. */
export async function insertUser(db: Db, userId: string, credential: StoredCredential): Promise<boolean> {
    const { rowCount } = await db.query(
        'INSERT INTO platform_user (user_id, kdf, salt, verifier) VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO NOTHING',
        [userId, credential.kdf, credential.salt, credential.verifier]
    )
    return rowCount === 1
}

function toUser(row: any): UserRow {
    return {
        userId: row.user_id,
        kdf: row.kdf,
        salt: row.salt,
        verifier: row.verifier,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
    }
}
