import express, { Express } from 'express'
import { SharedEnv } from '../../common/config'
import { ApiDoc } from '../../common/service/api-doc'
import { errorHandler } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'
import { instrument, operationsRoutes } from '../../common/service/operations'
import { databaseCheck, ReadyChecks } from '../../common/service/ready-checks'
import { EngineContext } from '../engine/context'
import { webhookRoutes } from '../webhooks/routes'
import { Webhooks } from '../webhooks/service'
import { bridgeErrors, bridgeErrorSchema } from './errors'
import { swapListRoutes } from './history'
import { infoRoutes } from './info'
import { faviconRoutes, swapPageRoutes } from './swap-page'
import { quoteRoutes } from './quote'
import { bridgeExamples } from './request-doc'
import { swapRoutes } from './swaps'

const DESCRIPTION = 'The bridge API (docs/bridge/lifecycle.md) and the webhook admin API (docs/bridge/webhooks.md).\n\n' +
    'Swaps are also followed over a WebSocket at `/ws` on this port (not an HTTP route, so not listed here). JSON text frames: ' +
    'send `{"type":"subscribe","swap_id":"…"}` or `{"type":"subscribe","address":"0x…"}` (and `unsubscribe`); ' +
    'the server pushes `{"type":"swap_update","swap_id","event","status","tx_hash"?,"event_id","timestamp"}` for every event. ' +
    'Send `{"type":"ping"}` within the idle timeout (`websocket.idle_timeout_seconds` in GET /api/swap/config) or the socket is closed with code 4000. ' +
    'Limits: subscriptions per socket, sockets per client IP (the next upgrade is answered HTTP 429), messages per second (close code 1008) ' +
    'and an unread send buffer (close code 4008): docs/bridge/lifecycle.md, WebSocket.'

/**
 * The bridge port's app: the bridge API under /api, the webhook admin API under /api/webhook and
 * their OpenAPI document at /api/docs (docs/bridge/README.md, docs/openapi.md), the swap page at /swap/:id, and /health, /ready
 * and /metrics (docs/operations.md); the process adds its networks to `ready`. The WebSocket shares the server at /ws.
 */
export function createApp(env: SharedEnv, ctx: EngineContext, vaults: Map<string, string>, webhooks: Webhooks): { app: Express; doc: ApiDoc; ready: ReadyChecks } {
    const app = express()
    app.disable('x-powered-by')
    app.set('trust proxy', env.TRUST_PROXY)
    instrument(app)
    const doc = new ApiDoc({ title: 'Bridge API and webhook admin API', version: '1.0.0', description: DESCRIPTION, errorSchema: bridgeErrorSchema, examples: bridgeExamples(ctx.config) })
    app.use((_req, res, next) => {
        res.set('X-Content-Type-Options', 'nosniff')
        next()
    })
    app.use('/api', express.json({ limit: '16kb', type: 'application/json' }))
    // Info routes first: /api/swap/config and /api/swap/pool-price/... are not swap ids.
    doc.mount(app, infoRoutes(ctx, vaults, doc))
    doc.mount(app, quoteRoutes(ctx, doc))
    doc.mount(app, swapRoutes(ctx, doc))
    doc.mount(app, swapListRoutes(ctx, doc))
    doc.mount(app, swapPageRoutes(ctx, doc))
    doc.mount(app, faviconRoutes(doc))
    doc.mount(app, webhookRoutes(webhooks, doc))
    const ready = new ReadyChecks().add('database', databaseCheck(ctx.pool))
    doc.mount(app, operationsRoutes(doc, { ready }))
    // After every route, so the documentation can shadow none of them.
    doc.serve(app)
    app.use(() => {
        throw new HttpError(404, 'no such route', { code: 'not_found' })
    })
    app.use(errorHandler(bridgeErrors, ctx.log))
    return { app, doc, ready }
}
