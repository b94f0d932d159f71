import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'crypto'
import { PoolClient } from 'pg'

/**
 * One-time proofs of a mailbox (explorer_email_challenge): the 6-digit code and the link token of
 * email verification, and the token of a password reset. Only hashes are stored. A token is
 * `<challenge id>.<secret>`, so a wrong guess is counted against that challenge; every challenge
 * expires, is consumed by its first correct use, and is dead after MAX_ATTEMPTS wrong ones.
 * A new challenge of the same purpose replaces the open one.
 */
export type Purpose = 'verify_email' | 'reset_password'

export const MAX_ATTEMPTS = 5

export const LIFETIME_SECONDS: Record<Purpose, number> = {
    verify_email: 24 * 3600,
    reset_password: 3600,
}

export interface IssuedChallenge {
    /** 6 digits, only for email verification. */
    code?: string
    token: string
    expiresAt: Date
}

interface ChallengeRow {
    id: string
    account_id: string
    code_hash: Buffer | null
    token_hash: Buffer
    attempts: number
    expires_at: Date
    consumed_at: Date | null
}

const TOKEN_FORMAT = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/

export class Challenges {
    /**
     * A 6-digit code has a million values, so a plain hash of it would be reversed at once from a
     * copy of the table; it is hashed with a key the database does not hold (derived from the JWT
     * secret) and with its challenge id, so equal codes do not look equal.
     */
    private readonly codeKey: Buffer

    constructor(jwtSecret: string) {
        this.codeKey = createHmac('sha256', jwtSecret).update('explorer email challenge codes').digest()
    }

    async issue(db: PoolClient, accountId: string, purpose: Purpose): Promise<IssuedChallenge> {
        await db.query(
            `UPDATE explorer_email_challenge SET consumed_at = now()
             WHERE account_id = $1 AND purpose = $2 AND consumed_at IS NULL`,
            [accountId, purpose]
        )
        const secret = randomBytes(32).toString('base64url')
        const expiresAt = new Date(Date.now() + LIFETIME_SECONDS[purpose] * 1000)
        const { rows } = await db.query<{ id: string }>(
            `INSERT INTO explorer_email_challenge (account_id, purpose, token_hash, expires_at)
             VALUES ($1, $2, $3, $4) RETURNING id`,
            [accountId, purpose, sha256(secret), expiresAt]
        )
        const id = rows[0].id
        let code: string | undefined
        if (purpose === 'verify_email') {
            code = String(randomInt(0, 1_000_000)).padStart(6, '0')
            await db.query('UPDATE explorer_email_challenge SET code_hash = $2 WHERE id = $1', [id, this.codeHash(id, code)])
        }
        return { code, token: `${id}.${secret}`, expiresAt }
    }

    /** Consumes the open challenge of this account and purpose if code is right; false otherwise. */
    async consumeCode(db: PoolClient, accountId: string, purpose: Purpose, code: string): Promise<boolean> {
        const { rows } = await db.query<ChallengeRow>(
            `SELECT * FROM explorer_email_challenge
             WHERE account_id = $1 AND purpose = $2 AND consumed_at IS NULL AND code_hash IS NOT NULL
             ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
            [accountId, purpose]
        )
        const row = rows[0]
        if (!row || !usable(row)) return false
        return this.settle(db, row, equal(row.code_hash!, this.codeHash(row.id, code)))
    }

    /** Consumes the challenge a token names if the token is right; its account id, else undefined. */
    async consumeToken(db: PoolClient, purpose: Purpose, token: string): Promise<string | undefined> {
        const match = TOKEN_FORMAT.exec(token)
        if (!match) return undefined
        const { rows } = await db.query<ChallengeRow>(
            `SELECT * FROM explorer_email_challenge WHERE id = $1 AND purpose = $2 AND consumed_at IS NULL FOR UPDATE`,
            [match[1], purpose]
        )
        const row = rows[0]
        if (!row || !usable(row)) return undefined
        return (await this.settle(db, row, equal(row.token_hash, sha256(match[2])))) ? row.account_id : undefined
    }

    private async settle(db: PoolClient, row: ChallengeRow, right: boolean): Promise<boolean> {
        if (right) {
            await db.query('UPDATE explorer_email_challenge SET consumed_at = now() WHERE id = $1', [row.id])
        } else {
            await db.query('UPDATE explorer_email_challenge SET attempts = attempts + 1 WHERE id = $1', [row.id])
        }
        return right
    }

    private codeHash(id: string, code: string): Buffer {
        return createHmac('sha256', this.codeKey).update(`${id}:${code}`).digest()
    }
}

function usable(row: ChallengeRow): boolean {
    return row.expires_at.getTime() > Date.now() && row.attempts < MAX_ATTEMPTS
}

function sha256(value: string): Buffer {
    return createHash('sha256').update(value).digest()
}

function equal(a: Buffer, b: Buffer): boolean {
    return a.length === b.length && timingSafeEqual(a, b)
}
