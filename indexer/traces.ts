import { RpcClient } from '@subsquid/rpc-client'
import { Logger } from '../common/logger'

/** Call trees of every block's transactions, read from the node by trace_block or debug_traceBlockByHash: docs/indexer.md#call-trees-internal-transactions */

export type TracingMethod = 'trace_block' | 'debug_traceBlockByHash' | 'none'
export const TRACING_METHODS: readonly TracingMethod[] = ['trace_block', 'debug_traceBlockByHash', 'none']

export type FrameType = 'call' | 'delegatecall' | 'staticcall' | 'callcode' | 'create' | 'create2' | 'selfdestruct' | 'reward'

/** One call frame, the same whichever API it came from. Addresses are lowercase. */
export interface Frame {
    /** null for frames outside any transaction (block rewards) */
    transactionHash: string | null
    transactionIndex: number
    traceAddress: number[]
    type: FrameType
    from: string
    /** callee or selfdestruct beneficiary; null for creations and rewards */
    to: string | null
    createdContract: string | null
    value: bigint
    gas: bigint | null
    gasUsed: bigint | null
    input: string | null
    output: string | null
    error: string | null
}

export interface TracedBlock {
    height: number
    hash: string
    transactions: { hash: string; transactionIndex: number }[]
}

const qty = (value: string | undefined | null): bigint | null => (value == null ? null : BigInt(value))
const lower = (value: string | undefined | null): string | null => (value == null ? null : value.toLowerCase())

/** One frame object, every field in one order, so all frames share one shape (half a million per backfill run). */
function frame(
    tx: { hash: string; transactionIndex: number } | undefined, traceAddress: number[], type: FrameType, from: string,
    to: string | null, createdContract: string | null, value: bigint, gas: bigint | null, gasUsed: bigint | null,
    input: string | null, output: string | null, error: string | null
): Frame {
    return {
        transactionHash: tx?.hash ?? null, transactionIndex: tx?.transactionIndex ?? -1, traceAddress, type, from, to,
        createdContract, value, gas, gasUsed, input, output, error,
    }
}

/** Frames of one block from `trace_block`, checked to be of this block and complete. */
export function parseParityFrames(block: TracedBlock, raw: any[]): Frame[] {
    const byHash = new Map(block.transactions.map((t) => [t.hash, t]))
    const topLevel = new Set<string>()
    const frames: Frame[] = new Array(raw.length)
    for (let i = 0; i < raw.length; i++) {
        const f = raw[i]
        // Compared as sent first: nodes send lowercase hex, and a lowercase copy per frame is garbage to collect.
        if (f.blockHash !== block.hash && String(f.blockHash).toLowerCase() !== block.hash) {
            throw new InconsistentTraceError(`trace_block ${block.height} answered frames of block ${f.blockHash}, not ${block.hash}`)
        }
        // The block's own hash strings, not one copy per frame: a backfill holds millions of frames.
        const tx = f.transactionHash == null ? undefined : byHash.get(f.transactionHash) ?? byHash.get(f.transactionHash.toLowerCase())
        if (f.transactionHash != null && !tx) {
            throw new InconsistentTraceError(`trace_block ${block.height} answered a frame of transaction ${f.transactionHash}, which is not in block ${block.hash}`)
        }
        if (tx && f.traceAddress.length === 0) topLevel.add(tx.hash)
        const a = f.action ?? {}
        const r = f.result ?? null
        const error = f.error ?? null
        switch (f.type) {
            case 'call':
                frames[i] = frame(tx, f.traceAddress, callType(a.callType), a.from.toLowerCase(), lower(a.to), null,
                    qty(a.value) ?? 0n, qty(a.gas), qty(r?.gasUsed), a.input ?? null, r?.output ?? null, error)
                break
            case 'create':
                frames[i] = frame(tx, f.traceAddress, a.creationMethod === 'create2' ? 'create2' : 'create', a.from.toLowerCase(), null,
                    lower(r?.address), qty(a.value) ?? 0n, qty(a.gas), qty(r?.gasUsed), a.init ?? null, r?.code ?? null, error)
                break
            case 'suicide':
            case 'selfdestruct':
                frames[i] = frame(tx, f.traceAddress, 'selfdestruct', a.address.toLowerCase(), lower(a.refundAddress), null,
                    qty(a.balance) ?? 0n, null, null, null, null, error)
                break
            case 'reward':
                frames[i] = frame(tx, f.traceAddress, 'reward', '0x0000000000000000000000000000000000000000', a.author.toLowerCase(), null,
                    qty(a.value) ?? 0n, null, null, null, null, error)
                break
            default:
                throw new InconsistentTraceError(`trace_block ${block.height} answered a frame of unknown type ${JSON.stringify(f.type)}`)
        }
    }
    if (topLevel.size !== block.transactions.length) {
        throw new InconsistentTraceError(`trace_block ${block.height} traced ${topLevel.size} of its ${block.transactions.length} transactions`)
    }
    return frames
}

