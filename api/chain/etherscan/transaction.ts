import { z } from 'zod'
import { EtherscanContext } from './context'
import { parseParams } from './envelope'
import { Module } from './module'
import { hashParam } from './params'

const TxHashQuery = z.object({
    txhash: hashParam('Query parameter txhash is required', 'Invalid txhash format'),
})

interface StatusRow {
    status: number
    error: string | null
}

/** The status, and the top-level frame's error when the call tree is indexed. */
async function find(ctx: EtherscanContext, hash: string): Promise<StatusRow | undefined> {
    const { rows } = await ctx.edb.query<StatusRow>(
        `SELECT t.status,
                (SELECT i.error FROM internal_transaction i
                  WHERE i.id >= lpad(t.block_number::text, 10, '0') AND i.id < lpad((t.block_number + 1)::text, 10, '0')
                    AND i.block_number = t.block_number AND i.transaction_index = t.index AND i.index = 0) AS error
           FROM transaction t WHERE t.id = $1`,
        [hash]
    )
    return rows[0]
}

/** "1" success, "0" reverted, "" for a transaction the indexer does not have (Blockscout's answer). */
async function gettxreceiptstatus(ctx: EtherscanContext, query: unknown) {
    const { txhash } = parseParams(TxHashQuery, query)
    const row = await find(ctx, txhash)
    return { status: row ? String(row.status === 1 ? 1 : 0) : '' }
}

/**
 * isError and the reason. Without a traced top-level error the reason is "execution reverted",
 * the text the v2 API gives a reverted transaction's result.
 */
async function getstatus(ctx: EtherscanContext, query: unknown) {
    const { txhash } = parseParams(TxHashQuery, query)
    const row = await find(ctx, txhash)
    if (!row || row.status === 1) return { isError: '0', errDescription: '' }
    return { isError: '1', errDescription: row.error ?? 'execution reverted' }
}

export const transaction: Module = { gettxreceiptstatus, getstatus }
