import { allAssets, Asset, BridgeConfig } from '../config'
import { parseUnits } from '../amounts'
import { pricedClasses } from '../prices'
import { SwapProvider } from '../providers/provider'
import { assetKey, PriceClass } from '../registry'

/** The route table, for every ordered pair of assets how it is priced and served: docs/bridge/routes-and-prices.md#route-kinds */

/** The start of a route's disabled reason when the provider it needs is not configured (503, not 400). */
export const PROVIDER_NOT_CONFIGURED = 'feature not configured: the external swap provider'

export type RouteKind = 'pool' | 'vault' | 'multi_hop' | 'provider'

export type Leg =
    | { type: 'peg'; from: PriceClass; to: PriceClass }
    | { type: 'pool'; pool: string; from: PriceClass; to: PriceClass }
    | { type: 'reference'; from: PriceClass; to: PriceClass }
    /** sell/buy: the assets the provider converts, "CHAIN:SYMBOL". */
    | { type: 'provider'; provider: string; from: PriceClass; to: PriceClass; sell: string; buy: string }

/** The provider leg of a route: which side of the route it serves and the two assets it converts. */
export interface ProviderLegSpec {
    side: 'source' | 'target'
    sell: Asset
    buy: Asset
}

export interface Route {
    source: Asset
    target: Asset
    kind: RouteKind
    legs: Leg[]
    /** Bounds of the deposit, base units of the source token. */
    minAmount: bigint
    maxAmount: bigint
    provider?: ProviderLegSpec
    /** Why the route cannot be used now, when it cannot. */
    disabled?: string
}

const NATIVE_USD_POOLS = { stable: 'nativechain-wnative-stable', usdt: 'bsc-wnative-usdt' }

export class RouteTable {
    private readonly routes = new Map<string, Route>()

    constructor(private readonly config: BridgeConfig, private readonly provider?: SwapProvider) {
        const assets = allAssets(config)
        for (const source of assets) {
            for (const target of assets) {
                if (source === target) continue
                this.routes.set(`${assetKey(source.chain, source.symbol)}>${assetKey(target.chain, target.symbol)}`, this.build(source, target))
            }
        }
    }

    find(sourceChain: string, sourceToken: string, targetChain: string, targetToken: string): Route | undefined {
        return this.routes.get(`${assetKey(sourceChain, sourceToken)}>${assetKey(targetChain, targetToken)}`)
    }

    all(): Route[] {
        return [...this.routes.values()]
    }

    private build(source: Asset, target: Asset): Route {
        const bounds = { minAmount: parseUnits(source.minAmount, source.decimals), maxAmount: parseUnits(source.maxAmount, source.decimals) }
        const served = this.config.provider.assets
        const [bySource, byTarget] = [served.has(assetKey(source.chain, source.symbol)), served.has(assetKey(target.chain, target.symbol))]
        if (bySource || byTarget) return this.providerRoute(source, target, bySource ? 'source' : 'target', bounds)
        const legs = this.legs(source, target)
        const disabled = source.disabled ?? target.disabled ?? (typeof legs === 'string' ? legs : undefined)
        const legList = typeof legs === 'string' ? [] : legs
        const kind: RouteKind = legList.length > 1 ? 'multi_hop' : legList[0]?.type === 'pool' ? 'pool' : 'vault'
        return { source, target, kind, legs: legList, ...bounds, ...(disabled ? { disabled } : {}) }
    }

    /** A route with the provider leg first (side 'source') or last ('target'), our own legs to or from `via` for the rest. */
    private providerRoute(source: Asset, target: Asset, side: 'source' | 'target', bounds: { minAmount: bigint; maxAmount: bigint }): Route {
        const { via: viaRef, assets: served } = this.config.provider
        const via = allAssets(this.config).find((a) => a.chain === viaRef.chain && a.symbol === viaRef.symbol)!
        const [sell, buy] = side === 'source' ? [source, via] : [via, target]
        const leg: Leg = { type: 'provider', provider: 'simpleswap', from: sell.priceClass, to: buy.priceClass, sell: assetKey(sell.chain, sell.symbol), buy: assetKey(buy.chain, buy.symbol) }
        const rest = side === 'source' ? (via === target ? [] : this.legs(via, target)) : (via === source ? [] : this.legs(source, via))
        const legs = typeof rest === 'string' ? [leg] : side === 'source' ? [leg, ...rest] : [...rest, leg]
        const other = side === 'source' ? target : source
        const disabled = served.has(assetKey(other.chain, other.symbol)) ? 'no route for the pair: both assets are served by the external swap provider'
            : source.disabled ?? target.disabled ?? via.disabled
            ?? (!this.provider ? `${PROVIDER_NOT_CONFIGURED} (SIMPLESWAP_API_KEY) is needed for ${sell.chain}:${sell.symbol} → ${buy.chain}:${buy.symbol}`
                : !this.provider.supports({ from: sell, to: buy }) ? `no route for the pair: the external swap provider does not list ${sell.symbol} on ${sell.chain} → ${buy.symbol} on ${buy.chain}`
                    : typeof rest === 'string' ? rest : undefined)
        return { source, target, kind: 'provider', legs, ...bounds, provider: { side, sell, buy }, ...(disabled ? { disabled } : {}) }
    }

    /** The price path, or why there is none. */
    private legs(source: Asset, target: Asset): Leg[] | string {
        const [from, to] = [source.priceClass, target.priceClass]
        if (from === to) return [{ type: 'peg', from, to }]
        // NATIVE against a dollar token: the pool of that dollar token's market.
        if ((from === 'NATIVE' && to === 'USD') || (from === 'USD' && to === 'NATIVE')) {
            const dollar = from === 'USD' ? source : target
            const pool = this.pool(dollar.symbol === 'STABLE' ? 'stable' : 'usdt')
            return pool ? [{ type: 'pool', pool, from, to }] : 'no route for the pair: no NATIVE pool is configured'
        }
        const toUsd = this.toUsd(from)
        const fromUsd = this.fromUsd(to)
        if (typeof toUsd === 'string') return toUsd
        if (typeof fromUsd === 'string') return fromUsd
        return [...toUsd, ...fromUsd]
    }

    private toUsd(c: PriceClass): Leg[] | string {
        if (c === 'USD') return []
        if (c === 'NATIVE') {
            const pool = this.pool('usdt')
            return pool ? [{ type: 'pool', pool, from: c, to: 'USD' }] : 'no route for the pair: no NATIVE pool is configured'
        }
        return pricedClasses(this.config.prices).includes(c) ? [{ type: 'reference', from: c, to: 'USD' }] : `no route for the pair: no price for ${c}`
    }

    private fromUsd(c: PriceClass): Leg[] | string {
        const legs = this.toUsd(c)
        return typeof legs === 'string' ? legs : legs.map((l) => ({ ...l, from: 'USD', to: c }) as Leg)
    }

    /** The preferred NATIVE pool, or the other one when only that is configured. */
    private pool(prefer: 'stable' | 'usdt'): string | undefined {
        const ids = new Set(this.config.pools.map((p) => p.id))
        const first = NATIVE_USD_POOLS[prefer]
        const second = NATIVE_USD_POOLS[prefer === 'stable' ? 'usdt' : 'stable']
        return ids.has(first) ? first : ids.has(second) ? second : undefined
    }
}
