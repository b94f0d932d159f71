import { createHmac, timingSafeEqual } from 'crypto'
import * as http from 'http'
import { AddressInfo } from 'net'
import { waitFor } from '../../common/processes'

/**
 * A real webhook receiver on loopback for the tests and the benchmark: it keeps every request
 * with its exact body bytes, and answers as `respond` says (status, headers, a delay, or never).
 */

export interface Received {
    path: string
    method: string
    headers: http.IncomingHttpHeaders
    raw: Buffer
    /** Per path, 1 for the first request. */
    n: number
    at: number
}

export interface Answer {
    status: number
    headers?: Record<string, string>
    body?: string
    /** Answer after this many ms. */
    delayMs?: number
    /** Never answer (the socket stays open until the receiver stops). */
    hang?: boolean
}

export type Respond = (r: Received) => Answer

export class Receiver {
    readonly received: Received[] = []
    respond: Respond = () => ({ status: 200 })
    private server?: http.Server
    private readonly counts = new Map<string, number>()
    /** Set false to keep no copies (the benchmark only counts). */
    keep = true
    onRequest?: (r: Received) => void

    async start(): Promise<void> {
        this.server = http.createServer((req, res) => {
            const chunks: Buffer[] = []
            req.on('data', (c: Buffer) => chunks.push(c))
            req.on('end', () => {
                const path = req.url ?? '/'
                const n = (this.counts.get(path) ?? 0) + 1
                this.counts.set(path, n)
                const r: Received = { path, method: req.method ?? '', headers: req.headers, raw: Buffer.concat(chunks), n, at: Date.now() }
                if (this.keep) this.received.push(r)
                this.onRequest?.(r)
                const answer = this.respond(r)
                if (answer.hang) return
                const send = () => {
                    if (res.destroyed) return
                    res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '')
                }
                if (answer.delayMs) setTimeout(send, answer.delayMs)
                else send()
            })
        })
        await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    }

    get port(): number {
        return (this.server!.address() as AddressInfo).port
    }

    url(path = '/hook'): string {
        return `http://127.0.0.1:${this.port}${path}`
    }

    on(path: string): Received[] {
        return this.received.filter((r) => r.path === path)
    }

    async waitFor(path: string, count: number, timeoutMs = 60_000): Promise<Received[]> {
        return waitFor(`${count} requests on ${path}`, async () => (this.on(path).length >= count ? this.on(path) : undefined), timeoutMs, 20)
    }

    /** Drops open connections (hanging requests included). */
    dropConnections(): void {
        this.server?.closeAllConnections()
    }

    async stop(): Promise<void> {
        this.server?.closeAllConnections()
        await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
    }
}

/** A receiver's check of X-Bridge-Signature: HMAC-SHA256 of the raw bytes, hex, compared in constant time. */
export function bridgeSignatureValid(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
    if (typeof header !== 'string' || !/^[0-9a-f]{64}$/.test(header)) return false
    const expected = createHmac('sha256', secret).update(raw).digest()
    return timingSafeEqual(expected, Buffer.from(header, 'hex'))
}
