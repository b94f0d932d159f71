import * as http from 'http'
import * as https from 'https'
import { connectOptions, networkError, parseTargetUrl, resolveTarget, Resolver, TargetRefused } from '../../common/url-safety'

/**
 * One bounded GET of a URL a token chose: every hop (the first URL and each redirect) checked by the
 * webhooks' rule (common/url-safety.ts) and connected to as checked, redirects followed a bounded
 * number of times, one deadline for the whole (DNS, redirects and body), and the body cut off past
 * its cap: a server that stalls, streams without end or points at the operator's network costs at
 * most the deadline and the cap, never more.
 */

export interface HttpGetLimits {
    /** for the whole, DNS, redirects and body included */
    timeoutMs: number
    maxBytes: number
    maxRedirects: number
    /** every non-public address allowed (tests, local development) */
    allowPrivate: boolean
    /** hosts (URL.host: `name` or `name:port`, lowercase) allowed at a non-public address: the gateways and what the operator lists */
    allowedHosts: ReadonlySet<string>
    resolver?: Resolver
}

/** `busyHost`: the fetch stopped before a hop to a host that `admit` refused; nothing was asked of it. */
export type HttpGetResult = { ok: true; body: Buffer; url: string } | { ok: false; error: string; busyHost?: string }

/**
 * Asked before each hop with the hop's host (`name` or `name:port`, lowercase): whether it may be
 * asked now. The caller counts the hosts it is let into (the fetcher's per-host bound).
 */
export type AdmitHost = (host: string) => boolean

const REDIRECTS = new Set([301, 302, 303, 307, 308])

type Hop = { body: Buffer } | { redirect: string } | { error: string }

/** `signal` ends the request at once (the fetcher stopping), answered as the error `stopped`. */
export async function boundedGet(rawUrl: string, limits: HttpGetLimits, signal?: AbortSignal, admit?: AdmitHost): Promise<HttpGetResult> {
    const deadline = Date.now() + limits.timeoutMs
    const timedOut = (): HttpGetResult => ({ ok: false, error: `timeout: no complete answer within ${limits.timeoutMs} ms` })
    let current = rawUrl
    for (let redirects = 0; ; redirects++) {
        let url: URL
        let address: Awaited<ReturnType<typeof resolveTarget>>
        try {
            url = parseTargetUrl(current)
            const trusted = limits.allowedHosts.has(url.host.toLowerCase())
            address = await resolveTarget(url, { allowPrivate: limits.allowPrivate || trusted, resolver: limits.resolver, timeoutMs: Math.max(1, deadline - Date.now()) })
        } catch (err) {
            if (err instanceof TargetRefused) return { ok: false, error: `${err.kind}: ${err.message}` }
            return { ok: false, error: `network: ${(err as Error).message}` }
        }
        const host = url.host.toLowerCase()
        if (admit && !admit(host)) return { ok: false, error: `busy: ${host} is at its bound of fetches at once`, busyHost: host }
        const remaining = deadline - Date.now()
        if (remaining <= 0) return timedOut()
        if (signal?.aborted) return { ok: false, error: 'stopped' }
        const hop = await getOnce(url, address, remaining, limits.maxBytes, signal)
        if ('body' in hop) return { ok: true, body: hop.body, url: url.href }
        if ('error' in hop) return hop.error === 'timeout' ? timedOut() : { ok: false, error: hop.error }
        if (redirects >= limits.maxRedirects) return { ok: false, error: `redirect: more than ${limits.maxRedirects} redirects` }
        try {
            current = new URL(hop.redirect, url).href
        } catch {
            return { ok: false, error: `redirect: invalid Location ${hop.redirect.slice(0, 200)}` }
        }
    }
}

function getOnce(url: URL, address: { address: string; family: 4 | 6 }, timeoutMs: number, maxBytes: number, signal?: AbortSignal): Promise<Hop> {
    const secure = url.protocol === 'https:'
    return new Promise<Hop>((resolve) => {
        let settled = false
        const finish = (hop: Hop) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            signal?.removeEventListener('abort', stopped)
            request.destroy()
            resolve(hop)
        }
        const stopped = () => finish({ error: 'stopped' })
        const request = (secure ? https : http).request({
            ...connectOptions(url, address),
            method: 'GET',
            headers: { Host: url.host, Accept: 'application/json, */*;q=0.5', 'User-Agent': 'evm-chain-services-nft-metadata' },
            // No pooling: a socket to a server that stalled is closed, never reused.
            agent: false,
        })
        const timer = setTimeout(() => finish({ error: 'timeout' }), timeoutMs)
        signal?.addEventListener('abort', stopped)
        request.on('error', (err: NodeJS.ErrnoException) => finish({ error: networkError(err) }))
        request.on('response', (response) => {
            const status = response.statusCode ?? 0
            const location = response.headers.location
            if (REDIRECTS.has(status) && location) return finish({ redirect: location })
            if (status < 200 || status >= 300) return finish({ error: `HTTP ${status}` })
            const tooLarge = { error: `too large: more than ${maxBytes} bytes` }
            if (Number(response.headers['content-length']) > maxBytes) return finish(tooLarge)
            const chunks: Buffer[] = []
            let seen = 0
            response.on('data', (chunk: Buffer) => {
                seen += chunk.length
                if (seen > maxBytes) return finish(tooLarge)
                chunks.push(chunk)
            })
            response.on('end', () => finish({ body: Buffer.concat(chunks) }))
            response.on('error', (err: NodeJS.ErrnoException) => finish({ error: networkError(err) }))
            response.on('aborted', () => finish({ error: 'network: the answer was cut off' }))
        })
        request.end()
    })
}
