import { Pool } from 'pg'
import { Env } from '../common/config'
import { Logger } from '../common/logger'
import { Secrets } from '../common/secrets'

/** What every surface of the api process is built from: configuration, the one database, a logger. */
export interface ApiContext {
    env: Env
    secrets: Secrets
    pool: Pool
    log: Logger
}
