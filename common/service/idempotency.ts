import { AsyncLocalStorage } from 'async_hooks'
import { createHash, randomUUID } from 'crypto'
import { ErrorRequestHandler, Request, RequestHandler, Response } from 'express'
import { Pool } from 'pg'
import { z } from 'zod'
import { LockManager, Release } from '../../db/advisory-locks'
import { Logger } from '../logger'
import { Operation } from './api-doc'
import { HttpError } from './http-error'

/**
 * Idempotency keys (docs/platform-api.md, "Retries and idempotency"): a request carrying an
 * `Idempotency-Key` header is run at most once per (scope, key); every retry with the same
 * request gets the first final answer, status and body, byte for byte, with
 * `Idempotent-Replayed: true`.
 *
 * - The key is claimed in Postgres (table idempotency_key), so it holds across replicas and
 *   restarts. While its request runs, the claiming process holds a session advisory lock on it
 *   (db/advisory-locks.ts): a retry that cannot take the lock gets 409 idempotency_in_flight with
 *   Retry-After; one that can, while the row is still in_flight, knows its holder died.
 * - A retry after such a crash never runs the request from scratch once it may have signed: the
 *   holder noted each platform request id (platform_tx.request_id) before its first signature
 *   (noteRequest, fenced by the row's owner), and `recover` turns what was stored under them into
 *   the final answer. Only when nothing was signed is the request run again.
 * - Final answers are kept, 4xx included; a 5xx or 429 is not (the key is released, and a retry
 *   runs again) unless something was signed, in which case `recover`'s answer replaces it.
 * - The same key with another request (method, route, body and query without credentials) is
 *   422 idempotency_key_reused. Keys are swept after KEEP_HOURS, off the request path.
 */

export const IDEMPOTENCY_HEADER = 'Idempotency-Key'
/** 1 to 255 visible ASCII characters (no spaces). */
export const IDEMPOTENCY_KEY_PATTERN = '^[!-~]{1,255}$'
const KEY_RE = new RegExp(IDEMPOTENCY_KEY_PATTERN)
/** Advisory-lock namespace of idempotency keys ("IDEM"). */
const LOCK_IDEMPOTENCY = 0x4944454d
/** Keys are kept at least this long. */
export const KEEP_HOURS = 24
/** Seconds a caller is told to wait before retrying a key in flight. */
const RETRY_AFTER_SECONDS = 1
/** Answer headers kept with the answer and replayed (besides Content-Type). */
const KEPT_HEADERS = ['location', 'cache-control']
/** Fields never part of the fingerprint: credentials. */
const CREDENTIAL_FIELDS = new Set(['user_pwd', 'password', 'x-user-pwd'])

/** A final answer as kept: the body as the exact text sent. */
export interface KeptAnswer {
    status: number
    headers: Record<string, string>
    body: string
}

export interface IdempotencyOptions {
    /** Prefix of every scope of this surface ("platform", "bridge"). */
    surface: string
    log: Logger
    /**
     * What the requests noted under a key signed, as the key's final answer; undefined when they
     * signed nothing (then the request may run again).
     */
    recover?: (requestIds: string[]) => Promise<{ status: number; body: unknown; headers?: Record<string, string> } | undefined>
}

/** One request carrying a key, from the middleware to its answer. */
interface Claim {
    key: string
    req: Request
    /** Computed at claim time: by then a route has validated its input (and bounded its depth). */
    fingerprint?: string
    owner: string
    res: Response
    scope?: string
    requestIds: Set<string>
    release?: Release
    settled: boolean
}

/** Thrown by claim() when the key already has a final answer: written by replayAnswers / the middleware. */
export class ReplayedAnswer extends Error {
    constructor(readonly answer: KeptAnswer) {
        super('replayed idempotent answer')
        this.name = 'ReplayedAnswer'
    }
}

export class Idempotency {
    private readonly als = new AsyncLocalStorage<Claim>()
    private timer?: NodeJS.Timeout

