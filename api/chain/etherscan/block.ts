import { z } from 'zod'
import { EtherscanContext } from './context'
import { EtherscanError, parseParams } from './envelope'
import { blockNumberAtTime } from '../queries/blocks'
import { Module, ModuleQueries } from './module'
import { invalidParam, required, text } from './params'

const CountdownQuery = z.object({
    blockno: text(required('blockno'), 'Invalid block number').regex(/^\d{1,15}$/, 'Invalid block number').transform(Number),
})

/**
 * A Blockscout frontend asks this after a 404 for a future block, to render a countdown page; the
 * estimate is the indexer's moving average block time times the blocks to go.
 */
async function getblockcountdown(ctx: EtherscanContext, query: unknown) {
    const { blockno: target } = parseParams(CountdownQuery, query)
    const head = await ctx.head.get()
    if (head.number < 0) throw new EtherscanError('Chain is indexing now, try again later')
    if (target <= head.number) throw new EtherscanError('Error! Block number already pass')
    const remaining = target - head.number
    return {
        CountdownBlock: String(target),
        CurrentBlock: String(head.number),
        EstimateTimeInSec: String(Math.round((remaining * head.averageBlockTimeMs) / 1000)),
        RemainingBlock: String(remaining),
    }
}

const ByTimeQuery = z.object({
    timestamp: text(required('timestamp'), invalidParam('timestamp')).regex(/^\d{1,12}$/, invalidParam('timestamp')).transform(Number),
    closest: z.enum(['before', 'after'], {
        error: (issue) => (issue.input === undefined ? required('closest') : invalidParam('closest')),
    }),
})

/**
 * The last block mined at or before the time, or the first at or after it. Blocks may share a
 * second (a devnet mines several), so ties go to the highest number for "before" and the lowest
 * for "after": the block closest to the time from that side.
 */
async function getblocknobytime(ctx: EtherscanContext, query: unknown) {
    const { timestamp, closest } = parseParams(ByTimeQuery, query)
    const number = await blockNumberAtTime(ctx.edb, timestamp, closest)
    if (number === undefined) throw new EtherscanError('Block does not exist')
    // Etherscan's plain string; Blockscout still wraps it as {blockNumber} but plans to move to this form.
    return String(number)
}

export const block: Module = { getblockcountdown, getblocknobytime }
export const blockQueries: ModuleQueries = [CountdownQuery, ByTimeQuery]
