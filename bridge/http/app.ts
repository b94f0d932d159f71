import express, { Express } from 'express'
import { SharedEnv } from '../../common/config'
import { EngineContext } from '../engine/context'
import { webhookRoutes } from '../webhooks/routes'
import { Webhooks } from '../webhooks/service'
import { errorHandler, sendError } from './errors'
import { infoRoutes } from './info'
import { swapRoutes } from './swaps'

/** The bridge's HTTP API under /api (docs/bridge/README.md). The WebSocket shares the server at /ws. */
export function createApp(env: SharedEnv, ctx: EngineContext, vaults: Map<string, string>, webhooks: Webhooks): Express {
    const app = express()
    app.disable('x-powered-by')
    app.set('trust proxy', env.TRUST_PROXY)
    app.use((_req, res, next) => {
        res.set('X-Content-Type-Options', 'nosniff')
        next()
    })
    app.use('/api', express.json({ limit: '16kb', type: 'application/json' }))
    // Info routes first: /api/swap/config and /api/swap/pool-price/... are not swap ids.
    app.use('/api', infoRoutes(ctx, vaults))
    app.use('/api', swapRoutes(ctx))
    app.use('/api/webhook', webhookRoutes(webhooks))
    app.get('/health', (_req, res) => {
        res.json({ status: 'ok', timestamp: new Date().toISOString() })
    })
    app.use((_req, res) => sendError(res, 404, 'not_found', 'no such route'))
    app.use(errorHandler(ctx.log))
    return app
}
