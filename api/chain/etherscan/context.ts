import { ChainContext } from '../context'
import { Db, preparedDb } from '../db'

/** Connections of this API's pool. */
const POOL_SIZE = 4

export interface EtherscanContext extends ChainContext {
    /**
     * Statements of this API, on a small pool of its own with ETHERSCAN_API_STATEMENT_TIMEOUT_MS,
     * longer than the v2 API's: its lists reach 10,000 rows and its log filters may scan a block
     * range, so a heavy request gets "Query Timeout" instead of holding a connection the v2 API's pages need.
     */
    edb: Db
    close(): Promise<void>
}

/** One such pool per read database (the replicas of CHAIN_API_READ_DATABASE_URL, or the primary), each request on the one its v2 statements would use. */
export function createEtherscanContext(chain: ChainContext): EtherscanContext {
    const timeoutMs = chain.env.ETHERSCAN_API_STATEMENT_TIMEOUT_MS
    const pools = chain.reads.pools({ max: POOL_SIZE, statementTimeoutMs: timeoutMs, name: 'Etherscan-style API', log: chain.log })
    return {
        ...chain,
        edb: chain.reads.route(pools.map((pool) => preparedDb(pool, timeoutMs))),
        close: async () => {
            await Promise.all(pools.map((pool) => pool.end()))
        },
    }
}
