import * as http from 'http'
import { AddressInfo } from 'net'

export const MAX_LOG_RANGE = 10_000

/**
 * The faults a public JSON-RPC endpoint shows: a load balancer whose backends error, throttle,
 * time out, lag each other and disagree.
 * - rpc-error: a JSON-RPC error answer (code -32603), as a backend with an internal error gives.
 * - rate-limited: HTTP 429 with Retry-After.
 * - bad-gateway: HTTP 502.
 * - stall: no answer at all (the connection stays open until the client gives up).
 * - lagging: answered by a backend `lag` blocks behind: its head, balances, nonces, calls and
 *   logs are those of that block, blocks and receipts above it do not exist yet.
 * - head-back: only the head is behind (eth_blockNumber, the latest block), lower than a head
 *   already reported; everything else is fresh.
 * - receipt-lag: receipts of the newest `lag` blocks are not there yet, everything else is fresh
 *   (the account nonce already counts the transaction).
 * - logs-twice: eth_getLogs answers every log twice (a range served twice).
 * - receipt-logs-twice: every receipt of eth_getBlockReceipts and eth_getTransactionReceipt lists
 *   its logs twice (where the indexer reads logs: it never calls eth_getLogs).
 * - no-tracing: trace_* and debug_trace* do not exist (JSON-RPC -32601), as on most public nodes.
 * - reorged-out: a request naming a block by hash (eth_getBlockByHash, eth_getBlockReceipts,
 *   debug_traceBlockByHash) is held `holdMs`, then answered null (the trace: "block not found")
 *   when that block is no longer on the chain: a hash that stops existing mid-request.
 * - no-block-receipts: eth_getBlockReceipts does not exist (JSON-RPC -32601), as on nodes and
 *   load-balanced backends that lack it.
 * - batch-limit: a JSON-RPC batch of more than `batchLimit` calls is refused whole: by default as
 *   geth's --rpc.batch-request-limit does (HTTP 200 with one error object, not an array), with
 *   `refusal: 'http-413'` as providers that answer 413 Payload Too Large.
 */
export type FaultKind = 'rpc-error' | 'rate-limited' | 'bad-gateway' | 'stall' | 'lagging' | 'head-back' | 'receipt-lag' | 'logs-twice' | 'receipt-logs-twice' | 'no-tracing' | 'reorged-out' | 'no-block-receipts' | 'batch-limit'

export interface Fault {
    kind: FaultKind
    /** Every `every`-th request is faulty, the others are answered by a healthy backend (1: all). */
    every: number
    /** Blocks behind, for lagging, head-back and receipt-lag. */
    lag?: number
    /** Methods never faulted (e.g. eth_chainId at start). */
    spare?: string[]
    /** When set, only these methods are faulted. */
    only?: string[]
    /** How long reorged-out holds a request by hash before answering it. */
    holdMs?: number
    /** The most calls in a batch that batch-limit lets through. */
    batchLimit?: number
    /** How batch-limit refuses a larger batch. */
    refusal?: 'geth' | 'http-413'
}

const BY_HASH_METHODS = new Set(['eth_getBlockByHash', 'eth_getBlockReceipts', 'debug_traceBlockByHash'])
const BLOCK_HASH = /^0x[0-9a-fA-F]{64}$/

const LATEST_TAGS = new Set(['latest', 'pending'])
/** Methods whose last parameter is a block tag or number, answered at the lagging backend's head. */
const STATE_AT_BLOCK: Record<string, number> = { eth_getBalance: 1, eth_getTransactionCount: 1, eth_getCode: 1, eth_call: 1, eth_getStorageAt: 2 }

/**
 * A JSON-RPC proxy on loopback in front of a real node. It refuses eth_getLogs over more than
 * 10,000 blocks with the error public nodes give, and records what it was asked, so a test can
 * prove the indexer never asks for more. `failNext` makes the next requests fail at the HTTP
 * level, like a node that restarts; `fault` plays a faulty load-balanced endpoint (see Fault).
 */
export class RpcProxy {
    readonly calls = new Map<string, number>()
    maxLogRange = 0
    refusedLogQueries = 0
    fault?: Fault
    /** Rewrites the node's answer to a call before it is sent on (a provider's odd but legal values). */
    rewrite?: (call: { method: string; params: unknown[] }, answer: any) => unknown
    /** Requests answered with a fault, by kind. */
    readonly faulted = new Map<FaultKind, number>()
    /** HTTP requests received (a JSON-RPC batch is one), faulted or not. */
    received = 0
    /** Calls in the largest batch answered (not refused) since it was last set to 0. */
    largestBatch = 0
    /** Told the calls of every request received (a batch's all at once), before any fault. */
    onRequest?: (calls: { method: string; params?: unknown[] }[]) => void
    private failures = 0
    private requests = 0
    private server?: http.Server
    private readonly stalled = new Set<http.ServerResponse>()

    constructor(private readonly upstream: string) {}