    constructor(private readonly pool: Pool, private readonly locks: LockManager, private readonly options: IdempotencyOptions) {}

    /**
     * The route middleware: a bad header is 400; without one the route runs as before. With
     * `scopeOf`, the key is claimed at once (routes without authentication: the bridge); without,
     * the route claims it once it knows its caller (claim()).
     */
    middleware(scopeOf?: (req: Request) => string): RequestHandler {
        return (req, res, next) => {
            const key = req.get(IDEMPOTENCY_HEADER)
            if (key === undefined) return next()
            if (!KEY_RE.test(key)) {
                return next(new HttpError(400, `${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters`, {
                    code: 'invalid_idempotency_key', details: { field: IDEMPOTENCY_HEADER },
                }))
            }
            const claim: Claim = { key, req, owner: randomUUID(), res, requestIds: new Set(), settled: false }
            this.als.run(claim, () => {
                if (!scopeOf) return next()
                this.claim(scopeOf(req)).then(() => next(), (err) => {
                    if (err instanceof ReplayedAnswer) replay(res, err.answer)
                    else next(err)
                })
            })
        }
    }

    /**
     * Claims the current request's key for `scope` (the authenticated user): returns when the
     * request is to run; throws ReplayedAnswer, or HttpError 409 (in flight) / 422 (reused).
     * A no-op without a key, or once claimed.
     */
    async claim(scope: string): Promise<void> {
        const claim = this.als.getStore()
        if (!claim || claim.scope !== undefined) return
        claim.fingerprint = fingerprint(claim.req)
        claim.scope = `${this.options.surface}:${scope}`
        const seen = await this.load(claim)
        if (seen) this.judge(claim, seen)
        const release = await this.locks.tryLock(LOCK_IDEMPOTENCY, `${claim.scope}\n${claim.key}`)
        if (!release) throw inFlight()
        try {
            const row = await this.load(claim)
            if (!row) {
                await this.pool.query(
                    `INSERT INTO idempotency_key (scope, key, fingerprint, state, owner) VALUES ($1, $2, $3, 'in_flight', $4)`,
                    [claim.scope, claim.key, claim.fingerprint, claim.owner]
                )
            } else {
                this.judge(claim, row)
                // In flight, and its lock was free: the process that held it is gone.
                const recovered = row.request_ids.length ? await this.recovered(row.request_ids) : undefined
                if (recovered) {
                    await this.pool.query(
                        `UPDATE idempotency_key SET state = 'done', owner = $3, status = $4, headers = $5, body = $6, completed_at = now()
                         WHERE scope = $1 AND key = $2 AND state = 'in_flight'`,
                        [claim.scope, claim.key, claim.owner, recovered.status, recovered.headers, recovered.body]
                    )
                    this.options.log.warn({ scope: claim.scope, requests: row.request_ids }, 'idempotent request interrupted after signing: answered from what it stored')
                    throw new ReplayedAnswer(recovered)
                }
                // It signed nothing: run it again, as this request (its notes fenced by the new owner).
                await this.pool.query(
                    `UPDATE idempotency_key SET owner = $3 WHERE scope = $1 AND key = $2 AND state = 'in_flight'`,
                    [claim.scope, claim.key, claim.owner]
                )
                for (const id of row.request_ids) claim.requestIds.add(id)
            }
        } catch (err) {
            await release()
            throw err
        }
        claim.release = release
        this.capture(claim)
    }

    /**
     * Called before a request signs under `requestId` (the bridge: before it writes the swap of
     * that id): notes it on the key, fenced by the claim's owner, so a retry after a crash finds
     * what it signed or wrote. Throws (doing nothing) when the key is no longer this request's.
     * A no-op for requests without a claimed key.
     */
    async noteRequest(requestId: string): Promise<void> {
        const claim = this.als.getStore()
        if (!claim?.release || claim.requestIds.has(requestId)) return
        const { rowCount } = await this.pool.query(
            `UPDATE idempotency_key SET request_ids = array_append(request_ids, $4)
             WHERE scope = $1 AND key = $2 AND owner = $3 AND state = 'in_flight'`,
            [claim.scope, claim.key, claim.owner, requestId]
        )
        if (rowCount !== 1) throw new HttpError(503, 'the idempotency key of this request is no longer held by it; nothing was signed')
        claim.requestIds.add(requestId)
    }

