import * as http from 'http'
import * as net from 'net'

/**
 * A load balancer on loopback in front of replicas of one service, as docs/production.md puts one
 * in front of each: every HTTP request and every WebSocket upgrade goes to the next replica in turn,
 * with no stickiness, so one client's consecutive requests, and its sockets, land on different
 * replicas. It appends the client's address to X-Forwarded-For, as a real one does (TRUST_PROXY=1).
 */
export class RoundRobinProxy {
    /** HTTP requests (upgrades excluded) sent to each replica, by its index in `replicas`. */
    readonly requests: number[]
    /** WebSocket upgrades sent to each replica. */
    readonly upgrades: number[]
    private server?: http.Server
    private readonly tunnels = new Set<net.Socket>()

    /** `replicas`: base URLs, http://127.0.0.1:<port>. */
    constructor(private readonly replicas: string[]) {
        this.requests = replicas.map(() => 0)
        this.upgrades = replicas.map(() => 0)
    }

    get url(): string {
        return `http://127.0.0.1:${(this.server!.address() as net.AddressInfo).port}`
    }

    async start(): Promise<void> {
        this.server = http.createServer((req, res) => {
            const i = this.pick(this.requests)
            const upstream = http.request(this.target(i, req), (answer) => {
                res.writeHead(answer.statusCode ?? 502, answer.headers)
                answer.pipe(res)
            })
            upstream.on('error', () => {
                if (!res.headersSent) res.writeHead(502).end()
                else res.destroy()
            })
            req.pipe(upstream)
        })
        this.server.on('upgrade', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
            const target = this.target(this.pick(this.upgrades), req)
            const upstream = net.connect(Number(target.port), target.host as string, () => {
                const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`]
                for (const [name, value] of Object.entries(target.headers as http.OutgoingHttpHeaders)) lines.push(`${name}: ${value}`)
                upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
                upstream.write(head)
                client.pipe(upstream).pipe(client)
            })
            for (const socket of [client, upstream]) {
                this.tunnels.add(socket)
                socket.on('close', () => this.tunnels.delete(socket))
                socket.on('error', () => socket.destroy())
            }
            client.on('close', () => upstream.destroy())
            upstream.on('close', () => client.destroy())
        })
        await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    }

    async stop(): Promise<void> {
        for (const socket of this.tunnels) socket.destroy()
        this.server?.closeAllConnections()
        await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
    }

    /** The replica whose turn it is by `tally` (requests and upgrades take turns separately), counted there. */
    private pick(tally: number[]): number {
        const i = tally.reduce((sum, n) => sum + n, 0) % this.replicas.length
        tally[i]++
        return i
    }

    private target(i: number, req: http.IncomingMessage): http.RequestOptions {
        const base = new URL(this.replicas[i])
        const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ')
        return {
            host: base.hostname,
            port: base.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, 'x-forwarded-for': forwarded },
        }
    }
}