    get url(): string {
        return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`
    }

    failNext(requests: number): void {
        this.failures = requests
    }

    /** Ends the fault; stalled requests are dropped (their clients have given up or will). */
    heal(): void {
        this.fault = undefined
        for (const res of this.stalled) res.destroy()
        this.stalled.clear()
    }

    async start(): Promise<void> {
        this.server = http.createServer((req, res) => {
            const chunks: Buffer[] = []
            req.on('data', (c) => chunks.push(c))
            req.on('end', () => void this.handle(Buffer.concat(chunks).toString(), res).catch(() => {
                if (!res.headersSent) res.writeHead(502).end('proxy: upstream unreachable')
            }))
        })
        await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    }

    async stop(): Promise<void> {
        this.heal()
        this.server?.closeAllConnections()
        await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
    }

    private count(kind: FaultKind): void {
        this.faulted.set(kind, (this.faulted.get(kind) ?? 0) + 1)
    }

    private async handle(body: string, res: http.ServerResponse): Promise<void> {
        this.received++
        if (this.failures > 0) {
            this.failures--
            res.writeHead(503).end('node restarting')
            return
        }
        const request = JSON.parse(body)
        const batch: any[] = Array.isArray(request) ? request : [request]
        this.onRequest?.(batch)
        const fault = this.fault
        const spared = (method: string) => fault?.spare?.includes(method) || (fault?.only !== undefined && !fault.only.includes(method))
        const faulty = fault !== undefined && !batch.every((c) => spared(c.method)) && ++this.requests % fault.every === 0
        if (faulty && fault.kind === 'batch-limit' && Array.isArray(request) && batch.length > (fault.batchLimit ?? 1)) {
            this.count('batch-limit')
            if (fault.refusal === 'http-413') res.writeHead(413, { 'content-type': 'text/plain' }).end('request entity too large')
            else res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}')
            return
        }
        if (Array.isArray(request)) this.largestBatch = Math.max(this.largestBatch, batch.length)
        if (faulty && fault.kind === 'stall') {
            this.count('stall')
            this.stalled.add(res)
            res.on('close', () => this.stalled.delete(res))
            return
        }
        if (faulty && (fault.kind === 'rate-limited' || fault.kind === 'bad-gateway')) {
            this.count(fault.kind)
            if (fault.kind === 'rate-limited') res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"error":"rate limited"}')
            else res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>')
            return
        }
        const answers = await Promise.all(batch.map((call) => this.answer(call, faulty ? fault : undefined)))
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(Array.isArray(request) ? answers : answers[0]))
    }

    private async answer(call: any, fault: Fault | undefined): Promise<unknown> {
        this.calls.set(call.method, (this.calls.get(call.method) ?? 0) + 1)
        if (call.method === 'eth_getLogs') {
            const { fromBlock, toBlock } = call.params[0]
            if (fromBlock !== undefined && toBlock !== undefined && !LATEST_TAGS.has(toBlock)) {
                const range = Number(BigInt(toBlock)) - Number(BigInt(fromBlock)) + 1
                this.maxLogRange = Math.max(this.maxLogRange, range)
                if (range > MAX_LOG_RANGE) {
                    this.refusedLogQueries++
                    return { jsonrpc: '2.0', id: call.id, error: { code: -32005, message: `query exceeds max block range ${MAX_LOG_RANGE}` } }
                }
            }
        }
        if (fault && !fault.spare?.includes(call.method) && (fault.only === undefined || fault.only.includes(call.method))) {
            const answer = await this.faultyAnswer(call, fault)
            if (answer !== undefined) {
                this.count(fault.kind)
                return answer
            }
        }
        const answer = await this.forward(call)
        return this.rewrite ? this.rewrite(call, answer) : answer
    }

    /** The faulty answer to a call, or undefined when this fault leaves the call alone. */
    private async faultyAnswer(call: any, fault: Fault): Promise<unknown> {
        const reply = (result: unknown) => ({ jsonrpc: '2.0', id: call.id, result })
        const error = (message: string, code = -32000) => ({ jsonrpc: '2.0', id: call.id, error: { code, message } })
        switch (fault.kind) {
            case 'rpc-error':
                return error('internal error: backend unavailable', -32603)
            case 'logs-twice': {
                if (call.method !== 'eth_getLogs') return undefined
                const answer: any = await this.forward(call)
                return Array.isArray(answer.result) ? reply([...answer.result, ...answer.result]) : answer
            }
            case 'receipt-logs-twice': {
                if (call.method !== 'eth_getBlockReceipts' && call.method !== 'eth_getTransactionReceipt') return undefined
                const answer: any = await this.forward(call)
                if (!answer.result) return answer
                const twice = (receipt: any) => ({ ...receipt, logs: [...receipt.logs, ...receipt.logs] })
                return reply(Array.isArray(answer.result) ? answer.result.map(twice) : twice(answer.result))
            }
            case 'head-back': {
                // Lower than the head the healthy backend reports at the same moment (and reported before).
                const head = (await this.head()) - BigInt(fault.lag ?? 2)
                if (call.method === 'eth_blockNumber') return reply(hex(head < 0n ? 0n : head))
                if (call.method === 'eth_getBlockByNumber' && LATEST_TAGS.has(call.params[0])) {
                    return this.forward({ ...call, params: [hex(head < 0n ? 0n : head), ...call.params.slice(1)] })
                }
                return undefined
            }
            case 'receipt-lag': {
                if (call.method !== 'eth_getTransactionReceipt') return undefined
                const answer: any = await this.forward(call)
                const head = await this.head()
                if (answer.result && BigInt(answer.result.blockNumber) > head - BigInt(fault.lag ?? 1)) return reply(null)
                return answer
            }
            case 'lagging':
                return this.lagging(call, (await this.head()) - BigInt(fault.lag ?? 1), reply, error)
            case 'no-tracing':
                return /^(trace_|debug_trace)/.test(call.method) ? error(`the method ${call.method} does not exist/is not available`, -32601) : undefined
            case 'no-block-receipts':
                return call.method === 'eth_getBlockReceipts' ? error(`the method ${call.method} does not exist/is not available`, -32601) : undefined
            case 'reorged-out': {
                const hash = call.params?.[0]
                if (!BY_HASH_METHODS.has(call.method) || typeof hash !== 'string' || !BLOCK_HASH.test(hash)) return undefined
                if (fault.holdMs) await new Promise((r) => setTimeout(r, fault.holdMs))
                if (await this.isCanonical(hash)) return undefined
                return call.method === 'debug_traceBlockByHash' ? error(`block ${hash} not found`) : reply(null)
            }
            default:
                return undefined
        }
    }

    /** A backend whose head is `head`: nothing above it exists there yet. */
    private async lagging(call: any, head: bigint, reply: (r: unknown) => unknown, error: (m: string) => unknown): Promise<unknown> {
        const above = (value: string | null | undefined) => value !== null && value !== undefined && BigInt(value) > head
        const at = (tag: unknown): string | undefined => {
            if (typeof tag === 'string' && (LATEST_TAGS.has(tag))) return hex(head)
            if (typeof tag === 'string' && tag.startsWith('0x') && BigInt(tag) > head) return 'missing'
            return undefined
        }
        switch (call.method) {
            case 'eth_blockNumber':
                return reply(hex(head))
            case 'eth_getBlockByNumber': {
                const [tag, ...rest] = call.params
                if (tag === 'finalized' || tag === 'safe') {
                    const answer: any = await this.forward(call)
                    if (answer.result && BigInt(answer.result.number) > head) return this.forward({ ...call, params: [hex(head), ...rest] })
                    return answer
                }
                const target = at(tag)
                if (target === 'missing') return reply(null)
                return target ? this.forward({ ...call, params: [target, ...rest] }) : undefined
            }
            case 'eth_getBlockByHash':
            case 'eth_getTransactionReceipt':
            case 'eth_getTransactionByHash': {
                const answer: any = await this.forward(call)
                return answer.result && above(answer.result.blockNumber ?? answer.result.number) ? reply(null) : answer
            }
            case 'eth_getLogs': {
                const filter = { ...call.params[0] }
                if (filter.blockHash) return undefined
                if (filter.fromBlock && !LATEST_TAGS.has(filter.fromBlock) && BigInt(filter.fromBlock) > head) return reply([])
                if (!filter.toBlock || LATEST_TAGS.has(filter.toBlock) || BigInt(filter.toBlock) > head) filter.toBlock = hex(head)
                return this.forward({ ...call, params: [filter] })
            }
            case 'trace_block':
            case 'debug_traceBlockByNumber':
                return above(call.params[0]) ? error(`block ${call.params[0]} not found`) : undefined
            default: {
                const index = STATE_AT_BLOCK[call.method]
                if (index === undefined) return undefined
                const params = [...call.params]
                const target = at(params[index] ?? 'latest')
                if (target === 'missing') return error('header not found')
                if (target) params[index] = target
                return this.forward({ ...call, params })
            }
        }
    }

    /** Whether the node has this block, and it is the one at its height (not an orphan it still keeps). */
    private async isCanonical(hash: string): Promise<boolean> {
        const block: any = await this.forward({ jsonrpc: '2.0', id: 0, method: 'eth_getBlockByHash', params: [hash, false] })
        if (!block.result) return false
        const atHeight: any = await this.forward({ jsonrpc: '2.0', id: 0, method: 'eth_getBlockByNumber', params: [block.result.number, false] })
        return atHeight.result?.hash === block.result.hash
    }

    private async head(): Promise<bigint> {
        const answer: any = await this.forward({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] })
        return BigInt(answer.result)
    }

    private async forward(call: unknown): Promise<unknown> {
        const upstream = await fetch(this.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call) })
        return upstream.json()
    }
}

const hex = (n: bigint) => `0x${n.toString(16)}`
