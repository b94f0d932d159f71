import express, { Express } from 'express'
import { SharedEnv } from '../../common/config'
import { Logger } from '../../common/logger'
import { ApiDoc } from '../../common/service/api-doc'
import { errorHandler } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'
import { instrument, operationsRoutes } from '../../common/service/operations'
import { ReadyChecks } from '../../common/service/ready-checks'
import { bridgeErrors, bridgeErrorSchema } from './errors'

/**
 * The bridge on a chain without our contracts (docs/own-chain.md): it swaps the native coin through
 * our WNATIVE/STABLE pool and pays STABLE, so without them it has nothing to offer. It still starts,
 * so that `npm start` and a supervisor do not restart it in a loop, and says why on every route:
 * 503 `bridge_off` on each, `/ready` 503 naming the variables, `/health` 200 (the process is up).
 * Nothing is signed, watched or derived: no vault key is used.
 */
export function createOffApp(env: SharedEnv, reason: string, log: Logger): Express {
    const app = express()
    app.disable('x-powered-by')
    app.set('trust proxy', env.TRUST_PROXY)
    instrument(app)
    const doc = new ApiDoc({ title: 'Bridge API (off)', version: '1.0.0', description: reason, errorSchema: bridgeErrorSchema })
    const ready = new ReadyChecks().add('contracts', async () => {
        throw new Error(reason)
    })
    doc.mount(app, operationsRoutes(doc, { ready }))
    doc.serve(app)
    app.use(() => {
        throw new HttpError(503, reason, { code: 'bridge_off' })
    })
    app.use(errorHandler(bridgeErrors, log))
    return app
}
