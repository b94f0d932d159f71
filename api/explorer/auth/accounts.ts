import { Pool, PoolClient } from 'pg'
import { z } from 'zod'
import { timestamp } from '../answers'

/** An explorer account as stored (explorer_account). */
export interface AccountRow {
    id: string
    email: string
    name: string | null
    password_hash: string
    email_verified_at: Date | null
    created_at: Date
}

const COLUMNS = 'id, email, name, password_hash, email_verified_at, created_at'

export async function findAccountByEmail(db: Pool | PoolClient, email: string): Promise<AccountRow | undefined> {
    const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM explorer_account WHERE email = $1`, [email])
    return rows[0]
}

export async function findAccountById(db: Pool | PoolClient, id: string): Promise<AccountRow | undefined> {
    const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM explorer_account WHERE id = $1`, [id])
    return rows[0]
}

/** The account as every route shows it (publicAccount), in the OpenAPI document. */
export const accountSchema = z.looseObject({
    id: z.uuid(),
    email: z.string(),
    name: z.string().nullable(),
    email_verified: z.boolean(),
    created_at: timestamp,
}).meta({ id: 'ExplorerAccount' })

/** The account as every route shows it. */
export function publicAccount(account: AccountRow) {
    return {
        id: account.id,
        email: account.email,
        name: account.name,
        email_verified: account.email_verified_at !== null,
        created_at: account.created_at.toISOString(),
    }
}