    /** Deletes finished keys older than KEEP_HOURS (in-flight ones are kept: they may have signed). */
    async sweep(): Promise<number> {
        const { rowCount } = await this.pool.query(
            `DELETE FROM idempotency_key WHERE state = 'done' AND created_at < now() - make_interval(hours => $1)`,
            [KEEP_HOURS]
        )
        return rowCount ?? 0
    }

    /** Sweeps now and every `intervalMs`. */
    start(intervalMs: number): void {
        const pass = () => {
            this.sweep().catch((err) => this.options.log.warn({ err }, 'sweeping idempotency keys failed; trying again later'))
                .finally(() => {
                    if (this.timer) this.timer = setTimeout(pass, intervalMs).unref()
                })
        }
        this.timer = setTimeout(pass, 0).unref()
    }

    stop(): void {
        clearTimeout(this.timer)
        this.timer = undefined
    }

    private async load(claim: Claim) {
        const { rows } = await this.pool.query(
            'SELECT fingerprint, state, request_ids, status, headers, body FROM idempotency_key WHERE scope = $1 AND key = $2',
            [claim.scope, claim.key]
        )
        return rows[0] as { fingerprint: string; state: string; request_ids: string[]; status: number; headers: Record<string, string>; body: string } | undefined
    }

    /** Another request under the key: 422; a finished one: its answer. */
    private judge(claim: Claim, row: { fingerprint: string; state: string; status: number; headers: Record<string, string>; body: string }): void {
        if (row.fingerprint !== claim.fingerprint) {
            throw new HttpError(422, `idempotency_key_reused: this ${IDEMPOTENCY_HEADER} was used with another request (route or body); use a new key`, {
                code: 'idempotency_key_reused', details: { field: IDEMPOTENCY_HEADER },
            })
        }
        if (row.state === 'done') throw new ReplayedAnswer({ status: row.status, headers: row.headers ?? {}, body: row.body })
    }

    private async recovered(requestIds: string[]): Promise<KeptAnswer | undefined> {
        const answer = await this.options.recover?.(requestIds)
        return answer && { status: answer.status, headers: answer.headers ?? {}, body: JSON.stringify(answer.body) }
    }

    /** Keeps the request's answer before it is sent: final ones as the key's answer; a 5xx that signed nothing releases the key. */
    private capture(claim: Claim): void {
        const res = claim.res
        const json = res.json.bind(res)
        const done = () => {
            if (claim.settled) return
            claim.settled = true
            void claim.release?.()
        }
        res.json = (body: unknown) => {
            if (claim.settled) return json(body)
            const finish = async (): Promise<KeptAnswer | undefined> => {
                if (res.statusCode >= 500 || res.statusCode === 429) {
                    const recovered = claim.requestIds.size ? await this.recovered([...claim.requestIds]) : undefined
                    if (!recovered) {
                        await this.pool.query('DELETE FROM idempotency_key WHERE scope = $1 AND key = $2 AND owner = $3 AND state = \'in_flight\'', [claim.scope, claim.key, claim.owner])
                        return undefined
                    }
                    await this.keep(claim, recovered)
                    return recovered
                }
                const headers: Record<string, string> = {}
                for (const name of KEPT_HEADERS) {
                    const value = res.getHeader(name)
                    if (value !== undefined) headers[name] = String(value)
                }
                await this.keep(claim, { status: res.statusCode, headers, body: JSON.stringify(body) })
                return undefined
            }
            finish().then((replacement) => {
                done()
                if (replacement) replay(res, replacement, false)
                else json(body)
            }, (err) => {
                // Not kept: the row stays in flight, and the next retry finds its lock free and recovers.
                this.options.log.error({ err, scope: claim.scope }, 'could not keep an idempotent answer')
                done()
                json(body)
            })
            return res
        }
        // An answer not sent through res.json: the key stays in flight, recovered by the next retry.
        res.on('finish', done)
    }

