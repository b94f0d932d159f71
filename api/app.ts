import express from 'express'
import { ApiDoc } from '../common/service/api-doc'
import { EXPLORER_EXAMPLES } from './explorer/request-examples'
import { CHAIN_EXAMPLES } from './chain/request-examples'
import { instrument, operationsRoutes } from '../common/service/operations'
import { databaseCheck, ReadyChecks } from '../common/service/ready-checks'
import { createChainApi } from './chain/router'
import { ApiContext } from './context'
import { explorerErrorSchema } from './explorer/errors'
import { WatchlistAlerts } from './explorer/alerts'
import { explorerRouter, explorerServices } from './explorer/router'

/**
 * The explorer port's app: explorer services (/api), the chain data API (/api/v2) and the
 * Etherscan-style API (GET /api), with one OpenAPI document at /api/docs (docs/openapi.md), and
 * /health, /ready and /metrics (docs/operations.md).
 */
export function createApiApp(ctx: ApiContext) {
    const app = express()
    app.disable('x-powered-by')
    // No automatic ETags, as Blockscout sends none: hashing every 50-150 KB list answer costs more
    // than the rare 304 saves. Finalized data carries an immutable Cache-Control instead, and the
    // DeFi figures set their own ETag.
    app.set('etag', false)
    // A hop count, never `true`: `true` would believe the left-most X-Forwarded-For entry, which the client writes.
    app.set('trust proxy', ctx.env.TRUST_PROXY)
    // The chain data API's routes carry their own error body.
    const doc = new ApiDoc({
        title: 'Explorer services and chain data API',
        version: '1.0.0',
        description: 'The chain data API, Blockscout REST API v2 compatible (/api/v2, docs/chain-api.md), the Etherscan-style API (/api?module=…, docs/etherscan-api.md) ' +
            'and the explorer services: accounts, watchlist, forms, DeFi figures (/api, docs/explorer-api.md).',
        errorSchema: explorerErrorSchema,
        // One module per surface; an operationId is in one of them only (checked in test/api/openapi.test.ts).
        examples: { ...CHAIN_EXAMPLES, ...EXPLORER_EXAMPLES },
    })
    instrument(app)
    doc.serve(app)
    const chain = createChainApi(ctx, doc)
    const ready = new ReadyChecks().add('database', databaseCheck(ctx.pool)).add('indexer', chain.indexerLag)
    if (chain.replicaLag) ready.add('replicas', chain.replicaLag)
    doc.mount(app, operationsRoutes(doc, { ready }))
    // /api/v2 and the Etherscan-style API (GET /api?module=...) first: the explorer services own the rest of /api.
    doc.mount(app, chain.router)
    doc.mount(app, chain.v1)
    doc.mount(app, chain.etherscan)
    doc.mount(app, chain.stats)
    const explorer = explorerServices(ctx)
    doc.mount(app, explorerRouter(explorer, doc))
    return { app, doc, chain, alerts: new WatchlistAlerts(explorer) }
}
