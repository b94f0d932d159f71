import * as http from 'http'
import { AddressInfo } from 'net'

/**
 * A JSON-RPC proxy in front of a real node that, while `blocked`, answers every
 * eth_sendRawTransaction with HTTP 503 (a node restarting), and forwards everything else. The
 * sender then holds signed transactions it could not send: what a crash between signing and
 * broadcasting leaves behind. It can also play a node that lacks some methods (`unsupported`).
 * With `swallow` set, a blocked transaction is forwarded to the node after all but its answer
 * never comes back (the connection hangs): the broadcast went through and the sender cannot know.
 * With `hang` set, it is neither forwarded nor answered: the sender waits on a broadcast that
 * never reached the node.
 *
 * It can also play a second node that never saw some transaction another node holds: the raws in
 * `underpriced` are refused as underpriced (JSON-RPC error, as geth answers), the hashes in
 * `hidden` are unknown to it (no transaction, no receipt), and with `pendingAsLatest` its pending
 * nonce count is the mined one (its pool holds nothing of ours).
 */
export class BroadcastGate {
    blocked = false
    /** While blocked: forward the matching transactions and never answer, rather than refuse them. */
    swallow = false
    /** While blocked: never forward nor answer the matching transactions (swallow wins when both are set). */
    hang = false
    /**
     * While blocked: answer the matching transactions with this JSON-RPC error (a node's refusal, as
     * geth words it) rather than HTTP 503; with `fanOut` they are forwarded to the node first, as a
     * balancer that hands one request to several nodes and returns one's refusal does.
     */
    refusal?: string
    fanOut = false
    /** Transactions forwarded whose answer was withheld (swallow). */
    readonly swallowed: string[] = []
    /** While blocked, only the transactions this accepts are refused (all when unset). */
    filter?: (raw: string) => boolean | Promise<boolean>
    /** JSON-RPC methods answered "method not found", as a node without them would (e.g. tracing). */
    readonly unsupported = new Set<string>()
    readonly refused: string[] = []
    /** Raw transactions (lowercase) answered "transaction underpriced", blocked or not; each such answer is noted in `underpricedAnswers`. */
    readonly underpriced = new Set<string>()
    readonly underpricedAnswers: string[] = []
    /** Transaction hashes (lowercase) this node does not know: null for the transaction and its receipt. */
    readonly hidden = new Set<string>()
    /** eth_getTransactionCount at 'pending' answered as at 'latest'. */
    pendingAsLatest = false
    /**
     * The next `left` eth_getTransactionCount answers for `address` are `by` above the node's: a
     * backend answering nonsense for a moment (the ledger guard's second look).
     */
    inflatedCounts?: { address: string; by: number; left: number }
    private server?: http.Server

    constructor(private readonly upstream: string) {}

    get url(): string {
        return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`
    }

    async start(): Promise<void> {
        this.server = http.createServer((req, res) => {
            const chunks: Buffer[] = []
            req.on('data', (c) => chunks.push(c))
            req.on('end', async () => {
                const body = Buffer.concat(chunks).toString()
                const calls = [JSON.parse(body)].flat()
                const missing = calls.find((c: any) => this.unsupported.has(c.method))
                if (missing) {
                    res.writeHead(200, { 'content-type': 'application/json' })
                        .end(JSON.stringify({ jsonrpc: '2.0', id: missing.id, error: { code: -32601, message: `the method ${missing.method} does not exist/is not available` } }))
                    return
                }
                const own = calls.length === 1 ? this.answerAsOtherNode(calls[0]) : undefined
                if (own) {
                    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(own))
                    return
                }
                if (calls.length === 1 && this.pendingAsLatest && calls[0].method === 'eth_getTransactionCount' && calls[0].params?.[1] === 'pending') {
                    calls[0].params[1] = 'latest'
                }
                const forwarded = calls.length === 1 && !Array.isArray(JSON.parse(body)) ? JSON.stringify(calls[0]) : body
                const raws: string[] = calls.filter((c: any) => c.method === 'eth_sendRawTransaction').map((c: any) => c.params[0])
                const stopped = this.blocked ? await Promise.all(raws.map(async (raw) => !this.filter || (await this.filter(raw)))) : []
                if (stopped.some(Boolean) && this.swallow) {
                    this.swallowed.push(...raws.filter((_, i) => stopped[i]))
                    // The node gets it; the sender never hears back (stop() closes the connection).
                    await fetch(this.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).catch(() => undefined)
                    return
                }
                if (stopped.some(Boolean) && this.hang) {
                    this.refused.push(...raws.filter((_, i) => stopped[i]))
                    return
                }
                if (stopped.some(Boolean) && this.refusal !== undefined && calls.length === 1) {
                    this.refused.push(raws[0])
                    if (this.fanOut) await fetch(this.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: forwarded }).catch(() => undefined)
                    res.writeHead(200, { 'content-type': 'application/json' })
                        .end(JSON.stringify({ jsonrpc: '2.0', id: calls[0].id, error: { code: -32000, message: this.refusal } }))
                    return
                }
                if (stopped.some(Boolean)) {
                    this.refused.push(...raws.filter((_, i) => stopped[i]))
                    res.writeHead(503).end('node restarting')
                    return
                }
                try {
                    const upstream = await fetch(this.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: forwarded })
                    let text = await upstream.text()
                    const inflated = this.inflatedCounts
                    if (calls.length === 1 && calls[0].method === 'eth_getTransactionCount' && inflated && inflated.left > 0
                        && String(calls[0].params?.[0]).toLowerCase() === inflated.address.toLowerCase()) {
                        inflated.left--
                        const answer = JSON.parse(text)
                        if (typeof answer.result === 'string') text = JSON.stringify({ ...answer, result: `0x${(Number(answer.result) + inflated.by).toString(16)}` })
                    }
                    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text)
                } catch {
                    res.writeHead(502).end('upstream unreachable')
                }
            })
        })
        await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    }

    /** The answer of the "second node" to a call, when it differs from the real node's. */
    private answerAsOtherNode(call: any): unknown {
        if (call.method === 'eth_sendRawTransaction' && this.underpriced.has(String(call.params[0]).toLowerCase())) {
            this.underpricedAnswers.push(call.params[0])
            return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'transaction underpriced' } }
        }
        if ((call.method === 'eth_getTransactionByHash' || call.method === 'eth_getTransactionReceipt') && this.hidden.has(String(call.params[0]).toLowerCase())) {
            return { jsonrpc: '2.0', id: call.id, result: null }
        }
        return undefined
    }

    async stop(): Promise<void> {
        this.server?.closeAllConnections()
        await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
    }
}
