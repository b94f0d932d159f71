import { Pool } from 'pg'
import { PROJECT_DIR, useDatabaseUrl } from '../db/migrate'
import { listen } from '../common/service/listen'
import { observePool } from '../common/service/metrics'
import { operationsListener } from '../common/service/operations-port'
import { databaseCheck, ReadyChecks } from '../common/service/ready-checks'
import { runService } from '../common/service/run-service'
import { parseIndexerEnv } from './config'

/**
 * Subsquid's GraphQL server over the indexer's tables, for analysts. It reads schema.graphql from
 * the project directory and its connection and port from its own variables, which are set here
 * from this project's configuration. Its HTTP server is Subsquid's, so /health, /ready and
 * /metrics are on a port of their own (GRAPHQL_HEALTH_PORT): docs/operations.md
 */
runService('graphql', async ({ log, onStop }) => {
    const env = parseIndexerEnv()
    if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required')
    useDatabaseUrl(env.DATABASE_URL)
    process.env.GQL_PORT = String(env.GRAPHQL_PORT)
    process.chdir(PROJECT_DIR)
    process.argv.push('--max-root-fields', '20', '--max-response-size', '100000', '--sql-statement-timeout', '10000')
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the server starts as its module loads
    require('@subsquid/graphql-server/lib/main')

    const pool = new Pool({ connectionString: env.DATABASE_URL, max: 1 })
    pool.on('error', (err) => log.warn({ err }, 'database connection lost'))
    observePool('main', pool)
    const ready = new ReadyChecks()
        .add('database', databaseCheck(pool))
        .add('graphql', async () => {
            const res = await fetch(`http://127.0.0.1:${env.GRAPHQL_PORT}/graphql`, {
                method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }),
            }).catch(() => undefined)
            if (!res?.ok) throw new Error('the GraphQL server does not answer')
        })
    const server = await listen(operationsListener('graphql', () => ready.report()), env.GRAPHQL_HEALTH_PORT)
    onStop(() => server.close(), () => pool.end())
    log.info({ port: server.port }, 'readiness at GET /ready, metrics at GET /metrics')
})
