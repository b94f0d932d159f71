import { CallOptions, RpcClient, RpcClientOptions, RpcError } from '@subsquid/rpc-client'
import { Logger } from '../common/logger'

/** JSON-RPC batches sized to what the node accepts: docs/RELIABILITY.md#what-the-indexer-does-about-faults */

/** How long batches stay at one size without a refusal before they are tried twice as large. */
export const WIDEN_AFTER_MS = 10_000

type Call = Parameters<RpcClient['batchCall']>[0][number]

/**
 * The largest batch to send: halved on every refusal (down to single calls), doubled after
 * WIDEN_AFTER_MS without one (up to the ceiling), so a node whose limit was lifted gets large
 * batches again. Each change is logged once.
 */
export class BatchSize {
    private size: number
    private changedAt: number

    constructor(readonly ceiling: number, private readonly log: Logger, private readonly now: () => number = Date.now) {
        this.size = ceiling
        this.changedAt = now()
    }

    get current(): number {
        return this.size
    }

    /** The node refused a batch of `size` calls. */
    refused(size: number, reason: string): void {
        // Even when the size is already smaller (batches sent before it changed): the node still
        // refuses, so wider batches wait a whole period again.
        this.changedAt = this.now()
        const next = Math.max(1, Math.floor(size / 2))
        if (next >= this.size) return
        this.size = next
        this.log.warn({ batchSize: next, refused: size, reason }, 'the node refused a JSON-RPC batch: sending smaller ones')
    }

    /** The node answered a batch. */
    answered(): void {
        if (this.size >= this.ceiling || this.now() - this.changedAt < WIDEN_AFTER_MS) return
        this.size = Math.min(this.ceiling, this.size * 2)
        this.changedAt = this.now()
        this.log.info({ batchSize: this.size }, 'no batch refused for a while: sending larger ones again')
    }
}

/** Thrown from inside the client when one call's error says its batch was too large. */
class BatchRefused extends Error {}

const RATE_LIMIT = /rate limit/i
/**
 * Per-call errors about the batch rather than the call: geth's "batch too large" and "response
 * too large" (-32003, once a batch's answers exceed its size limit), and providers' variants.
 */
const REFUSAL = /batch.*(too large|too big|limit|exceed)|too many .*batch|response.*(too large|too big|size.*exceed)/i

/** Why this failure of a batch means "send fewer calls at once", or undefined when it does not. */
export function batchRefusal(err: unknown): string | undefined {
    const e = err as { name?: string; message?: string; response?: { status?: number } }
    if (err instanceof BatchRefused) return err.message
    // Over geth's --rpc.batch-request-limit the answer is one error object, not an array.
    if (e?.name === 'RpcProtocolError' && /batch request should be an array|length of a batch response/i.test(String(e.message))) return String(e.message)
    if (e?.name === 'HttpError' && e.response?.status === 413) return 'HTTP 413 Payload Too Large'
    return undefined
}

/**
 * Subsquid's client with batches no larger than `batchSize` allows, re-sent smaller when the node
 * refuses one. Callers' own error validators still see every other per-call error.
 */
export class BatchSizingRpcClient extends RpcClient {
    readonly batchSize: BatchSize

    constructor(options: Omit<RpcClientOptions, 'maxBatchCallSize'> & { batchSize: BatchSize }) {
        const { batchSize, ...rest } = options
        super(rest)
        this.batchSize = batchSize
    }

    override async batchCall<T = any>(batch: Call[], options?: CallOptions<T>): Promise<T[]> {
        const size = this.batchSize.current
        const groups: Call[][] = []
        for (let i = 0; i < batch.length; i += size) groups.push(batch.slice(i, i + size))
        return (await Promise.all(groups.map((group) => this.sendGroup<T>(group, options)))).flat()
    }

    private async sendGroup<T>(calls: Call[], options: CallOptions<T> | undefined): Promise<T[]> {
        // A single call is sent as such, not as a batch: nothing to narrow.
        if (calls.length <= 1) return super.batchCall<T>(calls, options)
        const validateError = options?.validateError
        try {
            const answers = await super.batchCall<T>(calls, {
                ...options,
                validateError: (info, req) => {
                    if (REFUSAL.test(info.message) && !RATE_LIMIT.test(info.message)) throw new BatchRefused(info.message)
                    if (validateError) return validateError(info, req)
                    throw new RpcError(info)
                },
            })
            this.batchSize.answered()
            return answers
        } catch (err) {
            const reason = batchRefusal(err)
            if (reason === undefined) throw err
            this.batchSize.refused(calls.length, reason)
            return this.batchCall(calls, options)
        }
    }
}
