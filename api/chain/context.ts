import { Response } from 'express'
import { createPublicClient, http, PublicClient } from 'viem'
import { rpcUrl } from '../../common/config'
import { ApiContext } from '../context'
import { Db, preparedDb } from './db'
import { ChainCaches } from './caches'
import { ChainHead, IndexedHead, ServedHead } from './head'
import { ReadDatabases } from './read-databases'
import { ContractVerification } from './verification/service'

export interface ChainContext extends ApiContext {
    /** The database the running request reads (`reads`), through prepared statements (see db.ts). */
    db: Db
    /** The indexed head of that same database. */
    head: IndexedHead
    /** Which database each request reads: the replicas of CHAIN_API_READ_DATABASE_URL, or the primary. */
    reads: ReadDatabases
    /** Each read database on its own, in the order of `reads.urls` (readiness asks each for its head). */
    readDbs: readonly Db[]
    /** Every answer and figure kept between requests, with the rule that ends each (see caches.ts). */
    caches: ChainCaches
    /** The node, for the little the indexer does not keep (a contract's runtime code). */
    node: PublicClient
    /** Verification of submitted sources, with its compile processes (docs/contract-verification.md). */
    verification: ContractVerification
    /** Ends the chain API's own database connections and the verification's threads. */
    closeDb(): Promise<void>
}

/**
 * The chain API reads through a pool of its own whose sessions carry CHAIN_API_STATEMENT_TIMEOUT_MS,
 * so a heavy public request is cancelled (503) instead of starving the other surfaces' connections:
 * one such pool per read database (the replicas of CHAIN_API_READ_DATABASE_URL, or the primary).
 */
export function createChainContext(api: ApiContext): ChainContext {
    const reads = new ReadDatabases(api.env)
    const timeoutMs = api.env.CHAIN_API_STATEMENT_TIMEOUT_MS
    const pools = reads.pools({ max: api.env.CHAIN_API_DB_POOL_SIZE, statementTimeoutMs: timeoutMs, name: 'chain data API', log: api.log })
    const readDbs = pools.map((pool) => preparedDb(pool, timeoutMs))
    // The database the running request reads: its statements, and the rendered items' checks of what a commit changed.
    const db = reads.route(readDbs)
    const heads = readDbs.map((each) => new ChainHead(each))
    const head = new ServedHead(reads, heads)
    const node = createPublicClient({ transport: http(rpcUrl(api.env), { timeout: 5_000, retryCount: 1 }) }) as PublicClient
    // Writes (jobs, verified contracts) go through the process's main pool, on the primary: the chain API's pools are for bounded public reads.
    const verification = new ContractVerification({ pool: api.pool, node, log: api.log, settings: api.env })
    return {
        ...api,
        db,
        head,
        reads,
        readDbs,
        caches: new ChainCaches(reads, readDbs.map((each, i) => ({ head: heads[i], db: each })), head, api.env.CHAIN_API_ITEM_CACHE_MB * 1024 * 1024),
        node,
        verification,
        closeDb: async () => {
            await verification.close()
            await Promise.all(pools.map((pool) => pool.end()))
        },
    }
}

/**
 * Data of a block deeper than the indexer's finality depth can no longer change: such answers are
 * cacheable for good. Everything else may change with the next block.
 */
export function setBlockCaching(res: Response, ctx: ChainContext, blockNumber: number, headNumber: number): void {
    if (blockNumber <= headNumber - ctx.env.INDEXER_FINALITY_CONFIRMATION) {
        res.set('Cache-Control', 'public, max-age=31536000, immutable')
    } else {
        res.set('Cache-Control', 'public, max-age=1')
    }
}

export function setLiveCaching(res: Response): void {
    res.set('Cache-Control', 'no-cache')
}
