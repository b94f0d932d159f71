import express, { Router } from 'express'
import { ApiContext } from '../context'

export function chainRouter(_ctx: ApiContext): Router {
    const router = express.Router()
    router.get('/config/backend-version', (_req, res) => {
        res.json({ backend_version: null })
    })
    return router
}
