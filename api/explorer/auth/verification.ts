import { RequestHandler } from 'express'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { HttpError } from '../../../common/service/http-error'
import { inTransaction } from '../../../db/transaction'
import { emailKey } from '../rate-limits'
import { BODY_FAULTS, rateLimitHeaders, tooManyRequests } from '../answers'
import { ExplorerServices } from '../services'
import { email, parseInput, text } from '../validate'
import { accountSchema, findAccountByEmail, findAccountById, publicAccount } from './accounts'
import { mailRequestOperation, verificationMail } from './mails'

/** Email verification: POST /auth/verify-code, GET /auth/verify (the mailed link), POST /auth/resend-code. */

const CodeBody = z.object({
    email,
    code: z.string().trim().regex(/^\d{6}$/, 'must be 6 digits'),
})

const LinkQuery = z.object({
    token: text(200),
})

const ResendBody = z.object({ email })

const verifiedSchema = z.looseObject({ verified: z.literal(true), account: accountSchema })

export const verifyCodeOperation: Operation = {
    operationId: 'verifyEmailWithCode',
    summary: 'Verify an email address with its 6-digit code',
    body: CodeBody,
    responses: {
        200: { description: 'The address is verified', schema: verifiedSchema, headers: rateLimitHeaders },
        400: 'A field is missing or invalid (invalid_request), the body is not JSON (invalid_json), or the code is wrong, expired or used up, or the email unknown (invalid_code)',
        ...BODY_FAULTS,
        429: tooManyRequests('verify-code attempts from this IP'),
    },
}

export const verifyLinkOperation: Operation = {
    operationId: 'verifyEmailWithLink',
    summary: 'Verify an email address with the mailed link',
    description: 'The link of the verification mail. A browser (`Accept: text/html`) gets a fixed page; any other client JSON.',
    query: LinkQuery,
    responses: {
        200: {
            description: 'The address is verified',
            schema: verifiedSchema,
            alternatives: { 'text/html': z.string().meta({ description: 'A fixed page saying the address is verified' }) },
        },
        400: 'The token is missing or too long (invalid_request), or wrong, expired or used up (invalid_token)',
    },
}

export const resendCodeOperation = mailRequestOperation({
    operationId: 'resendVerificationCode',
    summary: 'Send a new verification code',
    body: ResendBody,
    sent: 'A new code is on its way if an unverified account uses the address',
    mails: 'verification mails',
})

const invalidCode = () => new HttpError(400, 'the code is wrong, expired or used up; ask for a new one with POST /auth/resend-code', { code: 'invalid_code', details: { field: 'code' } })
const invalidToken = () => new HttpError(400, 'the link is wrong, expired or used up; ask for a new code with POST /auth/resend-code', { code: 'invalid_token', details: { field: 'token' } })

async function markVerified(db: { query: (sql: string, params: unknown[]) => Promise<unknown> }, accountId: string): Promise<void> {
    await db.query(
        'UPDATE explorer_account SET email_verified_at = COALESCE(email_verified_at, now()), updated_at = now() WHERE id = $1',
        [accountId]
    )
}

export function verifyCode(s: ExplorerServices): RequestHandler {
    return async (req, res) => {
        const body = parseInput(CodeBody, req.body, 'body')
        const account = await findAccountByEmail(s.ctx.pool, body.email)
        // Unknown email and wrong code read the same, so this route does not tell who has an account.
        if (!account) throw invalidCode()
        const ok = await inTransaction(s.ctx.pool, async (db) => {
            const right = await s.challenges.consumeCode(db, account.id, 'verify_email', body.code)
            if (right) await markVerified(db, account.id)
            return right
        })
        if (!ok) throw invalidCode()
        const verified = await findAccountById(s.ctx.pool, account.id)
        res.json({ verified: true, account: publicAccount(verified!) })
    }
}

export function verifyLink(s: ExplorerServices): RequestHandler {
    return async (req, res) => {
        const query = parseInput(LinkQuery, req.query, 'query')
        const accountId = await inTransaction(s.ctx.pool, async (db) => {
            const id = await s.challenges.consumeToken(db, 'verify_email', query.token)
            if (id) await markVerified(db, id)
            return id
        })
        if (!accountId) throw invalidToken()
        const account = await findAccountById(s.ctx.pool, accountId)
        // The link is opened in a browser: a fixed page there (no user data in it), JSON for API clients.
        res.format({
            'application/json': () => res.json({ verified: true, account: publicAccount(account!) }),
            'text/html': () => res.type('html').send(
                '<!doctype html><meta charset="utf-8"><title>Email verified</title><p>Your email address is verified. You can sign in now.</p>'
            ),
            default: () => res.json({ verified: true, account: publicAccount(account!) }),
        })
    }
}

export function resendCode(s: ExplorerServices): RequestHandler {
    return async (req, res) => {
        const body = parseInput(ResendBody, req.body, 'body')
        await s.limits.verifyMail.take(res, emailKey(body.email))
        s.mailer.ensureAvailable()
        const account = await findAccountByEmail(s.ctx.pool, body.email)
        if (account && !account.email_verified_at) {
            const challenge = await inTransaction(s.ctx.pool, (db) => s.challenges.issue(db, account.id, 'verify_email'))
            s.mailer.sendInBackground(verificationMail(account.email, challenge, s.publicUrl))
        }
        res.status(202).json({ message: 'if an unverified account uses this email address, a new code is on its way' })
    }
}
