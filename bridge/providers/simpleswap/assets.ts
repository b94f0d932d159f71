import { assetKey } from '../../registry'
import { ProviderAsset } from '../provider'

/**
 * Our registry's assets as SimpleSwap v3 names them (ticker + network, lowercase). No table of
 * network codes was at hand; these are the ones public v3 clients send (btc/btc, usdt/bsc, usdt/trx,
 * sol/sol, pol/polygon …) and must be checked against GET /v3/currencies when a key is available,
 * which is why the provider takes the table as an option. NATIVECHAIN and BSC:WNATIVE exist only
 * in our vaults, so they have no entry: no provider leg can start or end there.
 */

export interface SimpleSwapCurrency {
    ticker: string
    network: string
}

export type SimpleSwapAssetMap = Record<string, SimpleSwapCurrency>

export const DEFAULT_SIMPLESWAP_ASSETS: SimpleSwapAssetMap = {
    [assetKey('BITCOIN', 'BTC')]: { ticker: 'btc', network: 'btc' },
    [assetKey('ETHEREUM', 'ETH')]: { ticker: 'eth', network: 'eth' },
    [assetKey('ETHEREUM', 'USDT')]: { ticker: 'usdt', network: 'eth' },
    [assetKey('BSC', 'USDT')]: { ticker: 'usdt', network: 'bsc' },
    [assetKey('TRON', 'TRX')]: { ticker: 'trx', network: 'trx' },
    [assetKey('TRON', 'USDT')]: { ticker: 'usdt', network: 'trx' },
    [assetKey('SOLANA', 'SOL')]: { ticker: 'sol', network: 'sol' },
    [assetKey('POLYGON', 'POL')]: { ticker: 'pol', network: 'polygon' },
    [assetKey('POLYGON', 'USDT')]: { ticker: 'usdt', network: 'polygon' },
}

export function toCurrency(map: SimpleSwapAssetMap, asset: ProviderAsset): SimpleSwapCurrency | undefined {
    return map[assetKey(asset.chain, asset.symbol)]
}

/** The provider's ticker + network back to our asset (case-insensitive, as the provider is). */
export function fromCurrency(map: SimpleSwapAssetMap, ticker: string, network: string): ProviderAsset | undefined {
    const t = ticker.toLowerCase()
    const n = network.toLowerCase()
    for (const [key, c] of Object.entries(map)) {
        if (c.ticker === t && c.network === n) {
            const [chain, symbol] = key.split(':')
            return { chain: chain as ProviderAsset['chain'], symbol }
        }
    }
    return undefined
}
