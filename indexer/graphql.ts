import { Pool } from 'pg'
import { PROJECT_DIR } from '../db/migrate'
import { listen } from '../common/service/listen'
import { observePool } from '../common/service/metrics'
import { operationsListener } from '../common/service/operations-port'
import { databaseCheck, ReadyChecks } from '../common/service/ready-checks'
import { runService } from '../common/service/run-service'
import { parseIndexerEnv } from './config'

/**
 * Subsquid's GraphQL server over the indexer's tables, for analysts (graphql-server.ts), with the
 * limits of GRAPHQL_* (docs/indexer.md#graphql-limits). Its HTTP server is Subsquid's, so /health,
 * /ready and /metrics are on a port of their own (GRAPHQL_HEALTH_PORT): docs/operations.md
 */
runService('graphql', async ({ log, onStop }) => {
    const env = parseIndexerEnv()
    if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required')
    // Apollo Server 3's documented switch: `debug`, which Subsquid's server leaves to NODE_ENV, is off
    // in production, so no answer carries a stack trace, and Express (under Apollo) answers a body it
    // refuses without one. Both read it as their modules load or build their app, hence the late import.
    process.env.NODE_ENV = 'production'
    const { startGraphqlServer } = await import('./graphql-server')
    const graphql = await startGraphqlServer({
        databaseUrl: env.DATABASE_URL,
        port: env.GRAPHQL_PORT,
        projectDir: PROJECT_DIR,
        maxResponseNodes: env.GRAPHQL_MAX_RESPONSE_NODES,
        maxRootFields: env.GRAPHQL_MAX_ROOT_FIELDS,
        statementTimeoutMs: env.GRAPHQL_STATEMENT_TIMEOUT_MS,
        maxRequestKb: env.GRAPHQL_MAX_REQUEST_KB,
        poolSize: env.GRAPHQL_DB_POOL_SIZE,
    })

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
    onStop(() => server.close(), () => graphql.close(), () => pool.end())
    log.info({ port: server.port }, 'readiness at GET /ready, metrics at GET /metrics')
})
