import express, { Express } from 'express'
import { ApiContext } from '../context'

/** The wallet platform API (issue 7). Placeholder until it is built. */
export function createPlatformApp(_ctx: ApiContext): Express {
    const app = express()
    app.disable('x-powered-by')
    return app
}