/** Frames of one block from `debug_traceBlockByHash` with the call tracer, flattened depth first. */
export function parseCallTracerFrames(block: TracedBlock, raw: any[]): Frame[] {
    if (raw.length !== block.transactions.length) {
        throw new InconsistentTraceError(`debug_traceBlockByHash ${block.hash} traced ${raw.length} of its ${block.transactions.length} transactions`)
    }
    const frames: Frame[] = []
    raw.forEach((entry, position) => {
        const tx = block.transactions[position]
        if (entry.txHash && String(entry.txHash).toLowerCase() !== tx.hash) {
            throw new InconsistentTraceError(`debug_traceBlockByHash ${block.hash} answered transaction ${entry.txHash} at position ${position}, not ${tx.hash}`)
        }
        if (entry.error || !entry.result) throw new InconsistentTraceError(`debug_traceBlockByHash ${block.hash}: ${entry.error ?? 'no result'} for ${tx.hash}`)
        const walk = (call: any, traceAddress: number[]) => {
            const type = String(call.type).toLowerCase()
            const created = type === 'create' || type === 'create2'
            frames.push({
                transactionHash: tx.hash,
                transactionIndex: tx.transactionIndex,
                traceAddress,
                type: type === 'selfdestruct' ? 'selfdestruct' : created ? (type as FrameType) : callType(type),
                from: call.from.toLowerCase(),
                to: created ? null : lower(call.to),
                createdContract: created && !call.error ? lower(call.to) : null,
                value: qty(call.value) ?? 0n,
                gas: type === 'selfdestruct' ? null : qty(call.gas),
                gasUsed: type === 'selfdestruct' ? null : qty(call.gasUsed),
                input: call.input ?? null,
                output: call.output ?? null,
                error: call.error ?? null,
            })
            ;(call.calls ?? []).forEach((child: any, i: number) => walk(child, [...traceAddress, i]))
        }
        walk(entry.result, [])
    })
    return frames
}

function callType(value: string | undefined): FrameType {
    switch (value) {
        case 'delegatecall':
        case 'staticcall':
        case 'callcode':
            return value
        default:
            return 'call'
    }
}

/** The node answered, but not about our block (a reorganisation, or a backend behind the others). */
export class InconsistentTraceError extends Error {}

/** Errors meaning the node does not offer a method at all, as opposed to failing this time. */
function isUnsupported(message: string): boolean {
    return /method not found|not supported|does not exist|not available|unsupported|not enabled|unknown method|-32601/i.test(message)
}

/**
 * Asks the node which tracing API it answers, trying each on the latest block. Only an answer that
 * the method does not exist rules one out; any other failure (a timeout, a restarting node) is
 * asked again, so a node that is briefly down does not turn tracing off for good.
 */
