import { Pool } from 'pg'
import { ourContracts, rpcUrl } from '../common/config'
import { listen } from '../common/service/listen'
import { observePool } from '../common/service/metrics'
import { runService, Service } from '../common/service/run-service'
import { HEAD_CHANNEL, HeadNotification } from '../db/channels'
import { applyMigrations } from '../db/migrate'
import { dexFactories, parseIndexerEnv } from './config'
import { BatchingDatabase } from './database'
import { indexBlocks, IndexerContext } from './handlers'
import { runIngestion } from './ingest'
import { batchCommitted, observeHeights } from './metrics'
import { Readiness } from './readiness'
import { IndexerLock } from './singleton'
import { startNftMetadataFetcher } from './nft-metadata/main'
import { createRpcClient } from './rpc'
import { BackfillProgress } from './progress'
import { ChainState } from './state'
import { detectTracing } from './traces'
import { ContractVerifier } from './verification'

/**
 * Rows held before a commit. Two batches are in memory while one commits and the next is derived,
 * and a row costs the heap about 1 KB; the garbage collector lets the heap grow to a few times what
 * stays alive, so this keeps the indexer under 1 GiB: docs/indexer.md#batches-and-commits
 */
const MAX_BATCH_ROWS = 200_000

/**
 * Only the readiness endpoint is closed on the way out: a batch cut short is rolled back by
 * Postgres, and the next run resumes from the last commit.
 */
async function main({ log, onStop }: Service): Promise<void> {
    const env = parseIndexerEnv()
    if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required (npm start sets it for the embedded database)')
    const applied = await applyMigrations(env.DATABASE_URL)
    if (applied.length) log.info({ applied }, 'migrations applied')

    // Our contracts are optional (docs/own-chain.md): without them pools are indexed unpriced.
    const contracts = ourContracts(env)
    const factories = dexFactories(env)
    const state = new ChainState({
        wnative: contracts?.wnative.toLowerCase() ?? null,
        stable: contracts?.stable.toLowerCase() ?? null,
        ourFactory: contracts?.factory.toLowerCase() ?? null,
        factories: new Set(factories),
    })
    if (!contracts) log.info('our contracts are not configured: prices and quote figures of the DeFi tables stay unknown (docs/own-chain.md)')
    const url = rpcUrl(env)
    const requestTimeoutMs = env.INDEXER_RPC_TIMEOUT * 1000
    const rpc = createRpcClient(url, log, requestTimeoutMs)
    const pool = new Pool({ connectionString: env.DATABASE_URL, max: 4 })
    // An idle connection that Postgres closes (a restart) is replaced on the next query.
    pool.on('error', (err) => log.warn({ err }, 'database connection lost'))
    observePool('main', pool)
    const tracing = env.INDEXER_TRACING === 'auto' ? await detectTracing(rpc, log) : env.INDEXER_TRACING
    if (tracing === 'none') log.warn('the node offers neither trace_block nor debug_traceBlockByHash: internal transactions are not indexed, and balance history sees only transactions and fees')
    const context: IndexerContext = { state, rpc, verifier: new ContractVerifier(), tracing, log }
    const progress = new BackfillProgress(log, async () => Number(await rpc.call('eth_blockNumber', [], { retryAttempts: 0 })), env.INDEXER_READY_MAX_LAG)
    const database = new BatchingDatabase({
        maxBlocks: env.INDEXER_BATCH_BLOCKS,
        maxRows: MAX_BATCH_ROWS,
        endBlock: env.INDEXER_END_BLOCK,
        state,
        rpc,
        query: async (sql, params) => (await pool.query(sql, params)).rows,
        log,
        onCommitted: (mode, rows, seconds) => {
            if (rows.block) batchCommitted(mode, rows, seconds)
            if (mode === 'final' && rows.block) void progress.committed(database.indexedHeight)
        },
        onCommit: async (em, batch) => {
            if (batch.isEmpty) return
            await em.query('SELECT pg_notify($1, $2)', [
                HEAD_CHANNEL,
                JSON.stringify({ number: batch.lastBlock, hash: batch.lastBlockHash, blocks: batch.blockCount } satisfies HeadNotification),
            ])
        },
    })
    const readiness = new Readiness({
        indexedHeight: () => database.indexedHeight,
        chainHead: async () => Number(await rpc.call('eth_blockNumber', [], { retryAttempts: 0 })),
        pingDatabase: async () => void await pool.query('SELECT 1'),
        maxLag: env.INDEXER_READY_MAX_LAG,
    })
    observeHeights({
        chainHead: async () => {
            const head = await rpc.call<{ number: string; timestamp: string }>('eth_getBlockByNumber', ['latest', false], { retryAttempts: 0 })
            return { number: Number(head.number), timestamp: Number(head.timestamp) }
        },
        indexedHead: async () => {
            const { rows: [row] } = await pool.query('SELECT last_block, last_block_timestamp FROM chain_counters WHERE id = $1', ['chain'])
            return row?.last_block_timestamp ? { number: row.last_block, timestamp: row.last_block_timestamp.getTime() / 1000 } : null
        },
    })
    const server = await listen(readiness.handler(), env.INDEXER_HEALTH_PORT)
    onStop(() => server.close())
    log.info({ port: server.port }, 'readiness at GET /ready, metrics at GET /metrics')
    const lock = await IndexerLock.acquire(env.DATABASE_URL, log, {
        onStandby: () => (readiness.lock = 'standby'),
        // Another indexer writes now: stop at once; a supervisor starts this one again, as a standby.
        onLost: () => process.exit(1),
    })
    onStop(() => lock.release())
    readiness.lock = 'holding'
    // Started once this process holds the lock: one fetcher per database, like one writer.
    if (env.NFT_METADATA_ENABLED) onStop(startNftMetadataFetcher(env, url, log))
    log.info({ rpc: url, finalityConfirmation: env.INDEXER_FINALITY_CONFIRMATION, tracing, dexFactories: factories }, 'indexer starting')
    const end = await runIngestion({
        rpcUrl: url,
        finalityConfirmation: env.INDEXER_FINALITY_CONFIRMATION,
        fromBlock: env.INDEXER_START_BLOCK,
        toBlock: env.INDEXER_END_BLOCK,
        requestTimeoutMs,
        fetchSplit: env.INDEXER_FETCH_SPLIT,
        database,
        index: (store, blocks) => indexBlocks(context, store.batch, blocks),
        readiness,
        log,
    })
    // A bounded backfill is a job: it ends. A stop stays up to answer /ready with the reason
    // (a restart would only stop again).
    if (end === 'end block reached') {
        await database.disconnect()
        await pool.end()
        await lock.release()
        log.info({ endBlock: env.INDEXER_END_BLOCK }, 'end block reached')
        process.exit(0)
    }
}

runService('indexer', main)
