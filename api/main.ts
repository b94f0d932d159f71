import express from 'express'
import { loadSecrets } from '../common/secrets'
import { ApiDoc } from '../common/service/api-doc'
import { openDatabase } from '../common/service/database'
import { listen } from '../common/service/listen'
import { runService, Service } from '../common/service/run-service'
import { createChainApi } from './chain/router'
import { parseApiEnv } from './config'
import { ApiContext } from './context'
import { explorerErrorSchema } from './explorer/errors'
import { explorerRouter } from './explorer/router'

/**
 * The api process: on the explorer port, the explorer services API (/api), the chain data API
 * (/api/v2) and its live-update socket (/socket/v2/websocket). The wallet platform, which holds
 * MASTER_KEY, is a process of its own (platform/main.ts). Stateless apart from Postgres, so it can
 * run as several replicas.
 */
async function main(service: Service): Promise<void> {
    const { log, onStop } = service
    const env = parseApiEnv()
    const { pool } = await openDatabase(env.DATABASE_URL, service)
    const ctx: ApiContext = { env, secrets: loadSecrets(env, ['jwtSecret'], log), pool, log }

    const explorer = express()
    explorer.disable('x-powered-by')
    // No automatic ETags, as Blockscout sends none: hashing every 50-150 KB list answer costs more
    // than the rare 304 saves. Finalized data carries an immutable Cache-Control instead, and the
    // DeFi figures set their own ETag.
    explorer.set('etag', false)
    // A hop count, never `true`: `true` would believe the left-most X-Forwarded-For entry, which the client writes.
    explorer.set('trust proxy', env.TRUST_PROXY)
    // One OpenAPI document for the port: the chain data API's routes carry their own error body.
    const doc = new ApiDoc({ title: 'Explorer services and chain data API', version: '1.0.0', errorSchema: explorerErrorSchema })
    doc.serve(explorer)
    const chain = createChainApi(ctx, doc)
    onStop(() => chain.close())
    // /api/v2 and the Etherscan-style API (GET /api?module=...) first: the explorer services own the rest of /api.
    explorer.use('/api/v2', chain.router)
    explorer.get('/api', chain.etherscan)
    explorer.use('/api', explorerRouter(ctx, doc))
    const explorerServer = await listen(explorer, env.EXPLORER_PORT)
    await chain.socket.attach(explorerServer.server, '/socket/v2/websocket')
    onStop(() => chain.socket.close(), () => explorerServer.close())
    log.info({ explorerPort: explorerServer.port }, 'api listening')
}

runService('api', main)
