import { PROJECT_DIR, useDatabaseUrl } from '../db/migrate'
import { parseIndexerEnv } from './config'

/**
 * Subsquid's GraphQL server over the indexer's tables, for analysts. It reads schema.graphql from
 * the project directory and its connection and port from its own variables, which are set here
 * from this project's configuration.
 */
const env = parseIndexerEnv()
if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required')
useDatabaseUrl(env.DATABASE_URL)
process.env.GQL_PORT = String(env.GRAPHQL_PORT)
process.chdir(PROJECT_DIR)
process.argv.push('--max-root-fields', '20', '--max-response-size', '100000', '--sql-statement-timeout', '10000')
require('@subsquid/graphql-server/lib/main')
