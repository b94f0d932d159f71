import { ourContracts } from '../common/config'
import { loadSecrets } from '../common/secrets'
import { openDatabase } from '../common/service/database'
import { listen } from '../common/service/listen'
import { runService, Service } from '../common/service/run-service'
import { createApiApp } from './app'
import { parseApiEnv } from './config'
import { ApiContext } from './context'

/**
 * The api process: on the explorer port, the explorer services API (/api), the chain data API
 * (/api/v2) and its live-update socket (/socket/v2/websocket). The wallet platform, which holds
 * MASTER_KEY, is a process of its own (platform/main.ts). Stateless apart from Postgres, so it can
 * run as several replicas.
 */
async function main(service: Service): Promise<void> {
    const { log, onStop } = service
    const env = parseApiEnv()
    // A partial set of our contracts stops the start here, with the variables missing; none is a chain we did not deploy.
    ourContracts(env)
    const { pool } = await openDatabase(env.DATABASE_URL, service)
    const ctx: ApiContext = { env, secrets: loadSecrets(env, ['jwtSecret'], log), pool, log }

    const { app, chain, alerts } = createApiApp(ctx)
    onStop(() => chain.close())
    alerts.start()
    onStop(() => alerts.stop())
    const explorerServer = await listen(app, env.EXPLORER_PORT)
    await chain.socket.attach(explorerServer.server, '/socket/v2/websocket')
    onStop(() => chain.socket.close(), () => explorerServer.close())
    log.info({ explorerPort: explorerServer.port }, 'api listening')
}

runService('api', main)