    private async keep(claim: Claim, answer: KeptAnswer): Promise<void> {
        await this.pool.query(
            `UPDATE idempotency_key SET state = 'done', status = $4, headers = $5, body = $6, completed_at = now()
             WHERE scope = $1 AND key = $2 AND owner = $3 AND state = 'in_flight'`,
            [claim.scope, claim.key, claim.owner, answer.status, answer.headers, answer.body]
        )
    }
}

/** Writes a ReplayedAnswer thrown from inside a route (claim() called after authentication). */
export const replayAnswers: ErrorRequestHandler = (err, _req, res, next) => {
    if (!(err instanceof ReplayedAnswer)) return next(err)
    if (!res.headersSent) replay(res, err.answer)
}

function replay(res: Response, answer: KeptAnswer, replayed = true): void {
    res.status(answer.status)
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value)
    if (replayed) res.setHeader('Idempotent-Replayed', 'true')
    res.type('application/json').send(answer.body)
}

function inFlight(): HttpError {
    return new HttpError(409, `idempotency_in_flight: a request with this ${IDEMPOTENCY_HEADER} is still being processed; retry after Retry-After for its answer`, {
        code: 'idempotency_in_flight', headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    })
}

/** sha256 of the method, the route and the body and query without credential fields, keys sorted. */
function fingerprint(req: Request): string {
    const route = req.route?.path !== undefined ? `${req.baseUrl}${req.route.path}` : req.path
    try {
        return fingerprintOf(req.method, route, req.body ?? null, req.query ?? {})
    } catch (err) {
        if (err instanceof RangeError) throw new HttpError(400, 'body: nested too deeply', { code: 'invalid_request', details: { field: 'body' } })
        throw err
    }
}

/** The fingerprint of a request by its parts (exported for tests). */
export function fingerprintOf(method: string, route: string, body: unknown, query: unknown): string {
    const text = JSON.stringify([method, route, canonical(body), canonical(query)])
    return createHash('sha256').update(text).digest('hex')
}

function canonical(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(canonical)
    if (value === null || typeof value !== 'object') return value
    const out: Record<string, unknown> = {}
    for (const name of Object.keys(value).sort()) {
        if (!CREDENTIAL_FIELDS.has(name)) out[name] = canonical((value as Record<string, unknown>)[name])
    }
    return out
}

/**
 * An operation taking an Idempotency-Key: the header documented, and the answers it adds merged
 * into the route's own (400 bad key, 409 in flight, 422 reused).
 */
export function withIdempotencyKey(op: Operation): Operation {
    const add: Record<number, string> = {
        400: `a malformed ${IDEMPOTENCY_HEADER} (invalid_idempotency_key)`,
        409: `a request with this ${IDEMPOTENCY_HEADER} is still being processed (idempotency_in_flight, with Retry-After: retry for its answer)`,
        422: `this ${IDEMPOTENCY_HEADER} was used with another request (idempotency_key_reused)`,
    }
    const responses = { ...op.responses }
    for (const [status, text] of Object.entries(add)) {
        const existing = responses[Number(status)]
        if (existing === undefined) responses[Number(status)] = text
        else if (typeof existing === 'string') responses[Number(status)] = `${existing}; or ${text}`
        else responses[Number(status)] = { ...existing, description: `${existing.description}; or ${text}` }
    }
    const header = z.string().regex(new RegExp(IDEMPOTENCY_KEY_PATTERN)).optional().meta({
        description: 'Runs the request at most once: a retry with the same key and request gets the first answer (Idempotent-Replayed: true) and signs nothing (docs/platform-api.md, Retries and idempotency). Always send one.',
    })
    const headers = op.headers ? op.headers.extend({ [IDEMPOTENCY_HEADER]: header }) : z.object({ [IDEMPOTENCY_HEADER]: header })
    return { ...op, headers, responses }
}
