import { z } from 'zod'
import { coinSupply } from '../queries/stats'
import { tokenSupply } from '../queries/tokens'
import { EtherscanContext } from './context'
import { EtherscanError, parseParams } from './envelope'
import { Module, ModuleQueries } from './module'
import { addressParam } from './params'

const TokenSupplyQuery = z.object({
    contractaddress: addressParam('Query parameter contract address is required', 'Invalid contract address format'),
})

/** The total supply the indexer read from the token (null when totalSupply() did not answer). */
async function tokensupply(ctx: EtherscanContext, query: unknown) {
    const { contractaddress } = parseParams(TokenSupplyQuery, query)
    const supply = await tokenSupply(ctx.edb, contractaddress)
    if (supply === undefined) throw new EtherscanError('Contract address not found')
    return supply
}

/**
 * The coin supply as Blockscout computes it, as the v2 API's top-accounts page shows it (the
 * indexer's running sum, queries/stats.ts). Addresses no transaction has touched (genesis
 * allocations never used) are not in the table and not in the sum.
 */
async function ethsupply(ctx: EtherscanContext) {
    return coinSupply(ctx.edb)
}

export const stats: Module = { tokensupply, ethsupply }
export const statsQueries: ModuleQueries = [TokenSupplyQuery]
