import { z } from 'zod'
import { ApiDoc, DocumentedRouter } from '../../../common/service/api-doc'
import { PlatformServices } from '../services'

const Health = z.looseObject({
    status: z.literal('ok'),
    timestamp: z.string(),
    chainId: z.string().regex(/^\d+$/),
    rpcConfigured: z.boolean(),
})

/**
 * GET /health: liveness, no authentication. Answers from configuration only, so a slow node or
 * database cannot make the probe itself time out. rpcConfigured says whether the chain endpoint
 * and contract addresses are known, i.e. whether the chain routes can work at all.
 */
export function healthRoutes(s: PlatformServices, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/', 'Health')
    router.get('/health', {
        summary: 'Liveness, and whether the chain routes are configured',
        responses: { 200: { description: 'The process is up', schema: Health } },
    }, (_req, res) => {
        res.json({
            status: 'ok',
            timestamp: new Date().toISOString(),
            chainId: String(s.chain.chainId),
            rpcConfigured: s.chain.configured(),
        })
    })
    return router
}