export async function detectTracing(rpc: RpcClient, log: Logger, attempts = 10): Promise<TracingMethod> {
    const probes: { method: TracingMethod; call: (tag: string, hash: string) => { method: string; params: unknown[] } }[] = [
        { method: 'trace_block', call: (tag) => ({ method: 'trace_block', params: [tag] }) },
        { method: 'debug_traceBlockByHash', call: (_tag, hash) => ({ method: 'debug_traceBlockByHash', params: [hash, { tracer: 'callTracer' }] }) },
    ]
    for (const probe of probes) {
        for (let attempt = 1; ; attempt++) {
            try {
                const head = await rpc.call<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false])
                const request = probe.call(head.number, head.hash)
                const answer = await rpc.call(request.method, request.params)
                if (Array.isArray(answer)) return probe.method
                log.warn({ method: probe.method }, 'the node answered a tracing probe with something other than a list; trying the next method')
                break
            } catch (err) {
                const message = String((err as Error)?.message ?? err)
                if (isUnsupported(message)) break
                if (attempt >= attempts) throw new Error(`cannot tell whether the node offers ${probe.method}: ${message}`, { cause: err })
                log.warn({ method: probe.method, attempt, err: message }, 'tracing probe failed; asking again')
                await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * attempt, 10_000)))
            }
        }
    }
    return 'none'
}

const RETRY_LIMIT = 8

/**
 * The frames of every block, in block order. An answer that is not about our block is asked again
 * with a growing pause; if the node then says the block is no longer canonical, the block is left
 * without frames (it is unfinalized and the processor is about to roll it back). Anything else
 * keeps being asked: a lagging node costs time, never data.
 */
export async function fetchTraces(rpc: RpcClient, method: TracingMethod, blocks: TracedBlock[], log: Logger): Promise<Map<number, Frame[]>> {
    const result = new Map<number, Frame[]>()
    if (method === 'none' || blocks.length === 0) return result
    let pending = blocks
    for (let attempt = 1; pending.length > 0; attempt++) {
        // A JSON-RPC error on one block (a backend without the block yet, an internal error) is
        // kept as that block's answer and asked again, like an answer about another block.
        const answers: unknown[] = await rpc.batchCall(pending.map((b) => method === 'trace_block'
            ? { method: 'trace_block', params: ['0x' + b.height.toString(16)] }
            : { method: 'debug_traceBlockByHash', params: [b.hash, { tracer: 'callTracer' }] }), {
            validateError: (info) => new InconsistentTraceError(`${method}: ${info.message}`),
        })
        const retry: TracedBlock[] = []
        for (let i = 0; i < pending.length; i++) {
            const block = pending[i]
            try {
                const answer = answers[i]
                if (answer instanceof InconsistentTraceError) throw answer
                if (!Array.isArray(answer)) throw new InconsistentTraceError(`${method} answered ${JSON.stringify(answer)?.slice(0, 100)} for block ${block.height}`)
                result.set(block.height, method === 'trace_block' ? parseParityFrames(block, answer) : parseCallTracerFrames(block, answer))
            } catch (err) {
                if (!(err instanceof InconsistentTraceError)) throw err
                if (attempt >= 3 && !(await isCanonical(rpc, block))) {
                    log.warn({ block: block.height, hash: block.hash }, 'block left the canonical chain before it was traced; indexing it without call trees until the processor rolls it back')
                    result.set(block.height, [])
                    continue
                }
                log.warn({ block: block.height, attempt, err: err.message }, 'no usable trace; asking again')
                retry.push(block)
            }
        }
        pending = retry
        if (pending.length) await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** Math.min(attempt, RETRY_LIMIT), 30_000)))
    }
    return result
}

/** Two agreeing reads that another block stands at this height: one read may come from a lagging backend. */
async function isCanonical(rpc: RpcClient, block: TracedBlock): Promise<boolean> {
    const read = async () => (await rpc.call<{ hash: string } | null>('eth_getBlockByNumber', ['0x' + block.height.toString(16), false]))?.hash?.toLowerCase()
    const first = await read()
    if (first === block.hash || first === undefined) return true
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const second = await read()
    return !(second === first)
}
