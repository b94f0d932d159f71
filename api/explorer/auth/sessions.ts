import { randomUUID } from 'crypto'
import { RequestHandler, Response } from 'express'
import jwt from 'jsonwebtoken'
import { Pool, PoolClient } from 'pg'
import { z } from 'zod'
import { unauthorized } from '../errors'
import { AccountRow } from './accounts'

/**
 * Sessions: a sign-in stores a row in explorer_session and hands out an HS256 JWT naming it
 * (jti). The token alone is not enough: each request checks that its session row is neither
 * revoked nor expired, so a logout ends its session and a password reset every older one at once.
 */
export const SESSION_DAYS = 7
export const REMEMBER_DAYS = 30

const AUDIENCE = 'explorer-services'

const Claims = z.object({
    sub: z.uuid(),
    jti: z.uuid(),
    iat: z.number(),
    exp: z.number(),
})

export interface Session {
    id: string
    account: AccountRow
    remember: boolean
    createdAt: Date
    expiresAt: Date
}

export class Sessions {
    constructor(private readonly pool: Pool, private readonly secret: string) {}

    async open(db: Pool | PoolClient, accountId: string, remember: boolean): Promise<{ token: string; expiresAt: Date }> {
        const id = randomUUID()
        const seconds = (remember ? REMEMBER_DAYS : SESSION_DAYS) * 86_400
        const issuedAt = Math.floor(Date.now() / 1000)
        const expiresAt = new Date((issuedAt + seconds) * 1000)
        // Expired rows of this account go on the way, so the table holds only live and revoked sessions.
        await db.query('DELETE FROM explorer_session WHERE account_id = $1 AND expires_at < now()', [accountId])
        await db.query(
            'INSERT INTO explorer_session (id, account_id, remember, expires_at) VALUES ($1, $2, $3, $4)',
            [id, accountId, remember, expiresAt]
        )
        const token = jwt.sign({ iat: issuedAt }, this.secret, {
            algorithm: 'HS256',
            subject: accountId,
            jwtid: id,
            audience: AUDIENCE,
            expiresIn: seconds,
        })
        return { token, expiresAt }
    }

    /** Ends one session (a logout): its token gets 401 from then on. */
    async revoke(sessionId: string): Promise<void> {
        await this.pool.query('UPDATE explorer_session SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [sessionId])
    }

    /** Ends every open session of an account (after a password reset). */
    async revokeAll(db: Pool | PoolClient, accountId: string): Promise<void> {
        await db.query('UPDATE explorer_session SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL', [accountId])
    }

    /** Bearer authentication: res.locals.session is set for the routes after it, else 401. */
    required(): RequestHandler {
        return async (req, res, next) => {
            const header = req.get('authorization') ?? ''
            const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
            if (!match) throw unauthorized('a bearer token is required (Authorization: Bearer <token>)')
            res.locals.session = await this.resolve(match[1])
            next()
        }
    }

    private async resolve(token: string): Promise<Session> {
        let claims: z.infer<typeof Claims>
        try {
            const decoded = jwt.verify(token, this.secret, { algorithms: ['HS256'], audience: AUDIENCE })
            claims = Claims.parse(decoded)
        } catch {
            throw unauthorized('the token is invalid or expired')
        }
        const { rows } = await this.pool.query(
            `SELECT s.id AS session_id, s.remember, s.created_at AS session_created_at, s.expires_at,
                    a.id, a.email, a.name, a.password_hash, a.email_verified_at, a.created_at
             FROM explorer_session s JOIN explorer_account a ON a.id = s.account_id
             WHERE s.id = $1 AND s.account_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()`,
            [claims.jti, claims.sub]
        )
        const row = rows[0]
        if (!row) throw unauthorized('the session has ended; sign in again')
        return {
            id: row.session_id,
            remember: row.remember,
            createdAt: row.session_created_at,
            expiresAt: row.expires_at,
            account: {
                id: row.id,
                email: row.email,
                name: row.name,
                password_hash: row.password_hash,
                email_verified_at: row.email_verified_at,
                created_at: row.created_at,
            },
        }
    }
}

/** The session that Sessions.required() established for this request. */
export function sessionOf(res: Response): Session {
    return res.locals.session as Session
}
