import { Pool } from 'pg'
import { Logger } from '../common/logger'
import { Secrets } from '../common/secrets'
import { ApiEnv } from './config'

/** What every surface of the api process is built from: configuration, the one database, a logger. */
export interface ApiContext {
    env: ApiEnv
    /** Only the session secret: wallet keys and MASTER_KEY belong to the platform process. */
    secrets: Pick<Secrets, 'jwtSecret'>
    pool: Pool
    log: Logger
}
