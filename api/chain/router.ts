import cors from 'cors'
import express from 'express'
import { ApiDoc } from '../../common/service/api-doc'
import { readCors } from '../../common/service/cors'
import { errorHandler } from '../../common/service/error-handler'
import { ApiContext } from '../context'
import { createChainContext } from './context'
import { CsvExports } from './csv/exports'
import { chainErrors, unknownAction } from './errors'
import { etherscanApi, etherscanBodyErrors, etherscanOperation, etherscanPostOperation } from './etherscan'
import { EtherscanFailure } from './etherscan/envelope'
import { jsonResponses } from './json-response'
import { addressesRoutes } from './routes/addresses'
import { advancedFiltersRoutes } from './routes/advanced-filters'
import { blocksRoutes } from './routes/blocks'
import { coinBalanceHistoryRoutes } from './routes/coin-balance-history'
import { configRoutes } from './routes/config'
import { internalTransactionsRoutes } from './routes/internal-transactions'
import { mainPageRoutes } from './routes/main-page'
import { searchRoutes } from './routes/search'
import { smartContractVerificationRoutes } from './routes/smart-contract-verification'
import { smartContractsRoutes } from './routes/smart-contracts'
import { stateChangesRoutes } from './routes/state-changes'
import { statsRoutes } from './routes/stats'
import { tokenTransfersRoutes } from './routes/token-transfers'
import { tokensRoutes } from './routes/tokens'
import { transactionsRoutes } from './routes/transactions'
import { v1Routes } from './routes/v1'
import { indexerLagCheck, replicaLagCheck } from './readiness'
import { ChainError } from './schemas'
import { ChainSocket } from './socket'
import { statsServiceRouter } from '../stats-service/router'

/**
 * The same, with POST: the only writes are verification submissions, which carry no credentials,
 * and a frontend on its own host sends them.
 */
const publicCors = cors({ origin: '*', methods: ['GET', 'HEAD', 'POST', 'OPTIONS'], maxAge: 86_400 })

/**
 * The chain data API: Blockscout REST API v2 under /api/v2, its Etherscan-style RPC API
 * (`GET /api?module=...&action=...`) and the Phoenix socket for live updates. Both HTTP parts
 * are documented in the port's OpenAPI document (docs/openapi.md); mount them with doc.mount.
 */
export function createChainApi(api: ApiContext, doc: ApiDoc) {
    const ctx = createChainContext(api)
    const csv = new CsvExports(ctx)
    const router = doc.router('/api/v2', 'chain data API', { errorSchema: ChainError })
    // First: every statement of a request, and the head it answers at, on one read database.
    router.use(ctx.reads.pin)
    router.use(publicCors)
    router.use(jsonResponses)
    internalTransactionsRoutes(router, ctx)
    coinBalanceHistoryRoutes(router, ctx)
    stateChangesRoutes(router, ctx)
    blocksRoutes(router, ctx)
    transactionsRoutes(router, ctx)
    addressesRoutes(router, ctx, csv)
    tokensRoutes(router, ctx, csv)
    tokenTransfersRoutes(router, ctx)
    advancedFiltersRoutes(router, ctx, csv)
    smartContractVerificationRoutes(router, ctx)
    smartContractsRoutes(router, ctx)
    searchRoutes(router, ctx)
    statsRoutes(router, ctx)
    mainPageRoutes(router, ctx)
    configRoutes(router, csv)
    router.use(unknownAction)
    router.express.use(errorHandler(chainErrors, ctx.log))
    // Blockscout keeps its frontend's address CSV exports under /api/v1; errors in the /api/v2 shapes.
    const v1 = doc.router('/api/v1', 'chain data API', { errorSchema: ChainError })
    v1.use(ctx.reads.pin)
    v1.use(readCors)
    v1.use(jsonResponses)
    v1Routes(v1, csv)
    v1.express.use(errorHandler(chainErrors, ctx.log))
    const etherscan = etherscanApi(ctx)
    // Its own router at /api with the one route `/`: the explorer services own the rest of /api,
    // so CORS and the JSON sender are this route's handlers, not the router's middleware.
    const etherscanRouter = doc.router('/api', 'etherscan', { errorSchema: EtherscanFailure })
    etherscanRouter.get('/', etherscanOperation, ctx.reads.pin, readCors, jsonResponses, etherscan.handler)
    const form = express.urlencoded({ extended: false, limit: api.env.VERIFIER_MAX_INPUT_KB * 1024, parameterLimit: 100 })
    // Pinned again behind the form parser, which calls on outside the request's async context.
    etherscanRouter.post('/', etherscanPostOperation, ctx.reads.pin, publicCors, jsonResponses, form, ctx.reads.pin, etherscan.handler)
    etherscanRouter.express.use(etherscanBodyErrors)
    return {
        router,
        v1,
        etherscan: etherscanRouter,
        /** Blockscout's stats service API under /api/v1 (docs/stats-api.md). */
        stats: statsServiceRouter(ctx, doc),
        socket: new ChainSocket(ctx),
        indexerLag: indexerLagCheck(ctx, api.env.INDEXER_READY_MAX_LAG),
        /** With CHAIN_API_READ_DATABASE_URL: how far each replica is behind the primary (readiness.ts). */
        replicaLag: ctx.reads.replicated ? replicaLagCheck(ctx, api.env.CHAIN_API_MAX_REPLICA_LAG_BLOCKS) : undefined,
        close: async () => {
            await etherscan.close()
            await ctx.closeDb()
        },
    }
}
