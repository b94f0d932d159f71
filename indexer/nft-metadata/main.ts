import { Pool } from 'pg'
import { Logger } from '../../common/logger'
import { observePool } from '../../common/service/metrics'
import { BatchSize, BatchSizingRpcClient } from '../batch-size'
import { IndexerEnv } from '../config'
import { MAX_BATCH_CALLS, nodeClientOptions } from '../rpc'
import { NftMetadataFetcher } from './fetcher'
import { DUE_COUNT_CAP, observeFetcher } from './metrics'

/** Connections of the fetcher: its passes and its writes, apart from the indexer's own so a slow one never delays a commit. */
const POOL_SIZE = 2

/**
 * Starts the fetcher in the indexer process, on its own connections and its own RPC client (calls
 * retried a few times, not forever as the indexer's are: a pass that fails is simply tried again).
 * Answers what stops it.
 */
export function startNftMetadataFetcher(env: IndexerEnv, rpcUrl: string, log: Logger): () => Promise<void> {
    const pool = new Pool({ connectionString: env.DATABASE_URL, max: POOL_SIZE })
    pool.on('error', (err) => log.warn({ err }, 'NFT metadata: database connection lost'))
    observePool('nft_metadata', pool)
    const rpc = new BatchSizingRpcClient({
        ...nodeClientOptions(rpcUrl, new BatchSize(MAX_BATCH_CALLS, log), env.INDEXER_RPC_TIMEOUT * 1000),
        retryAttempts: 3,
    })
    const fetcher = new NftMetadataFetcher(pool, rpc, log.child({ component: 'nft-metadata' }), {
        settings: env,
        marginBlocks: env.INDEXER_FINALITY_CONFIRMATION,
    })
    observeFetcher({ inHand: () => fetcher.inHand, due: () => fetcher.dueCount(DUE_COUNT_CAP) })
    fetcher.start()
    log.info({ concurrency: env.NFT_METADATA_CONCURRENCY, perHost: env.NFT_METADATA_PER_HOST, ipfsGateway: env.NFT_METADATA_IPFS_GATEWAY }, 'NFT metadata fetcher started')
    return async () => {
        const stopped = fetcher.stop()
        // A pass waiting on the node ends now rather than after its retries: the lock is released after this.
        rpc.close()
        await stopped
        await pool.end()
    }
}
