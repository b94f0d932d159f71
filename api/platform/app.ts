import express, { Express } from 'express'
import { errorHandler } from '../../common/service/error-handler'
import { HttpError, pendingTransactionAnswer, platformErrors } from './http'
import { healthRoutes } from './routes/health'
import { poolRoutes } from './routes/pools'
import { swapRoutes } from './routes/swap'
import { tokenRoutes } from './routes/token'
import { walletRoutes } from './routes/wallet'
import { createServices, PlatformContext } from './services'

/**
 * The wallet platform API (docs/platform-api.md): managed wallets the server signs for.
 * Served on PLATFORM_PORT by its own process (main.ts). Chain routes answer 503 while no chain
 * contracts are configured, so the process starts without a chain.
 */
export function createPlatformApp(ctx: PlatformContext): Express {
    const services = createServices(ctx)
    const app = express()
    app.disable('x-powered-by')
    app.set('trust proxy', ctx.env.TRUST_PROXY)
    // Express's query parser would turn user_id[]=a into an array; plain strings are all the platform takes.
    app.set('query parser', 'simple')
    app.use(express.json({ limit: '100kb' }))
    app.use(healthRoutes(services))
    app.use(walletRoutes(services))
    app.use(tokenRoutes(services))
    app.use(poolRoutes(services))
    app.use(swapRoutes(services))
    app.use(() => {
        throw new HttpError(404, 'No such route')
    })
    app.use(pendingTransactionAnswer)
    app.use(errorHandler(platformErrors, services.log))
    return app
}
