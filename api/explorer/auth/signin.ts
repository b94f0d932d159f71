import { RequestHandler } from 'express'
import { z } from 'zod'
import { Operation } from '../../../common/service/api-doc'
import { clientKey } from '../../../common/service/client-ip'
import { HttpError } from '../../../common/service/http-error'
import { BODY_FAULTS, hashPoolFull, rateLimitHeaders, timestamp, tooManyRequests } from '../answers'
import { ExplorerServices } from '../services'
import { email, parseInput } from '../validate'
import { accountSchema, findAccountByEmail, publicAccount } from './accounts'
import { SigninGuard } from './signin-guard'

const Body = z.object({
    email,
    // Not the sign-up policy: an account made under an older policy must still be able to sign in.
    password: z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters'),
    /** A 30-day session instead of 7 days. */
    remember: z.boolean().optional().default(false),
})

export const signinOperation: Operation = {
    operationId: 'signIn',
    summary: 'Sign in',
    description: 'A session token for a verified account: 7 days, 30 with `remember`. Failures are counted per (account, IP); see docs/explorer-api.md, Rate limits.',
    body: Body,
    responses: {
        200: {
            description: 'A session',
            schema: z.looseObject({
                token: z.string().meta({ description: 'Send it as `Authorization: Bearer <token>`' }),
                token_type: z.literal('Bearer'),
                expires_at: timestamp,
                remember: z.boolean(),
                account: accountSchema,
            }),
            headers: rateLimitHeaders,
        },
        400: 'A field is missing or invalid (invalid_request), or the body is not JSON (invalid_json)',
        401: 'The email or the password is incorrect (invalid_credentials; an unknown email alike)',
        403: 'The email address is not verified yet (email_not_verified)',
        ...BODY_FAULTS,
        429: tooManyRequests('sign-ins from this IP, or failed sign-ins for this account from this IP'),
        503: hashPoolFull,
    },
}

const invalidCredentials = () => new HttpError(401, 'email or password is incorrect', { code: 'invalid_credentials' })

/**
 * POST /auth/signin: a session token for a verified account. Unknown email and wrong password
 * get the same answer after the same work, and count as failures alike. Legacy bcrypt hashes are
 * replaced on success. The per-IP limit is taken by the router; an attempt is counted as a
 * failure before any hashing, and given back when it succeeds.
 */
export function signin(s: ExplorerServices): RequestHandler {
    const guard = new SigninGuard(s.limits, s.ctx.env.EXPLORER_SIGNIN_ACCOUNT_ALERT)
    return async (req, res) => {
        const body = parseInput(Body, req.body, 'body')
        const ip = clientKey(req)
        await guard.reserve(body.email, ip)
        const { account, check } = await checkPassword(s, body.email, body.password).catch(async (err) => {
            await guard.giveBack(body.email, ip)
            throw err
        })
        if (!account || !check.ok) {
            await guard.failed(body.email)
            throw invalidCredentials()
        }
        await guard.succeeded(body.email, ip)
        if (check.rehash) {
            await s.ctx.pool.query(
                'UPDATE explorer_account SET password_hash = $2, updated_at = now() WHERE id = $1 AND password_hash = $3',
                [account.id, await s.passwords.hash(body.password), account.password_hash]
            )
        }
        if (!account.email_verified_at) {
            throw new HttpError(403, 'verify the email address first (POST /auth/verify-code; POST /auth/resend-code sends a new code)', { code: 'email_not_verified' })
        }
        const session = await s.sessions.open(s.ctx.pool, account.id, body.remember)
        res.json({
            token: session.token,
            token_type: 'Bearer',
            expires_at: session.expiresAt.toISOString(),
            remember: body.remember,
            account: publicAccount(account),
        })
    }
}

/** The account and the verdict on its password; an unknown email costs the same work as a wrong password. */
async function checkPassword(s: ExplorerServices, email: string, password: string) {
    const account = await findAccountByEmail(s.ctx.pool, email)
    if (!account) {
        await s.passwords.spendVerificationTime(password)
        return { account: undefined, check: { ok: false as const } }
    }
    return { account, check: await s.passwords.verify(account.password_hash, password) }
}
