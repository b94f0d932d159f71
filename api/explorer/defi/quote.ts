import { formatUnits } from 'viem'
import { z } from 'zod'
import { ConfigError, nativeContracts } from '../../../common/config'
import { Db } from '../../chain/db'
import { tokenUnits } from '../../chain/queries/tokens'
import { ExplorerServices } from '../services'
import { notConfigured } from '../errors'

/** The quote token (STABLE) as the DeFi routes show it. */
export interface QuoteToken {
    address: string
    wnative: string
    symbol: string
    decimals: number
}

/** The 503 of the DeFi routes. */
export const DEFI_UNAVAILABLE = 'The DeFi routes are not configured on this deployment (not_configured), or a query took too long and was cancelled (query_timeout)'

let warned = false

/** STABLE's address from the configuration, its symbol and decimals from the indexer's token row. */
export async function quoteToken(s: ExplorerServices, db: Db): Promise<QuoteToken> {
    let contracts
    try {
        contracts = nativeContracts(s.ctx.env, 'The DeFi routes')
    } catch (err) {
        if (!(err instanceof ConfigError)) throw err
        // The detail (variable names, a file path of this host) goes to the log, once, not to the public.
        if (!warned) s.ctx.log.warn({ err }, 'the DeFi routes need the contract addresses')
        warned = true
        throw notConfigured('the DeFi routes are not configured on this deployment (contract addresses)')
    }
    const address = contracts.stable.toLowerCase()
    const units = await tokenUnits(db, address)
    // Until the indexer has seen STABLE, its deployment facts stand in (contracts/Stable.sol: 6 decimals).
    return { address, wnative: contracts.wnative.toLowerCase(), symbol: units?.symbol ?? 'STABLE', decimals: units?.decimals ?? 6 }
}

/**
 * Amounts are exact bigints up to here; the answers' JSON numbers are made at the edge, from the
 * exact decimal string, so the number is the closest double to the true figure.
 */
export function toNumber(baseUnits: bigint, decimals: number): number {
    return Number(formatUnits(baseUnits, decimals))
}

/** Larger first: the order of the DeFi lists (busiest, most liquid). */
export function compareDesc(a: bigint, b: bigint): number {
    return a > b ? -1 : a < b ? 1 : 0
}

/** The schema of a quote figure's exact twin (`<what>_exact`), beside the number the spec's fields keep. */
export const exactQuote = (what: string) => z.string().meta({ description: `${what}, exactly: a decimal string in whole quote tokens` })
