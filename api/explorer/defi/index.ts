import { ApiDoc, DocumentedRouter } from '../../../common/service/api-doc'
import { timeLimitedDb } from '../../chain/db'
import { ExplorerServices } from '../services'
import { ResponseCache } from './cache'
import { contractInfoRouter } from './contract-info-pools'
import { pool, poolHistory, poolHistoryOperation, poolOperation } from './pool'
import { pools, poolsOperation } from './pools'
import { token, tokenHistory, tokenHistoryOperation, tokenOperation, tokens, tokensOperation } from './tokens'
import { volume, volumeOperation } from './volume'

/**
 * The public DeFi routes: read the indexer's ready aggregates, never the event history. Our own
 * shape under /api/defi, and the pools again in Blockscout's contract-info shape under
 * /api/v1/chains (contract-info-pools.ts), from the same cache so that the two agree.
 */
export function defiRouters(s: ExplorerServices, doc: ApiDoc): DocumentedRouter[] {
    // The indexer adds a block every few seconds: answers fresher than that are wasted work.
    const cache = new ResponseCache(s.ctx.env.EXPLORER_DEFI_CACHE_SECONDS)
    // Public reads of indexed data: bounded like the chain data API's (a cancelled one answers 503).
    const db = timeLimitedDb(s.ctx.pool, s.ctx.env.CHAIN_API_STATEMENT_TIMEOUT_MS)
    const defi = doc.router('/api/defi', 'DeFi')
        .get('/pools', poolsOperation, pools(s, db, cache))
        .get('/pools/:address', poolOperation, pool(s, db, cache))
        .get('/pools/:address/history', poolHistoryOperation, poolHistory(s, db, cache))
        .get('/tokens', tokensOperation, tokens(s, db, cache))
        .get('/tokens/:address', tokenOperation, token(s, db, cache))
        .get('/tokens/:address/history', tokenHistoryOperation, tokenHistory(s, db, cache))
        .get('/volume', volumeOperation, volume(s, db, cache))
    return [defi, contractInfoRouter(s, db, cache, doc)]
}
