import { RequestHandler } from 'express'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { HttpError } from '../../../common/service/http-error'
import { inTransaction } from '../../../db/transaction'
import { BODY_FAULTS, rateLimitHeaders, timestamp, tooManyRequests, unavailable } from '../answers'
import { badRequest } from '../errors'
import { ExplorerServices } from '../services'
import { email, parseInput, password, text } from '../validate'
import { AccountRow, accountSchema, publicAccount } from './accounts'
import { verificationMail } from './mails'

const Body = z.object({
    email,
    password,
    name: text(100).optional(),
})

export const signupOperation: Operation = {
    operationId: 'signUp',
    summary: 'Create an account',
    description: 'Creates an unverified account and mails its 6-digit code and a verification link. Passwords: 8 to 128 characters, not the email address.',
    body: Body,
    responses: {
        201: {
            description: 'The account, unverified, and where its code was sent',
            schema: z.looseObject({
                account: accountSchema,
                verification: z.looseObject({ sent_to: z.string(), expires_at: timestamp }),
            }),
            headers: rateLimitHeaders,
        },
        400: 'A field is missing or invalid, the password is the email address (invalid_request), or the body is not JSON (invalid_json)',
        409: 'An account uses this email address (email_taken)',
        ...BODY_FAULTS,
        429: tooManyRequests('sign-ups from this IP'),
        503: unavailable('Mail is not configured on this deployment (not_configured), or the password hashing pool is full (busy, with Retry-After: 1)'),
    },
}

/** POST /auth/signup: creates an unverified account and mails its 6-digit code and link. Rate-limited by the router. */
export function signup(s: ExplorerServices): RequestHandler {
    return async (req, res) => {
        s.mailer.ensureAvailable()
        const body = parseInput(Body, req.body, 'body')
        if (body.password.trim().toLowerCase() === body.email) throw badRequest('password: must not be the email address', 'password')
        const passwordHash = await s.passwords.hash(body.password)
        const created = await inTransaction(s.ctx.pool, async (db) => {
            const { rows } = await db.query<AccountRow>(
                `INSERT INTO explorer_account (email, name, password_hash) VALUES ($1, $2, $3)
                 ON CONFLICT (email) DO NOTHING
                 RETURNING id, email, name, password_hash, email_verified_at, created_at`,
                [body.email, body.name ?? null, passwordHash]
            )
            if (rows.length === 0) return undefined
            const challenge = await s.challenges.issue(db, rows[0].id, 'verify_email')
            return { account: rows[0], challenge }
        })
        if (!created) throw new HttpError(409, 'an account with this email address already exists', { code: 'email_taken', details: { field: 'email' } })
        s.mailer.sendInBackground(verificationMail(created.account.email, created.challenge, s.publicUrl))
        res.status(201).json({
            account: publicAccount(created.account),
            verification: { sent_to: created.account.email, expires_at: created.challenge.expiresAt.toISOString() },
        })
    }
}
