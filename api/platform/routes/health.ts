import { z } from 'zod'
import { ApiDoc, DocumentedRouter } from '../../../common/service/api-doc'
import { operationsRoutes } from '../../../common/service/operations'
import { databaseCheck, ReadyChecks } from '../../../common/service/ready-checks'
import { PlatformServices } from '../services'

/**
 * GET /health, /ready and /metrics (docs/operations.md), no authentication. /health answers from
 * configuration only, so a slow node or database cannot make the probe itself time out;
 * rpcConfigured says whether the chain endpoint and contract addresses are known, i.e. whether the
 * chain routes can work at all. /ready asks the database.
 */
export function healthRoutes(s: PlatformServices, doc: ApiDoc): DocumentedRouter {
    return operationsRoutes(doc, {
        ready: new ReadyChecks().add('database', databaseCheck(s.pool)),
        health: {
            schema: z.object({ chainId: z.string().regex(/^\d+$/), rpcConfigured: z.boolean() }),
            details: () => ({ chainId: String(s.chain.chainId), rpcConfigured: s.chain.configured() }),
        },
    })
}
