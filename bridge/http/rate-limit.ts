import { Request, RequestHandler, Response } from 'express'
import { Pool } from 'pg'
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible'
import { HttpError } from './errors'

/** The client's IP as the limits count it: Express's req.ip (which honours TRUST_PROXY), IPv4-mapped IPv6 unwrapped. */
export function clientIp(req: Request): string {
    return (req.ip ?? req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '')
}

/**
 * Per-IP limit on swap creation (each swap consumes a deposit key and a watched address).
 * Counters live in Postgres (bridge_rate_limit), shared by every replica; answers carry the
 * RateLimit-* headers and a 429 adds Retry-After.
 */
export function createLimit(pool: Pool, points: number, windowSeconds: number): RequestHandler {
    const limiter = new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'bridge_rate_limit',
        tableCreated: true,
        keyPrefix: 'create',
        points,
        duration: windowSeconds,
    })
    const headers = (res: Response, remaining: number, reset: number) => res.set({
        'RateLimit-Limit': String(points),
        'RateLimit-Remaining': String(remaining),
        'RateLimit-Reset': String(reset),
        'RateLimit-Policy': `${points};w=${windowSeconds}`,
    })
    return async (req: Request, res: Response, next) => {
        const ip = clientIp(req)
        try {
            const state = await limiter.consume(ip, 1)
            headers(res, state.remainingPoints, Math.ceil(state.msBeforeNext / 1000))
        } catch (rejection) {
            if (!(rejection instanceof RateLimiterRes)) throw rejection
            const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))
            headers(res, 0, retryAfter)
            throw new HttpError(429, 'rate_limited', `too many swaps created; try again in ${retryAfter} seconds`, undefined, { 'Retry-After': String(retryAfter) })
        }
        next()
    }
}

/**
 * A limit on failures per client IP (wrong credentials): only failures count, and once the window
 * holds `points` of them every request from that IP is refused with 429 until the window ends.
 */
export function failureLimit(pool: Pool, keyPrefix: string, points: number, windowSeconds: number) {
    const limiter = new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'bridge_rate_limit',
        tableCreated: true,
        keyPrefix,
        points,
        duration: windowSeconds,
    })
    const ip = clientIp
    return {
        async check(req: Request): Promise<void> {
            const state = await limiter.get(ip(req))
            if (state && state.consumedPoints >= points) {
                const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000))
                throw new HttpError(429, 'rate_limited', `too many failed attempts; try again in ${retryAfter} seconds`, undefined, { 'Retry-After': String(retryAfter) })
            }
        },
        async fail(req: Request): Promise<void> {
            await limiter.penalty(ip(req), 1)
        },
    }
}
