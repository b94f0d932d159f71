import { Pool } from 'pg'
import { ChainContext } from '../context'
import { Db, preparedDb } from '../db'
import { Recent } from '../recent'

/** What one statement of this API may take before Postgres cancels it. */
export const STATEMENT_TIMEOUT_MS = 10_000
/** How old the total coin supply may be (see stats.ts). */
export const SUPPLY_TTL_MS = 60_000

export interface EtherscanContext extends ChainContext {
    /**
     * Statements of this API, on a small pool of its own whose sessions carry a statement timeout:
     * its lists reach 10,000 rows and its log filters may scan a block range, so a heavy request
     * gets "Query Timeout" instead of holding a connection the v2 API's pages need.
     */
    edb: Db
    supply: Recent<string>
    close(): Promise<void>
}

export function createEtherscanContext(chain: ChainContext): EtherscanContext {
    const pool = chain.env.DATABASE_URL
        ? new Pool({ connectionString: chain.env.DATABASE_URL, max: 4, statement_timeout: STATEMENT_TIMEOUT_MS })
        : undefined
    pool?.on('error', (err) => chain.log.error({ err }, 'idle database connection of the Etherscan-style API failed'))
    return {
        ...chain,
        edb: pool ? preparedDb(pool) : chain.db,
        supply: new Recent<string>(SUPPLY_TTL_MS),
        close: async () => {
            await pool?.end()
        },
    }
}
