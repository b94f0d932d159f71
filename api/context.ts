import { Pool } from 'pg'
import { Logger } from '../common/logger'
import { Secrets } from '../common/secrets'
import { ApiEnv } from './config'

/** What every surface of the api process is built from: configuration, the one database, a logger. */
export interface ApiContext {
    env: ApiEnv
    secrets: Secrets
    pool: Pool
    log: Logger
}
