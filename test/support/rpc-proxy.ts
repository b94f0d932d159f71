import * as http from 'http'
import { AddressInfo } from 'net'

export const MAX_LOG_RANGE = 10_000

/**
 * A JSON-RPC proxy on loopback in front of a real node. It refuses eth_getLogs over more than
 * 10,000 blocks with the error public nodes give, and records what it was asked, so a test can
 * prove the indexer never asks for more. `failNext` makes the next requests fail at the HTTP
 * level, like a node that restarts.
 */
export class RpcProxy {
    readonly calls = new Map<string, number>()
    maxLogRange = 0
    refusedLogQueries = 0
    private failures = 0
    private server?: http.Server

    constructor(private readonly upstream: string) {}

    get url(): string {
        return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`
    }

    failNext(requests: number): void {
        this.failures = requests
    }

    async start(): Promise<void> {
        this.server = http.createServer((req, res) => {
            const chunks: Buffer[] = []
            req.on('data', (c) => chunks.push(c))
            req.on('end', () => void this.handle(Buffer.concat(chunks).toString(), res))
        })
        await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    }

    async stop(): Promise<void> {
        this.server?.closeAllConnections()
        await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
    }

    private async handle(body: string, res: http.ServerResponse): Promise<void> {
        if (this.failures > 0) {
            this.failures--
            res.writeHead(503).end('node restarting')
            return
        }
        const request = JSON.parse(body)
        const batch: any[] = Array.isArray(request) ? request : [request]
        const refused = new Map<number, unknown>()
        const forward: any[] = []
        for (const call of batch) {
            this.calls.set(call.method, (this.calls.get(call.method) ?? 0) + 1)
            if (call.method === 'eth_getLogs') {
                const { fromBlock, toBlock } = call.params[0]
                const range = Number(BigInt(toBlock)) - Number(BigInt(fromBlock)) + 1
                this.maxLogRange = Math.max(this.maxLogRange, range)
                if (range > MAX_LOG_RANGE) {
                    this.refusedLogQueries++
                    refused.set(call.id, {
                        jsonrpc: '2.0',
                        id: call.id,
                        error: { code: -32005, message: `query exceeds max block range ${MAX_LOG_RANGE}` },
                    })
                    continue
                }
            }
            forward.push(call)
        }
        let answers: any[] = []
        if (forward.length) {
            const upstream = await fetch(this.upstream, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify(forward),
            })
            answers = await upstream.json() as any[]
        }
        const byId = new Map(answers.map((a) => [a.id, a]))
        const result = batch.map((call) => refused.get(call.id) ?? byId.get(call.id))
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(Array.isArray(request) ? result : result[0]))
    }
}
