import express, { Router } from 'express'
import { ExplorerServices } from '../services'
import { ResponseCache } from './cache'
import { pools } from './pools'
import { volume } from './volume'

/** Seconds a DeFi answer is reused: the indexer adds a block every few seconds, so fresher is wasted work. */
export const DEFI_CACHE_SECONDS = 15

/** The public DeFi routes: read the indexer's ready aggregates, never the event history. */
export function defiRouter(s: ExplorerServices): Router {
    const cache = new ResponseCache(DEFI_CACHE_SECONDS)
    const router = express.Router()
    router.get('/pools', pools(s, cache))
    router.get('/volume', volume(s, cache))
    return router
}
