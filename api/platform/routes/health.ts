import { Router } from 'express'
import { PlatformServices } from '../services'

/**
 * GET /health: liveness, no authentication. Answers from configuration only, so a slow node or
 * database cannot make the probe itself time out. rpcConfigured says whether the chain endpoint
 * and contract addresses are known, i.e. whether the chain routes can work at all.
 */
export function healthRoutes(s: PlatformServices): Router {
    const router = Router()
    router.get('/health', (_req, res) => {
        res.json({
            status: 'ok',
            timestamp: new Date().toISOString(),
            chainId: String(s.chain.chainId),
            rpcConfigured: s.chain.configured(),
        })
    })
    return router
}
