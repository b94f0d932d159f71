import express from 'express'
import { errorHandler } from '../../common/service/error-handler'
import { replayAnswers } from '../../common/service/idempotency'
import { instrument } from '../../common/service/operations'
import { createPlatformDoc } from './api-doc'
import { HttpError, pendingTransactionAnswer, platformErrors } from './http'
import { healthRoutes } from './routes/health'
import { historyRoutes } from './routes/history'
import { poolRoutes } from './routes/pools'
import { swapRoutes } from './routes/swap'
import { swapQuoteRoutes } from './routes/swap-quote'
import { tokenRoutes } from './routes/token'
import { walletRoutes } from './routes/wallet'
import { createServices, PlatformContext } from './services'

/**
 * The wallet platform API (docs/platform-api.md): managed wallets the server signs for.
 * Served on PLATFORM_PORT by its own process (main.ts), with its OpenAPI document at /api/docs
 * (docs/openapi.md). Chain routes answer 503 while no chain contracts are configured, so the
 * process starts without a chain. `stop` ends its background work, before its pool closes.
 */
export function createPlatformApp(ctx: PlatformContext) {
    const services = createServices(ctx)
    const doc = createPlatformDoc()
    const app = express()
    app.disable('x-powered-by')
    app.set('trust proxy', ctx.env.TRUST_PROXY)
    // Express's query parser would turn user_id[]=a into an array; plain strings are all the platform takes.
    app.set('query parser', 'simple')
    instrument(app)
    app.use(express.json({ limit: '100kb' }))
    doc.serve(app)
    for (const routes of [healthRoutes, walletRoutes, historyRoutes, tokenRoutes, poolRoutes, swapQuoteRoutes, swapRoutes]) doc.mount(app, routes(services, doc))
    app.use(() => {
        throw new HttpError(404, 'No such route')
    })
    app.use(replayAnswers)
    app.use(pendingTransactionAnswer)
    app.use(errorHandler(platformErrors, services.log))
    return { app, doc, stop: services.stop }
}
