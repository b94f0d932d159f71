import { createHash, timingSafeEqual } from 'crypto'
import { Request, RequestHandler } from 'express'
import { Pool } from 'pg'
import { HttpError } from '../http/errors'
import { failureLimit } from '../http/rate-limit'

/**
 * The admin bearer token of the webhook management routes. No token configured: 503,
 * never an open door. A wrong or missing token: 401, compared in constant time (both sides are
 * hashed first, so neither the content nor the length of the real token leaks through timing).
 * Twenty wrong tokens from one IP within 15 minutes lock that IP out (429) until the window ends.
 */

const FAILURES = 20
const WINDOW_SECONDS = 15 * 60

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

export function tokenMatches(presented: string, expected: string): boolean {
    return timingSafeEqual(digest(presented), digest(expected))
}

function bearer(req: Request): string | undefined {
    const header = req.get('authorization')
    const match = header?.match(/^Bearer[ \t]+(\S+)[ \t]*$/i)
    return match?.[1]
}

export function adminAuth(pool: Pool, token: string | undefined): RequestHandler {
    const limit = failureLimit(pool, 'webhook_admin', FAILURES, WINDOW_SECONDS)
    return async (req, res, next) => {
        if (!token) {
            throw new HttpError(503, 'not_configured', 'webhook management is not configured on this deployment: set BRIDGE_ADMIN_TOKEN')
        }
        await limit.check(req)
        const presented = bearer(req)
        if (!presented || !tokenMatches(presented, token)) {
            await limit.fail(req)
            res.set('WWW-Authenticate', 'Bearer realm="bridge-webhooks"')
            throw new HttpError(401, 'unauthorized', presented ? 'the admin token is not valid' : 'send Authorization: Bearer <admin token>')
        }
        next()
    }
}
