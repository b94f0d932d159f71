import { ChainContext } from '../context'
import { boundedPool, Db, preparedDb } from '../db'

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

export function createEtherscanContext(chain: ChainContext): EtherscanContext {
    const timeoutMs = chain.env.ETHERSCAN_API_STATEMENT_TIMEOUT_MS
    const pool = chain.env.DATABASE_URL
        ? boundedPool({ databaseUrl: chain.env.DATABASE_URL, max: POOL_SIZE, statementTimeoutMs: timeoutMs, name: 'Etherscan-style API', log: chain.log })
        : undefined
    return {
        ...chain,
        edb: pool ? preparedDb(pool, timeoutMs) : chain.db,
        close: async () => {
            await pool?.end()
        },
    }
}
