import { Response } from 'express'
import { ApiContext } from '../context'
import { ChainHead } from './head'

export interface ChainContext extends ApiContext {
    head: ChainHead
}

/**
 * Data of a block deeper than the indexer's finality depth can no longer change: such answers are
 * cacheable for good. Everything else may change with the next block.
 */
export function setBlockCaching(res: Response, ctx: ChainContext, blockNumber: number, headNumber: number): void {
    if (blockNumber <= headNumber - ctx.env.INDEXER_FINALITY_CONFIRMATION) {
        res.set('Cache-Control', 'public, max-age=31536000, immutable')
    } else {
        res.set('Cache-Control', 'public, max-age=1')
    }
}

export function setLiveCaching(res: Response): void {
    res.set('Cache-Control', 'no-cache')
}
