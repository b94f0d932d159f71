import { assetKey, chainSpec } from '../registry'
import { ProviderAsset } from './provider'

/**
 * Which assets the bridge serves through the external swap provider rather than from a vault of
 * its own, and which of our assets the provider converts them into (docs/bridge/routes-and-prices.md, The provider leg):
 *
 *   BRIDGE_PROVIDER_ASSETS  chain:symbol list (default BITCOIN:BTC): a route from such an asset
 *                           sends it to the provider, which pays `via` into our vault; a route to
 *                           one pays `via` to the provider, which pays the asset into our vault
 *   BRIDGE_PROVIDER_VIA     chain:symbol (default BSC:USDT): an asset our vaults hold and the
 *                           provider lists
 *   BRIDGE_PROVIDER_POLL_SECONDS  how often a running exchange is polled (default 15)
 *
 * BTC is the default because the bridge keeps no BTC float to pay out from and prices it by
 * reference only; TRX, USDT on TRON and SOL are served from our own vaults.
 */

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
