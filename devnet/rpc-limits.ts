import { createServer, IncomingHttpHeaders, IncomingMessage, Agent, request as httpRequest, ServerResponse } from 'http'
import { AddressInfo, connect, createServer as createTcpServer, Socket } from 'net'
import { Logger } from '../common/logger'

/**
 * The devnet's JSON-RPC as public nodes serve it: a proxy in front of anvil that refuses what
 * hosted nodes refuse, so code that works against `npm start` does not first fail in production
 * (docs/devnet.md#limits-of-a-public-node). anvil itself serves any block range and any batch.
 */

export interface RpcLimits {
    /** The widest block range (inclusive) one eth_getLogs may cover. */
    getLogsMaxBlocks: number
    /** The most calls one JSON-RPC batch may hold. */
    batchMax: number
}

export interface RpcLimiter {
    url: string
    /** Drops open connections (HTTP and WebSocket) and stops listening. */
    stop(): Promise<void>
}

interface Call {
    jsonrpc?: unknown
    id?: unknown
    method?: unknown
    params?: unknown
}

/** QuickNode's answer to a wide eth_getLogs (its HTTP status is 413, its wording ours to copy). */
export function getLogsRangeError(id: unknown, maxBlocks: number) {
    return { jsonrpc: '2.0', id: id ?? null, error: { code: -32614, message: `eth_getLogs is limited to a ${maxBlocks.toLocaleString('en-US')} range` } }
}

/** Erigon's answer to a batch over `--rpc.batch.limit` (default 100): one error object, not an array. */
export function batchLimitError(limit: number, size: number) {
    return { jsonrpc: '2.0', id: null, error: { code: -32000, message: `batch limit ${limit} exceeded (can increase by --rpc.batch.limit). Requested batch of size: ${size}` } }
}

const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/

/**
 * Blocks an eth_getLogs filter covers, both ends included, or undefined when it names one block
 * by hash or an end the node must judge itself (anvil answers those as it always does). Tags are
 * resolved against the node, as a provider resolves them before applying its limit.
 */
async function filterWidth(filter: unknown, blockOf: (tag: string) => Promise<bigint | undefined>): Promise<bigint | undefined> {
    if (typeof filter !== 'object' || filter === null) return undefined
    const { fromBlock, toBlock, blockHash } = filter as Record<string, unknown>
    if (blockHash !== undefined) return undefined
    const end = async (value: unknown): Promise<bigint | undefined> => {
        if (value === undefined || value === null) return blockOf('latest')
        if (typeof value !== 'string') return undefined
        if (QUANTITY.test(value)) return BigInt(value)
        if (value === 'earliest') return 0n
        if (['latest', 'pending', 'safe', 'finalized'].includes(value)) return blockOf(value)
        return undefined
    }
    const [from, to] = [await end(fromBlock), await end(toBlock)]
    if (from === undefined || to === undefined || to < from) return undefined
    return to - from + 1n
}

/** A TCP port free on 127.0.0.1 a moment ago: where anvil listens behind the proxy. */
export async function freeLoopbackPort(): Promise<number> {
    const server = createTcpServer()
    await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(0, '127.0.0.1', resolve)
    })
    const { port } = server.address() as AddressInfo
    await new Promise<void>((resolve) => server.close(() => resolve()))
    return port
}

function readBody(req: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
        const chunks: Buffer[] = []
        req.on('data', (chunk: Buffer) => chunks.push(chunk))
        req.on('end', () => resolve(Buffer.concat(chunks)))
        req.on('error', reject)
    })
}

function answer(res: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    res.end(text)
}

/**
 * Starts the proxy on 127.0.0.1:`port` in front of the anvil at `upstream`. Everything within the
 * limits reaches anvil byte for byte and comes back as anvil answered it, anvil's own methods
 * (evm_*, anvil_*) included; WebSocket connections are relayed unread (no service of ours uses
 * one, and a provider's limits there are its own).
 */
