import { Request, Response } from 'express'
import { ChainContext } from './context'

/**
 * The one Etherscan-style v1 call a Blockscout frontend makes: after a 404 for a future block it
 * asks `/api?module=block&action=getblockcountdown&blockno=N` to render a countdown page.
 */
export function blockCountdown(ctx: ChainContext) {
    return async (req: Request, res: Response): Promise<void> => {
        const { module, action, blockno } = req.query
        if (module !== 'block' || action !== 'getblockcountdown') {
            res.status(400).json({ status: '0', message: 'Unknown module or action', result: null })
            return
        }
        if (typeof blockno !== 'string' || !/^\d{1,15}$/.test(blockno)) {
            res.status(400).json({ status: '0', message: 'Invalid block number', result: null })
            return
        }
        const head = await ctx.head.get()
        const target = Number(blockno)
        if (target <= head.number) {
            res.json({ status: '0', message: 'Error! Block number already pass', result: null })
            return
        }
        const remaining = target - head.number
        res.json({
            status: '1',
            message: 'OK',
            result: {
                CountdownBlock: String(target),
                CurrentBlock: String(head.number),
                EstimateTimeInSec: String(Math.round((remaining * head.averageBlockTimeMs) / 1000)),
                RemainingBlock: String(remaining),
            },
        })
    }
}
