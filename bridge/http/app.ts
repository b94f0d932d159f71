import express, { Express } from 'express'
import { SharedEnv } from '../../common/config'
import { errorHandler } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'
import { EngineContext } from '../engine/context'
import { webhookRoutes } from '../webhooks/routes'
import { Webhooks } from '../webhooks/service'
import { bridgeErrors } from './errors'
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
    app.use(() => {
        throw new HttpError(404, 'no such route', { code: 'not_found' })
    })
    app.use(errorHandler(bridgeErrors, ctx.log))
    return app
}
