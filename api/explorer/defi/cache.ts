import { createHash } from 'crypto'
import { Request, Response } from 'express'
import { z } from 'zod'
import { Answer } from '../../../common/service/api-doc'

/**
 * A short in-process cache of rendered JSON with a strong ETag (a hash of the bytes, so every
 * replica gives the same tag for the same figures). Keys name the time window too, so an entry
 * never outlives its window; concurrent misses of one key share a single build.
 */
export class ResponseCache {
    private readonly entries = new Map<string, { expires: number; value: Promise<unknown> }>()

    constructor(readonly ttlSeconds: number) {}

    async get(key: string, build: () => Promise<unknown>): Promise<Rendered> {
        return this.value(key, async () => render(await build()))
    }

    /** A value kept unrendered, for answers rendered per request from it (pages of one list). */
    async value<T>(key: string, build: () => Promise<T>): Promise<T> {
        const now = Date.now()
        const hit = this.entries.get(key)
        if (hit && hit.expires > now) return hit.value as Promise<T>
        for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k)
        const value = build()
        this.entries.set(key, { expires: now + this.ttlSeconds * 1000, value })
        value.catch(() => this.entries.delete(key))
        return value
    }

    /** Answers 304 when the client holds this version (If-None-Match), else the body. */
    send(req: Request, res: Response, rendered: Rendered): void {
        res.set({ ETag: rendered.etag, 'Cache-Control': `public, max-age=${this.ttlSeconds}` })
        if (holdsVersion(req.get('if-none-match'), rendered.etag)) {
            res.status(304).end()
            return
        }
        res.type('application/json').send(rendered.body)
    }
}

/** The headers of an answer sent by ResponseCache.send, and its 304, as the OpenAPI document states them. */
export const cachedAnswerHeaders = z.object({
    ETag: z.string().meta({ description: 'A hash of the body, equal on every replica' }),
    'Cache-Control': z.string().meta({ description: '`public, max-age=<seconds>`' }),
})

export const notModified: Answer = {
    description: 'The client holds this version already (If-None-Match)',
    headers: cachedAnswerHeaders,
}

export interface Rendered {
    body: string
    etag: string
}

/**
 * If-None-Match by RFC 9110 13.1.2 (weak comparison, `*` matches). Not Express's req.fresh, which
 * also gives up when the request says Cache-Control: no-cache, as fetch() adds to every conditional
 * request; the origin may still answer such a request with 304.
 */
function holdsVersion(ifNoneMatch: string | undefined, etag: string): boolean {
    if (!ifNoneMatch) return false
    if (ifNoneMatch.trim() === '*') return true
    const opaque = (tag: string) => tag.trim().replace(/^W\//, '')
    return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag))
}

export function render(value: unknown): Rendered {
    const body = JSON.stringify(value)
    return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` }
}
