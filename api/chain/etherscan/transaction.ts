import { z } from 'zod'
import { transactionOutcome } from '../queries/transactions'
import { EtherscanContext } from './context'
import { parseParams } from './envelope'
import { Module, ModuleQueries } from './module'
import { hashParam } from './params'

const TxHashQuery = z.object({
    txhash: hashParam('Query parameter txhash is required', 'Invalid txhash format'),
})

/** "1" success, "0" reverted, "" for a transaction the indexer does not have (Blockscout's answer). */
async function gettxreceiptstatus(ctx: EtherscanContext, query: unknown) {
    const { txhash } = parseParams(TxHashQuery, query)
    const row = await transactionOutcome(ctx.edb, txhash)
    return { status: row ? String(row.status === 1 ? 1 : 0) : '' }
}

/**
 * isError and the reason. Without a traced top-level error the reason is "execution reverted",
 * the text the v2 API gives a reverted transaction's result.
 */
async function getstatus(ctx: EtherscanContext, query: unknown) {
    const { txhash } = parseParams(TxHashQuery, query)
    const row = await transactionOutcome(ctx.edb, txhash)
    if (!row || row.status === 1) return { isError: '0', errDescription: '' }
    return { isError: '1', errDescription: row.error ?? 'execution reverted' }
}

export const transaction: Module = { gettxreceiptstatus, getstatus }
export const transactionQueries: ModuleQueries = [TxHashQuery]
