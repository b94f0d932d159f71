import { createHash, timingSafeEqual } from 'crypto'
import { Request, RequestHandler } from 'express'
import { Pool } from 'pg'
import { clientKey } from '../../common/service/client-ip'
import { HttpError } from '../../common/service/http-error'
import { FailureLimit } from '../../common/service/rate-limit'

/**
 * The admin bearer token of the webhook management routes. No token configured: 503,
 * never an open door. A wrong or missing token: 401, compared in constant time (both sides are
 * hashed first, so neither the content nor the length of the real token leaks through timing).
 * Twenty wrong tokens from one IP within 15 minutes lock that IP out (429) until the window ends.
 */

const TOKEN_FAILURES = { name: 'webhook_admin', points: 20, windowSeconds: 15 * 60 }

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
    const limit = new FailureLimit(pool, 'bridge_rate_limit', TOKEN_FAILURES,
        (seconds) => `too many failed attempts; try again in ${seconds} seconds`, { announceBudget: false })
    return async (req, res, next) => {
        if (!token) {
            throw new HttpError(503, 'webhook management is not configured on this deployment: set BRIDGE_ADMIN_TOKEN', { code: 'not_configured' })
        }
        // Counted before the compare, so that guesses sent at once cannot all pass a read of the count.
        const client = clientKey(req)
        const failedBefore = await limit.reserve(client)
        const presented = bearer(req)
        if (presented && tokenMatches(presented, token)) {
            await (failedBefore > 0 ? limit.clear(client) : limit.refund(client))
        } else {
            res.set('WWW-Authenticate', 'Bearer realm="bridge-webhooks"')
            throw new HttpError(401, presented ? 'the admin token is not valid' : 'send Authorization: Bearer <admin token>', { code: 'unauthorized' })
        }
        next()
    }
}
