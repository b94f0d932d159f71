import express, { Router } from 'express'
import { ApiContext } from '../context'

/** The explorer services API under /api (issue 6). Placeholder until it is built. */
export function explorerRouter(_ctx: ApiContext): Router {
    const router = express.Router()
    return router
}
