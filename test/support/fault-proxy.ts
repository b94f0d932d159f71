import * as http from 'http'
import { AddressInfo } from 'net'

/** A request as the proxy sees it: method, path with query, body text. */
export interface ProxiedRequest {
    method: string
    path: string
    body: string
}

/**
 * A pass-through HTTP proxy in front of a node double (Esplora, TronGrid, Solana JSON-RPC): every
 * request goes upstream unchanged, except those `fails` picks while it is set, which are answered
 * HTTP 503 (a backend of the provider down for a moment). `failed` counts those.
 */
export class FaultProxy {
    url = ''
    fails?: (request: ProxiedRequest) => boolean
    failed = 0
    private server?: http.Server

    constructor(private readonly upstream: string) {}

    async start(): Promise<this> {
        this.server = http.createServer((req, res) => {
            const chunks: Buffer[] = []
            req.on('data', (c) => chunks.push(c))
            req.on('end', async () => {
                const request = { method: req.method ?? 'GET', path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8') }
                if (this.fails?.(request)) {
                    this.failed++
                    res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable')
                    return
                }
                const headers: Record<string, string> = {}
                for (const name of ['content-type', 'tron-pro-api-key']) {
                    const value = req.headers[name]
                    if (typeof value === 'string') headers[name] = value
                }
                try {
                    const upstream = await fetch(this.upstream + request.path, {
                        method: request.method, headers, body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
                    })
                    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' }).end(await upstream.text())
                } catch {
                    res.writeHead(502).end('upstream unreachable')
                }
            })
        })
        await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
        this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
        return this
    }

    async stop(): Promise<void> {
        const server = this.server
        this.server = undefined
        if (!server) return
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
    }
}
