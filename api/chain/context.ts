import { Response } from 'express'
import { createPublicClient, http, PublicClient } from 'viem'
import { rpcUrl } from '../../common/config'
import { ApiContext } from '../context'
import { boundedPool, Db, preparedDb } from './db'
import { ChainCaches } from './caches'
import { ChainHead } from './head'
import { ContractVerification } from './verification/service'

export interface ChainContext extends ApiContext {
    /** The database through prepared statements (see db.ts). */
    db: Db
    head: ChainHead
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
 * so a heavy public request is cancelled (503) instead of starving the other surfaces' connections.
 */
export function createChainContext(api: ApiContext): ChainContext {
    if (!api.env.DATABASE_URL) throw new Error('DATABASE_URL is required by the chain data API')
    const timeoutMs = api.env.CHAIN_API_STATEMENT_TIMEOUT_MS
    const pool = boundedPool({
        databaseUrl: api.env.DATABASE_URL, max: api.env.CHAIN_API_DB_POOL_SIZE, statementTimeoutMs: timeoutMs, name: 'chain data API', log: api.log,
    })
    const db = preparedDb(pool, timeoutMs)
    const head = new ChainHead(db)
    const node = createPublicClient({ transport: http(rpcUrl(api.env), { timeout: 5_000, retryCount: 1 }) }) as PublicClient
    // Writes (jobs, verified contracts) go through the process's main pool: the chain API's pool is for bounded public reads.
    const verification = new ContractVerification({ pool: api.pool, node, log: api.log, settings: api.env })
    return {
        ...api,
        db,
        head,
        caches: new ChainCaches(head, api.env.CHAIN_API_ITEM_CACHE_MB * 1024 * 1024, db),
        node,
        verification,
        closeDb: async () => {
            await verification.close()
            await pool.end()
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
