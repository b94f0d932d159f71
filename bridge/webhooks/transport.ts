import * as http from 'http'
import * as https from 'https'
import { performance } from 'perf_hooks'
import { DELIVERY_TIMEOUT_MS, parseRetryAfter } from './policy'
import { connectOptions, networkError, parseTargetUrl, resolveTarget, Resolver, TargetRefused } from '../../common/url-safety'

/**
 * One HTTP attempt of a delivery. Success is a 2xx status within the timeout (10 s, counted from
 * the start, DNS included); anything else is a failure with a reason: the status, or the class of
 * network error (`timeout`, `dns`, `blocked_address`, `connect`, `tls`). Redirects are not
 * followed. The connection goes to the address url-safety checked (the request's host is that IP;
 * the name travels only in Host and, for https, in SNI and the certificate check).
 */

export interface AttemptOutcome {
    ok: boolean
    /** HTTP status, or null when no response arrived. */
    status: number | null
    error: string | null
    /** 410 Gone: the receiver asks us to stop sending to this endpoint. */
    gone: boolean
    /** Retry-After of a 429 or 503, in ms. */
    retryAfterMs?: number
    startedAt: Date
    durationMs: number
}

export interface Target {
    url: string
    method: string
}

const MAX_RESPONSE_BYTES = 64 * 1024

export class Transport {
    private readonly httpAgent: http.Agent
    private readonly httpsAgent: https.Agent

    constructor(private readonly options: { allowPrivate: boolean; maxSockets: number; timeoutMs?: number; resolver?: Resolver }) {
        // Pooled sockets are keyed by the connected IP (the request's host), so reuse never crosses to an unchecked address.
        this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets })
        this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: options.maxSockets })
    }

    get timeoutMs(): number {
        return this.options.timeoutMs ?? DELIVERY_TIMEOUT_MS
    }

    /** Sends body with headers made for this attempt's start time. Never throws. */
    async send(target: Target, body: Buffer, headersAt: (at: Date) => Record<string, string>): Promise<AttemptOutcome> {
        const startedAt = new Date()
        const started = performance.now()
        const timeoutMs = this.timeoutMs
        const end = (o: Omit<AttemptOutcome, 'startedAt' | 'durationMs'>): AttemptOutcome => ({ ...o, startedAt, durationMs: Math.round(performance.now() - started) })
        const failed = (error: string) => end({ ok: false, status: null, error, gone: false })

        let url: URL
        let address: { address: string; family: 4 | 6 }
        try {
            url = parseTargetUrl(target.url)
            address = await resolveTarget(url, { allowPrivate: this.options.allowPrivate, resolver: this.options.resolver, timeoutMs })
        } catch (err) {
            if (err instanceof TargetRefused) return failed(`${err.kind}: ${err.message}`)
            return failed(`network: ${(err as Error).message}`)
        }
        const remaining = timeoutMs - (performance.now() - started)
        if (remaining <= 0) return failed(`timeout: no response within ${timeoutMs / 1000} s`)

        const secure = url.protocol === 'https:'
        const headers = { ...headersAt(startedAt), Host: url.host, 'Content-Length': String(body.length) }
        return new Promise<AttemptOutcome>((resolve) => {
            let settled = false
            let status: number | undefined
            let retryAfter: string | undefined
            let location: string | undefined
            const outcome = (): AttemptOutcome => {
                const s = status!
                const ok = s >= 200 && s < 300
                const error = ok ? null : s >= 300 && s < 400 ? `redirect: HTTP ${s} not followed${location ? ` (Location: ${location.slice(0, 200)})` : ''}` : `HTTP ${s}`
                const retryAfterMs = s === 429 || s === 503 ? parseRetryAfter(retryAfter, Date.now()) : undefined
                return end({ ok, status: s, error, gone: s === 410, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) })
            }
            const finish = (result: AttemptOutcome) => {
                if (settled) return
                settled = true
                clearTimeout(timer)
                resolve(result)
            }
            const request = (secure ? https : http).request({
                ...connectOptions(url, address),
                method: target.method,
                headers,
                agent: secure ? this.httpsAgent : this.httpAgent,
            })
            const timer = setTimeout(() => {
                // A status that arrived in time counts even if the body is still streaming.
                if (status !== undefined) finish(outcome())
                else finish(failed(`timeout: no response within ${timeoutMs / 1000} s`))
                request.destroy()
            }, remaining)
            request.on('response', (response) => {
                status = response.statusCode ?? 0
                retryAfter = response.headers['retry-after']
                location = response.headers.location
                let seen = 0
                // Drained so the socket can be reused; a receiver that streams without end is cut off.
                response.on('data', (chunk: Buffer) => {
                    seen += chunk.length
                    if (seen > MAX_RESPONSE_BYTES) response.destroy()
                })
                response.on('end', () => finish(outcome()))
                response.on('close', () => finish(outcome()))
                response.on('error', () => finish(outcome()))
            })
            request.on('error', (err: NodeJS.ErrnoException) => {
                finish(status !== undefined ? outcome() : failed(networkError(err)))
            })
            request.end(body)
        })
    }

    close(): void {
        this.httpAgent.destroy()
        this.httpsAgent.destroy()
    }
}