export async function startRpcLimiter(options: { port: number; upstream: string; limits: RpcLimits; log?: Logger }): Promise<RpcLimiter> {
    const { limits, log } = options
    const upstream = new URL(options.upstream)
    const agent = new Agent({ keepAlive: true })

    const forward = (method: string, path: string, headers: IncomingHttpHeaders, body: Buffer): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> =>
        new Promise((resolve, reject) => {
            const out = httpRequest({
                agent, host: upstream.hostname, port: upstream.port, method, path,
                headers: { ...headers, host: upstream.host, 'content-length': String(body.length) },
            }, (res) => {
                readBody(res).then((data) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: data }), reject)
            })
            out.on('error', reject)
            out.end(body)
        })

    const rpc = async (call: Call): Promise<unknown> => {
        const { body } = await forward('POST', '/', { 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, ...call })))
        const parsed = JSON.parse(body.toString()) as { result?: unknown; error?: { message?: string } }
        if (parsed.error) throw new Error(parsed.error.message)
        return parsed.result
    }
    const blockOf = async (tag: string): Promise<bigint | undefined> => {
        if (tag === 'latest' || tag === 'pending') return BigInt(await rpc({ method: 'eth_blockNumber', params: [] }) as string)
        const block = await rpc({ method: 'eth_getBlockByNumber', params: [tag, false] }) as { number?: string } | null
        return block?.number ? BigInt(block.number) : undefined
    }
    /** Whether this call is an eth_getLogs wider than the limit. */
    const tooWide = async (call: unknown): Promise<boolean> => {
        const c = call as Call
        if (typeof c !== 'object' || c === null || c.method !== 'eth_getLogs' || !Array.isArray(c.params)) return false
        const width = await filterWidth(c.params[0], blockOf)
        return width !== undefined && width > BigInt(limits.getLogsMaxBlocks)
    }

    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
        const body = await readBody(req)
        const relay = async (payload: Buffer) => {
            const reply = await forward(req.method ?? 'POST', req.url ?? '/', req.headers, payload)
            const headers = { ...reply.headers }
            delete headers['transfer-encoding']
            res.writeHead(reply.status, { ...headers, 'content-length': String(reply.body.length) })
            res.end(reply.body)
        }
        let parsed: unknown
        try {
            parsed = req.method === 'POST' ? JSON.parse(body.toString()) : undefined
        } catch {
            parsed = undefined
        }
        if (Array.isArray(parsed)) {
            if (parsed.length > limits.batchMax) {
                log?.debug({ size: parsed.length, limit: limits.batchMax }, 'devnet RPC: batch refused')
                return answer(res, 200, batchLimitError(limits.batchMax, parsed.length))
            }
            const wide = await Promise.all(parsed.map(tooWide))
            if (!wide.includes(true)) return relay(body)
            // The calls within the limits still reach the node; the answers of a batch may come in any order (JSON-RPC 2.0, section 6).
            const refused = parsed.filter((_, i) => wide[i]).map((call: Call) => getLogsRangeError(call.id, limits.getLogsMaxBlocks))
            const rest = parsed.filter((_, i) => !wide[i])
            if (rest.length === 0) return answer(res, 200, refused)
            const reply = await forward('POST', req.url ?? '/', req.headers, Buffer.from(JSON.stringify(rest)))
            const answered = JSON.parse(reply.body.toString()) as unknown
            return answer(res, reply.status, Array.isArray(answered) ? [...answered, ...refused] : answered)
        }
        if (parsed !== undefined && await tooWide(parsed)) {
            log?.debug({ limit: limits.getLogsMaxBlocks }, 'devnet RPC: eth_getLogs range refused')
            return answer(res, 413, getLogsRangeError((parsed as Call).id, limits.getLogsMaxBlocks))
        }
        return relay(body)
    }

    const sockets = new Set<Socket>()
    const server = createServer((req, res) => {
        handle(req, res).catch((err) => {
            // anvil unreachable (stopping, restarting): what a provider's gateway answers then.
            if (!res.headersSent) answer(res, 502, { jsonrpc: '2.0', id: null, error: { code: -32603, message: `upstream node unavailable: ${(err as Error).message}` } })
            else res.destroy()
        })
    })
    server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
        const node = connect(Number(upstream.port), upstream.hostname)
        sockets.add(client).add(node)
        const drop = () => {
            client.destroy()
            node.destroy()
            sockets.delete(client)
            sockets.delete(node)
        }
        client.on('error', drop).on('close', drop)
        node.on('error', drop).on('close', drop)
        node.on('connect', () => {
            const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`]
            for (let i = 0; i < req.rawHeaders.length; i += 2) {
                lines.push(`${req.rawHeaders[i]}: ${/^host$/i.test(req.rawHeaders[i]) ? upstream.host : req.rawHeaders[i + 1]}`)
            }
            node.write(lines.join('\r\n') + '\r\n\r\n')
            if (head.length > 0) node.write(head)
            node.pipe(client)
            client.pipe(node)
        })
    })
    await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(options.port, '127.0.0.1', () => {
            server.off('error', reject)
            resolve()
        })
    })
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        stop: async () => {
            for (const socket of sockets) socket.destroy()
            server.closeAllConnections()
            await new Promise<void>((resolve) => server.close(() => resolve()))
            agent.destroy()
        },
    }
}
