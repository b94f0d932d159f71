import { createLogger as createSdkLogger } from '@subsquid/logger'
import { RpcError } from '@subsquid/rpc-client'
import { HotDatabase, PrometheusServer, Runner } from '@subsquid/util-internal-processor-tools'
import { Logger } from '../common/logger'
import { BatchSize, BatchSizingRpcClient } from './batch-size'
import { IndexerStore, ReorgBelowFinalityError } from './database'
import { SplitDataSource } from './fetch-split'
import { captureTypedFields } from './typed-fields'
import { BlockData, createProcessor, HEAD_POLL_INTERVAL_MS, ProcessorOptions } from './processor'
import { Readiness } from './readiness'
import { ReceiptsMethod } from './receipts-method'
import { MAX_BATCH_CALLS, nodeClientOptions } from './rpc'

/**
 * Runs Subsquid's processor loop inside a supervisor of our own, so that no node fault ends the
 * process: docs/RELIABILITY.md#what-the-indexer-does-about-faults
 */

/** Pauses (ms) before restarting the processor loop after consecutive failures: doubling, bounded. */
const RESTART_MIN_MS = 500
const RESTART_MAX_MS = 5000

/**
 * A client that sizes its batches to what the node accepts (batch-size.ts), and also retries
 * JSON-RPC internal errors (-32603): a load balancer answers them when a backend fails, and the
 * next attempt usually reaches a healthy one. Only the processor's reads (blocks and receipts) go
 * through it: the calls, state and trace reads of rpc.ts tell missing state from other errors,
 * which retrying would hide.
 */
class PatientRpcClient extends BatchSizingRpcClient {
    override isConnectionError(err: Error): boolean {
        return super.isConnectionError(err) || (err instanceof RpcError && err.code === -32603)
    }

    /**
     * Never: on a WebSocket the SDK's data source would follow the head by a `newHeads`
     * subscription and wait for it without a timeout, so a subscription the provider drops
     * silently would stop the indexer for good. Polling the height every second survives that.
     */
    override supportsNotifications(): boolean {
        return false
    }
}

/** What ingestion needs of its database: Subsquid's hot database, and the height it holds. */
export interface IngestDatabase<S> extends HotDatabase<S> {
    /** The last block committed (final or not), -1 before the first. */
    readonly indexedHeight: number
    /** Closes its connections; the next connect() opens them again. */
    disconnect(): Promise<void>
}

export interface IngestOptions<S = IndexerStore> extends ProcessorOptions {
    requestTimeoutMs: number
    /** Blocks per request of the backfill (docs/indexer.md#blocks-per-request). */
    fetchSplit: number
    database: IngestDatabase<S>
    index(store: S, blocks: BlockData[]): Promise<void>
    readiness: Readiness
    log: Logger
}

export type IngestEnd = 'end block reached' | 'stopped'

/**
 * Runs the processor until the end block, if any. A failure restarts it after a pause (counted in
 * `readiness.restarts` and logged); it resumes from the database's last commit. A failure that a
 * restart cannot mend (a reorg deeper than the finality setting) stops ingestion and makes the
 * readiness state say so; the process stays up.
 */
export async function runIngestion<S>(options: IngestOptions<S>): Promise<IngestEnd> {
    const { database, readiness, log } = options
    const sdkLog = createSdkLogger('sqd:processor')
    const requests = batchRequests(options)
    // What the node turned out to accept outlives the restarts of the loop.
    const batchSize = new BatchSize(MAX_BATCH_CALLS, log)
    const receiptsMethod = new ReceiptsMethod(log)
    let failures = 0
    for (let attempt = 0; ; attempt++) {
        const rpc = new PatientRpcClient({
            ...nodeClientOptions(options.rpcUrl, batchSize, options.requestTimeoutMs),
            rateLimit: options.rateLimit,
            log: sdkLog.child('rpc', { rpcUrl: options.rpcUrl }),
        })
        const heightBefore = database.indexedHeight
        let pauseMs: number
        captureTypedFields()
        const dataSource = new SplitDataSource({
            rpc,
            finalityConfirmation: options.finalityConfirmation,
            headPollInterval: HEAD_POLL_INTERVAL_MS,
            log: sdkLog.child('rpc', { rpcUrl: options.rpcUrl }),
        }, options.fetchSplit)
        receiptsMethod.watch(dataSource)
        const runner = new Runner({
            database,
            requests,
            hotDataSource: dataSource,
            allBlocksAreFinal: false,
            prometheus: prometheusFor(attempt),
            log: sdkLog,
            // The SDK's block entities are what its typed BlockData describes for our field selection.
            process: (store, batch) => options.index(store, batch.blocks as unknown as BlockData[]),
        })
        try {
            await runner.run()
            return 'end block reached'
        } catch (err) {
            const reason = unrecoverable(err)
            if (reason) {
                readiness.stop(reason)
                log.fatal({ err }, `ingestion stopped: ${reason}; the database is left as it was, fix the chain or re-index`)
                return 'stopped'
            }
            if (database.indexedHeight > heightBefore) failures = 0
            failures++
            readiness.restarts++
            pauseMs = Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** (failures - 1))
            log.error({ err, restarts: readiness.restarts, pauseMs }, 'ingestion failed: restarting from the last commit')
        } finally {
            rpc.close()
        }
        await database.disconnect().catch((err) => log.warn({ err }, 'closing the database after a failure'))
        await new Promise((r) => setTimeout(r, pauseMs))
    }
}

/** Subsquid's range requests for our field selection, as EvmBatchProcessor builds them. */
function batchRequests(options: ProcessorOptions) {
    // The builder keeps them private; this is the one place that reaches them.
    return (createProcessor(options) as unknown as { getBatchRequests(): any[] }).getBatchRequests()
}

/**
 * Each attempt registers fresh metrics, which a registry takes only once: every attempt gets a
 * server of its own, and only the first one listens (at PROMETHEUS_PORT, as the SDK does).
 */
function prometheusFor(attempt: number): PrometheusServer {
    const server = new PrometheusServer()
    if (attempt > 0) server.serve = async () => ({ port: 0, close: async () => undefined })
    return server
}

/** Why the processor cannot carry on by restarting, or undefined when a restart may help. */
function unrecoverable(err: unknown): string | undefined {
    const text = String((err as Error)?.message ?? err)
    // While backfilling: a block that does not continue the committed final ones.
    if (err instanceof ReorgBelowFinalityError) return 'reorg deeper than finality'
    // A value the schema cannot hold: the node will send it again on every attempt.
    if ((err as Error)?.name === 'LogIndexOutOfRange') return text
    // At start: the last final block the database holds is no longer on the chain.
    if (/already indexed block .* was not found on chain/.test(text)) return 'reorg deeper than finality'
    // While following: the SDK's fork walk passed below the finalized block it keeps.
    if ((err as Error)?.name === 'AssertionError' && /util-internal-ingest-tools[\\/]lib[\\/]hot/.test(String((err as Error)?.stack))) {
        return 'reorg deeper than finality'
    }
    return undefined
}
