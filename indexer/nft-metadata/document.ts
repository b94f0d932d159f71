import { Gateways, viaGateway } from './gateways'
import { HttpGetResult } from './http-get'

/**
 * A token URI's metadata document: a JSON object read from a `data:` URI (base64 or percent-encoded,
 * without any network), from inline JSON (some contracts answer the document itself), or over HTTP,
 * `ipfs://` and `ar://` through the gateways. What is kept fits Postgres's jsonb: no NUL characters
 * (jsonb refuses them) and at most MAX_DEPTH levels (deeper documents are refused, not truncated).
 */

/** `busyHost`: not read, because a redirect led to a host at its bound (http-get.ts); nothing to record. */
export type DocumentResult = { ok: true; metadata: Record<string, unknown> } | { ok: false; error: string; busyHost?: string }

export interface DocumentSources {
    gateways: Gateways
    maxBytes: number
    /** a bounded GET (http-get.ts) */
    get(url: string): Promise<HttpGetResult>
}

const MAX_DEPTH = 64

export async function readDocument(uri: string, sources: DocumentSources): Promise<DocumentResult> {
    const trimmed = uri.trim()
    if (trimmed === '') return { ok: false, error: 'empty token URI' }
    if (trimmed.startsWith('{')) return parseMetadata(Buffer.from(trimmed, 'utf8'), sources.maxBytes)
    if (/^data:/i.test(trimmed)) {
        const decoded = decodeDataUri(trimmed, sources.maxBytes)
        return 'error' in decoded ? { ok: false, error: decoded.error } : parseMetadata(decoded.body, sources.maxBytes)
    }
    const url = viaGateway(trimmed, sources.gateways)
    if (url === null) return { ok: false, error: 'unsupported: ar:// URIs need NFT_METADATA_ARWEAVE_GATEWAY' }
    if (!/^https?:\/\//i.test(url)) return { ok: false, error: `unsupported: scheme of ${url.slice(0, 40)}` }
    const got = await sources.get(url)
    return got.ok ? parseMetadata(got.body, sources.maxBytes) : got
}

/** RFC 2397: `data:[<media type>][;base64],<data>`; the data percent-encoded unless base64. */
export function decodeDataUri(uri: string, maxBytes: number): { body: Buffer } | { error: string } {
    const comma = uri.indexOf(',')
    if (comma < 0) return { error: 'data URI: no comma before the data' }
    const header = uri.slice(5, comma).toLowerCase()
    const data = uri.slice(comma + 1)
    const base64 = header.split(';').includes('base64')
    // Measured before decoding: base64 decodes to three quarters of its length, percent-encoding to at most its length.
    const size = base64 ? Math.floor((data.length * 3) / 4) : Buffer.byteLength(data)
    if (size > maxBytes + 3) return { error: `too large: more than ${maxBytes} bytes` }
    let body: Buffer
    if (base64) {
        if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(data.replace(/\s+/g, ''))) return { error: 'data URI: invalid base64' }
        body = Buffer.from(data, 'base64')
    } else {
        try {
            body = Buffer.from(decodeURIComponent(data), 'utf8')
        } catch {
            return { error: 'data URI: invalid percent-encoding' }
        }
    }
    return body.length > maxBytes ? { error: `too large: more than ${maxBytes} bytes` } : { body }
}

/** The body as a JSON object, cleaned for jsonb. */
export function parseMetadata(body: Buffer, maxBytes: number): DocumentResult {
    if (body.length > maxBytes) return { ok: false, error: `too large: more than ${maxBytes} bytes` }
    let value: unknown
    try {
        value = JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''))
    } catch (err) {
        return { ok: false, error: `invalid JSON: ${(err as Error).message.slice(0, 200)}` }
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: `not a JSON object: ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}` }
    const cleaned = clean(value, 0)
    return cleaned === TOO_DEEP ? { ok: false, error: `too deep: more than ${MAX_DEPTH} levels` } : { ok: true, metadata: cleaned as Record<string, unknown> }
}

const TOO_DEEP = Symbol('too deep')

function clean(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return value.includes('\u0000') ? value.replaceAll('\u0000', '') : value
    if (value === null || typeof value !== 'object') return value
    if (depth >= MAX_DEPTH) return TOO_DEEP
    if (Array.isArray(value)) {
        const out: unknown[] = []
        for (const item of value) {
            const c = clean(item, depth + 1)
            if (c === TOO_DEEP) return TOO_DEEP
            out.push(c)
        }
        return out
    }
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
        const c = clean(item, depth + 1)
        if (c === TOO_DEEP) return TOO_DEEP
        // Defined, not assigned: a "__proto__" key stays a key instead of setting the prototype.
        Object.defineProperty(out, key.replaceAll('\u0000', ''), { value: c, enumerable: true, writable: true, configurable: true })
    }
    return out
}
