import { RequestHandler, Response } from 'express'
import { Pool } from 'pg'
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible'
import { clientKey } from './client-ip'
import { HttpError } from './http-error'

/**
 * Rate limits whose counters live in Postgres, so every replica draws on the same budget
 * (rate-limiter-flexible; the tables come from db/migrations, never from DDL at run time).
 * Answers report the budget in the RateLimit-* header fields (IETF draft "RateLimit header fields
 * for HTTP"); a 429 adds Retry-After. docs/decisions.md has the rules.
 */
export interface LimitRule {
    /** Prefix of the counters' keys, so several limits share a table. */
    name: string
    points: number
    windowSeconds: number
}

/** The 429's message, given the seconds until the caller may try again. */
export type Refusal = (retryAfterSeconds: number) => string

/** RateLimit-Limit, -Remaining, -Reset (seconds) and, unless left out, -Policy (`10;w=900`). */
export function rateLimitHeaders(rule: LimitRule, remaining: number, resetSeconds: number, policy = true): Record<string, string> {
    return {
        'RateLimit-Limit': String(rule.points),
        'RateLimit-Remaining': String(remaining),
        'RateLimit-Reset': String(resetSeconds),
        ...(policy ? { 'RateLimit-Policy': `${rule.points};w=${rule.windowSeconds}` } : {}),
    }
}

function postgresLimiter(pool: Pool, table: string, rule: LimitRule, extra: { inMemoryBlockOnConsumed?: number } = {}): RateLimiterPostgres {
    return new RateLimiterPostgres({
        ...extra,
        storeClient: pool,
        storeType: 'pool',
        tableName: table,
        tableCreated: true,
        keyPrefix: rule.name,
        points: rule.points,
        duration: rule.windowSeconds,
    })
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

/** Every request counts: `points` per key within a fixed window of `windowSeconds`. */
export class RateLimit {
    private readonly limiter: RateLimiterPostgres

    constructor(pool: Pool, table: string, readonly rule: LimitRule, private readonly refusal: Refusal) {
        // A key past its budget is refused from memory until its window ends: a flood from one
        // client then costs no database write per request (each replica learns it on its own).
        this.limiter = postgresLimiter(pool, table, rule, { inMemoryBlockOnConsumed: rule.points + 1 })
    }

    /** Takes one point for key and sets the RateLimit-* headers; a 429 HttpError once the budget is spent. */
    async take(res: Response, key: string): Promise<void> {
        let state: RateLimiterRes
        try {
            state = await this.limiter.consume(key, 1)
        } catch (rejection) {
            // consume() rejects with a RateLimiterRes when over the limit, with an Error when the store fails.
            if (!(rejection instanceof RateLimiterRes)) throw rejection
            const retryAfter = seconds(rejection.msBeforeNext)
            res.set(rateLimitHeaders(this.rule, 0, retryAfter))
            throw new HttpError(429, this.refusal(retryAfter), { code: 'rate_limited', headers: { 'Retry-After': String(retryAfter) } })
        }
        res.set(rateLimitHeaders(this.rule, state.remainingPoints, Math.max(0, Math.ceil(state.msBeforeNext / 1000))))
    }

    /** Middleware form, keyed by the client IP. */
    perIp(): RequestHandler {
        return async (req, res, next) => {
            await this.take(res, clientKey(req))
            next()
        }
    }
}

/**
 * Only failures count (wrong passwords, wrong tokens): once a key's window holds `points` of them,
 * every attempt with that key is refused with 429 until the window ends.
 */
export class FailureLimit {
    private readonly limiter: RateLimiterPostgres

    /**
     * `announceBudget`: the 429 states the budget in RateLimit-Limit/-Remaining/-Reset/-Policy besides
     * Retry-After, in place of any other limit's fields (the wallet platform documents them; the bridge's admin routes send Retry-After alone).
     */
    constructor(pool: Pool, table: string, readonly rule: LimitRule, private readonly refusal: Refusal, private readonly options: { announceBudget: boolean }) {
        this.limiter = postgresLimiter(pool, table, rule)
    }

    /** Throws the 429 while key's window is full; else resolves with the failures counted so far. */
    async check(key: string): Promise<number> {
        const state = await this.limiter.get(key)
        if (state && state.consumedPoints >= this.rule.points) throw this.tooMany(state.msBeforeNext)
        return state?.consumedPoints ?? 0
    }

    /**
     * Counts an attempt as a failure before its credential is checked, so that attempts sent at
     * once cannot all pass a read of the count; throws the 429 (and counts nothing) once key's
     * window is full. Resolves with the failures counted before this attempt. A success gives the
     * point back with refund() or clear().
     */
    async reserve(key: string): Promise<number> {
        const state = await this.limiter.penalty(key, 1)
        if (state.consumedPoints > this.rule.points) {
            await this.limiter.reward(key, 1)
            throw this.tooMany(state.msBeforeNext)
        }
        return state.consumedPoints - 1
    }

    /** Gives back the point of a reserve() whose attempt succeeded, or was never made. */
    async refund(key: string): Promise<void> {
        await this.limiter.reward(key, 1)
    }

    /** Counts one failure; throws the 429 when it goes beyond the limit (attempts racing past check()). */
    async fail(key: string): Promise<void> {
        const state = await this.limiter.penalty(key, 1)
        if (state.consumedPoints > this.rule.points) throw this.tooMany(state.msBeforeNext)
    }

    async clear(key: string): Promise<void> {
        await this.limiter.delete(key)
    }

    private tooMany(msBeforeNext: number): HttpError {
        const retryAfter = seconds(msBeforeNext)
        return new HttpError(429, this.refusal(retryAfter), {
            code: 'rate_limited',
            headers: {
                ...(this.options.announceBudget ? rateLimitHeaders(this.rule, 0, retryAfter) : {}),
                'Retry-After': String(retryAfter),
            },
        })
    }
}
