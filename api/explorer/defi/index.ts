import { ApiDoc, DocumentedRouter } from '../../../common/service/api-doc'
import { timeLimitedDb } from '../../chain/db'
import { ExplorerServices } from '../services'
import { ResponseCache } from './cache'
import { pools, poolsOperation } from './pools'
import { volume, volumeOperation } from './volume'

/** Seconds a DeFi answer is reused: the indexer adds a block every few seconds, so fresher is wasted work. */
export const DEFI_CACHE_SECONDS = 15

/** The public DeFi routes: read the indexer's ready aggregates, never the event history. */
export function defiRouter(s: ExplorerServices, doc: ApiDoc): DocumentedRouter {
    const cache = new ResponseCache(DEFI_CACHE_SECONDS)
    // Public reads of indexed data: bounded like the chain data API's (a cancelled one answers 503).
    const db = timeLimitedDb(s.ctx.pool, s.ctx.env.CHAIN_API_STATEMENT_TIMEOUT_MS)
    return doc.router('/api/defi', 'DeFi')
        .get('/pools', poolsOperation, pools(s, db, cache))
        .get('/volume', volumeOperation, volume(s, db, cache))
}
