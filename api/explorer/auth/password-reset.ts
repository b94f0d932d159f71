import { RequestHandler } from 'express'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { HttpError } from '../../../common/service/http-error'
import { inTransaction } from '../../../db/transaction'
import { BODY_FAULTS, hashPoolFull, messageSchema, rateLimitHeaders, tooManyRequests } from '../answers'
import { emailKey } from '../rate-limits'
import { ExplorerServices } from '../services'
import { email, parseInput, password, text } from '../validate'
import { findAccountByEmail } from './accounts'
import { mailRequestOperation, resetMail } from './mails'

/** Password reset: POST /auth/forgot-password mails a single-use token, POST /auth/reset-password spends it. */

const ForgotBody = z.object({ email })

const ResetBody = z.object({
    token: text(200),
    password,
})

export const forgotPasswordOperation = mailRequestOperation({
    operationId: 'requestPasswordReset',
    summary: 'Mail a password reset token',
    body: ForgotBody,
    sent: 'A reset token is on its way if an account uses the address',
    mails: 'reset mails',
})

export const resetPasswordOperation: Operation = {
    operationId: 'resetPassword',
    summary: 'Set a new password with a reset token',
    description: 'Ends every earlier session of the account and marks its address verified.',
    body: ResetBody,
    responses: {
        200: { description: 'The password is changed', schema: messageSchema, headers: rateLimitHeaders },
        400: 'A field is missing or invalid (invalid_request), the body is not JSON (invalid_json), or the token is wrong, expired or used up (invalid_token)',
        ...BODY_FAULTS,
        429: tooManyRequests('reset-password attempts from this IP'),
        503: hashPoolFull,
    },
}

export function forgotPassword(s: ExplorerServices): RequestHandler {
    return async (req, res) => {
        const body = parseInput(ForgotBody, req.body, 'body')
        await s.limits.resetMail.take(res, emailKey(body.email))
        s.mailer.ensureAvailable()
        const account = await findAccountByEmail(s.ctx.pool, body.email)
        if (account) {
            const challenge = await inTransaction(s.ctx.pool, (db) => s.challenges.issue(db, account.id, 'reset_password'))
            s.mailer.sendInBackground(resetMail(account.email, challenge, s.ctx.env))
        }
        // The same answer, status and (no mail is awaited) nearly the same time whether or not the account exists.
        res.status(202).json({ message: 'if an account uses this email address, a reset token is on its way' })
    }
}

export function resetPassword(s: ExplorerServices): RequestHandler {
    return async (req, res) => {
        const body = parseInput(ResetBody, req.body, 'body')
        // The token is checked before any hashing, so a wrong token costs no hash. Hashing inside the
        // transaction means a busy pool (503) rolls back and leaves the token unspent.
        const accountId = await inTransaction(s.ctx.pool, async (db) => {
            const id = await s.challenges.consumeToken(db, 'reset_password', body.token)
            if (!id) return undefined
            const passwordHash = await s.passwords.hash(body.password)
            // Following the mailed token proves the mailbox, so it also verifies the address.
            await db.query(
                `UPDATE explorer_account SET password_hash = $2, email_verified_at = COALESCE(email_verified_at, now()),
                 updated_at = now() WHERE id = $1`,
                [id, passwordHash]
            )
            await s.sessions.revokeAll(db, id)
            return id
        })
        if (!accountId) throw new HttpError(400, 'the reset token is wrong, expired or used up; ask for a new one with POST /auth/forgot-password', { code: 'invalid_token', details: { field: 'token' } })
        res.json({ message: 'password changed; every earlier session has ended, sign in again' })
    }
}
