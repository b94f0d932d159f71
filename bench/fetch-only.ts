import type { HotDatabaseState } from '@subsquid/util-internal-processor-tools'
import { createLogger } from '../common/logger'
import { IngestDatabase, runIngestion } from '../indexer/ingest'
import { Readiness } from '../indexer/readiness'
import { createRpcClient } from '../indexer/rpc'
import { fetchTraces } from '../indexer/traces'

/**
 * The indexer's fetch path alone: its ingestion (runIngestion: the same client, batch sizing,
 * blocks per request and field selection) over a database that stores nothing, counting what
 * arrives. With BENCH_TRACES=1 it also reads every block's call trees as the indexer does
 * (trace_block). Prints one JSON line.
 */
class NullDatabase implements IngestDatabase<object> {
    readonly supportsHotBlocks = true as const
    indexedHeight = -1
    async connect(): Promise<HotDatabaseState> {
        return { height: -1, hash: '0x', top: [] }
    }
    async disconnect(): Promise<void> {}
    async transact(_info: unknown, cb: (store: object) => Promise<void>): Promise<void> {
        await cb({})
    }
    async transactHot(): Promise<void> {
        throw new Error('transactHot2 is used instead')
    }
    async transactHot2(info: { newBlocks: unknown[] }, cb: (store: object, start: number, end: number) => Promise<void>): Promise<void> {
        await cb({}, 0, info.newBlocks.length)
    }
}

const started = Date.now()
const counts = { blocks: 0, transactions: 0, logs: 0, frames: 0 }
const traces = process.env.BENCH_TRACES === '1'
const log = createLogger('fetch-only')
const rpc = createRpcClient(process.env.RPC_URL!, log)
const database = new NullDatabase()

async function main(): Promise<void> {
    await runIngestion({
        rpcUrl: process.env.RPC_URL!,
        finalityConfirmation: Number(process.env.INDEXER_FINALITY_CONFIRMATION ?? 10),
        toBlock: Number(process.env.INDEXER_END_BLOCK),
        requestTimeoutMs: 10_000,
        fetchSplit: Number(process.env.INDEXER_FETCH_SPLIT ?? 10),
        database,
        readiness: new Readiness({ indexedHeight: () => database.indexedHeight, chainHead: async () => 0, pingDatabase: async () => undefined, maxLag: 0 }),
        log,
        index: async (_store, blocks) => {
            for (const block of blocks) {
                counts.blocks += 1
                counts.transactions += block.transactions.length
                counts.logs += block.logs.length
            }
            if (traces) {
                const frames = await fetchTraces(rpc, 'trace_block', blocks.map((b) => ({
                    height: b.header.height,
                    hash: b.header.hash,
                    transactions: b.transactions.map((t) => ({ hash: t.hash, transactionIndex: t.transactionIndex })),
                })), log)
                for (const list of frames.values()) counts.frames += list.length
            }
        },
    })
    process.stdout.write(JSON.stringify({ ...counts, ms: Date.now() - started }) + '\n')
}

main().then(() => process.exit(0), (err) => {
    process.stderr.write(`${err.stack ?? err}\n`)
    process.exit(1)
})
