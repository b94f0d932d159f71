import { createHash } from 'crypto'
import { Request, RequestHandler, Response } from 'express'
import { Pool } from 'pg'
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible'
import { clientIp } from '../http/client-ip'
import { ApiError } from './errors'

/**
 * Rate limits of the explorer services API. Counters live in Postgres (explorer_rate_limit), so
 * every replica behind a load balancer draws on the same budget. Each limited response reports
 * its state in the RateLimit-* headers (IETF draft "RateLimit header fields for HTTP"), and a 429
 * adds Retry-After.
 */
export interface LimitRule {
    /** Counter key prefix, and the name in RateLimit-Policy. */
    name: string
    points: number
    windowSeconds: number
}

export const LIMIT_RULES = {
    /** Sign-in attempts, per IP. Every attempt counts, successful or not. */
    signin: { name: 'signin', points: 10, windowSeconds: 15 * 60 },
    /** Sign-ups, per IP. */
    signup: { name: 'signup', points: 5, windowSeconds: 60 * 60 },
    /** The two public forms together, per IP. */
    forms: { name: 'forms', points: 10, windowSeconds: 60 * 60 },
    /**
     * Our addition: mail that an anonymous caller can trigger (resend-code, forgot-password), per target
     * address, so nobody can flood a mailbox. Applies whether or not the address has an account.
     */
    mail: { name: 'mail', points: 5, windowSeconds: 60 * 60 },
} satisfies Record<string, LimitRule>

export class Limit {
    private readonly limiter: RateLimiterPostgres

    constructor(pool: Pool, readonly rule: LimitRule) {
        this.limiter = new RateLimiterPostgres({
            storeClient: pool,
            storeType: 'pool',
            tableName: 'explorer_rate_limit',
            // The migration creates the table; the library must not try DDL at run time.
            tableCreated: true,
            keyPrefix: rule.name,
            points: rule.points,
            duration: rule.windowSeconds,
        })
    }

    /** Takes one point for key; throws a 429 ApiError when the budget is spent. Sets the headers either way. */
    async take(res: Response, key: string): Promise<void> {
        let state: RateLimiterRes
        try {
            state = await this.limiter.consume(key, 1)
        } catch (rejection) {
            // consume() rejects with a RateLimiterRes when over the limit, with an Error when the store fails.
            if (!(rejection instanceof RateLimiterRes)) throw rejection
            const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))
            this.setHeaders(res, 0, retryAfter)
            throw new ApiError(429, 'rate_limited', `too many requests; try again in ${retryAfter} seconds`, undefined, {
                'Retry-After': String(retryAfter),
            })
        }
        this.setHeaders(res, state.remainingPoints, Math.max(0, Math.ceil(state.msBeforeNext / 1000)))
    }

    /** Middleware form, keyed by the client IP. */
    perIp(): RequestHandler {
        return async (req: Request, res: Response, next) => {
            await this.take(res, clientIp(req))
            next()
        }
    }

    private setHeaders(res: Response, remaining: number, resetSeconds: number): void {
        res.set({
            'RateLimit-Limit': String(this.rule.points),
            'RateLimit-Remaining': String(remaining),
            'RateLimit-Reset': String(resetSeconds),
            'RateLimit-Policy': `${this.rule.points};w=${this.rule.windowSeconds}`,
        })
    }
}

export interface Limits {
    signin: Limit
    signup: Limit
    forms: Limit
    mail: Limit
}

export function createLimits(pool: Pool): Limits {
    return {
        signin: new Limit(pool, LIMIT_RULES.signin),
        signup: new Limit(pool, LIMIT_RULES.signup),
        forms: new Limit(pool, LIMIT_RULES.forms),
        mail: new Limit(pool, LIMIT_RULES.mail),
    }
}

/** Key of a per-address budget: a hash, so the counter table holds no email addresses. */
export function emailKey(email: string): string {
    return createHash('sha256').update(email).digest('hex')
}
