import { assetKey, chainSpec } from '../registry'
import { ProviderAsset } from './provider'

/** Which assets the provider serves (BRIDGE_PROVIDER_ASSETS) and through which asset of ours (BRIDGE_PROVIDER_VIA): docs/bridge/routes-and-prices.md#the-provider-leg */

export interface ProviderRoutingConfig {
    /** Keys "CHAIN:SYMBOL". */
    assets: Set<string>
    via: ProviderAsset
    pollSeconds: number
}

function parseAsset(name: string, value: string): ProviderAsset {
    const [chain, symbol, extra] = value.trim().split(':')
    const spec = chainSpec(chain ?? '')
    if (extra !== undefined || !spec || !spec.tokens.some((t) => t.symbol === symbol)) {
        throw new Error(`${name}: "${value}" is not CHAIN:SYMBOL of a listed asset (e.g. BITCOIN:BTC)`)
    }
    return { chain: spec.name, symbol }
}

export function parseProviderRouting(env: { BRIDGE_PROVIDER_ASSETS?: string; BRIDGE_PROVIDER_VIA?: string; BRIDGE_PROVIDER_POLL_SECONDS: number }): ProviderRoutingConfig {
    const assets = (env.BRIDGE_PROVIDER_ASSETS ?? 'BITCOIN:BTC').split(',').filter((a) => a.trim())
        .map((a) => parseAsset('BRIDGE_PROVIDER_ASSETS', a))
    const via = parseAsset('BRIDGE_PROVIDER_VIA', env.BRIDGE_PROVIDER_VIA ?? 'BSC:USDT')
    const keys = new Set(assets.map((a) => assetKey(a.chain, a.symbol)))
    if (keys.has(assetKey(via.chain, via.symbol))) throw new Error('BRIDGE_PROVIDER_VIA must be an asset of our vaults, not one of BRIDGE_PROVIDER_ASSETS')
    return { assets: keys, via, pollSeconds: env.BRIDGE_PROVIDER_POLL_SECONDS }
}
