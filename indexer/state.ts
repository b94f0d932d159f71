import { PRICE_DECIMALS, PriceRule } from '../common/amm-prices'
import { PairReserves, PoolsByTokens, QuoteValuation } from '../common/quote-value'

/**
 * What the indexer must remember between blocks: which contracts are known tokens (with their
 * decimals), which proxies follow which beacon, and every AMM pair with its current reserves and the figures derived from them
 * (needed to price swaps and liquidity at the moment they happen). It is small (one entry per
 * token or pair), loaded from the database at start and after a reorg.
 */

export interface PairState extends PairReserves {
    /** Both reserves in quote base units, as valued at the pair's last Sync. */
    reserveQuote: bigint
}

/** Lowercase addresses; null where our contracts are not configured (a chain we did not deploy: docs/own-chain.md). */
export interface AmmAddresses {
    wnative: string | null
    stable: string | null
    /** Our AMM factory, whose pairs are our AmmPair and so verified as such. */
    ourFactory: string | null
    /** Every factory whose pairs are indexed: DEX_FACTORIES and ours. */
    factories: ReadonlySet<string>
}

export type Query = (sql: string, params?: unknown[]) => Promise<any[]>

/** The AMM figures as they stand after a batch's last block, which the writer needs for the absolute columns. */
export interface AmmSnapshot {
    pairs: ReadonlyMap<string, PairState>
    decimals: ReadonlyMap<string, number | null>
    /** derivedQuote of every token in a pair, as last computed (docs/indexer.md#defi-price-rule) */
    prices: ReadonlyMap<string, bigint | null>
    /** base units of each token held in all pairs */
    liquidity: ReadonlyMap<string, bigint>
}

/** The standards the indexer tells tokens apart by (docs/indexer.md#token-types). */
export type TokenType = 'ERC-20' | 'ERC-721' | 'ERC-1155'

export class ChainState implements AmmSnapshot {
    readonly tokens = new Set<string>()
    /** Each known token's standard, decided once when it is first seen: which of its logs are transfers follows from it. */
    readonly tokenTypes = new Map<string, TokenType>()
    readonly decimals = new Map<string, number | null>()
    readonly pairs = new Map<string, PairState>()
    readonly prices = new Map<string, bigint | null>()
    readonly liquidity = new Map<string, bigint>()
    /** beacon -> the proxies that follow it, so that a beacon's Upgraded refreshes them (docs/indexer.md#proxies) */
    readonly beaconProxies = new Map<string, Set<string>>()
    /** proxy -> its beacon, the reverse of beaconProxies */
    private readonly beaconOf = new Map<string, string>()
    /** The sum of every pair's reserveQuote (DexDayData.liquidityQuote). */
    totalReserveQuote = 0n
    private readonly pairsByTokens = new PoolsByTokens<PairState>()
    private readonly valuation: QuoteValuation
    readonly priceRule: PriceRule

    constructor(readonly amm: AmmAddresses) {
        const pairOf = (token: string, base: string) => this.pairsByTokens.pairOf(token, base)
        this.valuation = new QuoteValuation(amm.stable, amm.wnative, pairOf)
        this.priceRule = new PriceRule(amm.stable, amm.wnative, pairOf, (token) => this.decimalsOf(token))
    }

    async load(query: Query): Promise<void> {
        this.tokens.clear()
        this.tokenTypes.clear()
        this.decimals.clear()
        this.pairs.clear()
        this.pairsByTokens.clear()
        this.prices.clear()
        this.liquidity.clear()
        this.totalReserveQuote = 0n
        this.beaconProxies.clear()
        this.beaconOf.clear()
        for (const row of await query('SELECT id, beacon FROM proxy_contract WHERE beacon IS NOT NULL')) this.setBeacon(row.id, row.beacon)
        for (const row of await query('SELECT id, type, decimals, derived_quote::text, total_liquidity::text FROM token')) {
            this.addToken(row.id, row.type, row.decimals)
            if (row.derived_quote !== null) this.prices.set(row.id, parsePrice(row.derived_quote))
            if (row.total_liquidity !== '0') this.liquidity.set(row.id, BigInt(row.total_liquidity))
        }
        for (const row of await query('SELECT id, token0_id, token1_id, reserve0::text, reserve1::text, reserve_quote::text FROM pair')) {
            this.addPair(row.id, {
                token0: row.token0_id,
                token1: row.token1_id,
                reserve0: BigInt(row.reserve0),
                reserve1: BigInt(row.reserve1),
                reserveQuote: BigInt(row.reserve_quote),
            })
            this.totalReserveQuote += BigInt(row.reserve_quote)
            for (const token of [row.token0_id, row.token1_id]) if (!this.prices.has(token)) this.prices.set(token, null)
        }
    }

    /** A token known from now on: its standard decides which of its logs are transfers, its decimals its figures. */
    addToken(address: string, type: TokenType, decimals: number | null): void {
        this.tokens.add(address)
        this.tokenTypes.set(address, type)
        this.decimals.set(address, decimals)
    }

    addPair(address: string, pair: PairState): void {
        this.pairs.set(address, pair)
        this.pairsByTokens.add(address, pair)
    }

    /** Records the beacon a proxy follows now (null: none), dropping the one it followed before. */
    setBeacon(proxy: string, beacon: string | null): void {
        const previous = this.beaconOf.get(proxy)
        if (previous === beacon) return
        if (previous) this.beaconProxies.get(previous)?.delete(proxy)
        if (!beacon) {
            this.beaconOf.delete(proxy)
            return
        }
        this.beaconOf.set(proxy, beacon)
        const proxies = this.beaconProxies.get(beacon) ?? new Set<string>()
        proxies.add(proxy)
        this.beaconProxies.set(beacon, proxies)
    }

    decimalsOf(token: string): number {
        return this.decimals.get(token) ?? 0
    }

    /**
     * Volume of a swap in quote-token (STABLE) base units, by the DeFi volume rule (docs/indexer.md#defi-volume-rule), at the
     * reserves after every earlier event (the pair's Sync just before this Swap included): the price at its position.
     */
    swapVolume(pair: PairReserves, amount0: bigint, amount1: bigint): bigint {
        return this.valuation.pairValue(pair, amount0, amount1)
    }

    /**
     * A pair's new reserves (its Sync): the tokens' liquidity, the pair's reserveQuote (twice its
     * reserves' value by the volume rule, as the explorer's liquidity) and the total, and the
     * prices of its two tokens (Uniswap updates derivedETH of a Sync's tokens only).
     */
    sync(pair: PairState, reserve0: bigint, reserve1: bigint): void {
        this.liquidity.set(pair.token0, (this.liquidity.get(pair.token0) ?? 0n) + reserve0 - pair.reserve0)
        this.liquidity.set(pair.token1, (this.liquidity.get(pair.token1) ?? 0n) + reserve1 - pair.reserve1)
        pair.reserve0 = reserve0
        pair.reserve1 = reserve1
        const reserveQuote = 2n * this.valuation.pairValue(pair, reserve0, reserve1)
        this.totalReserveQuote += reserveQuote - pair.reserveQuote
        pair.reserveQuote = reserveQuote
        this.prices.set(pair.token0, this.priceRule.derivedQuote(pair.token0))
        this.prices.set(pair.token1, this.priceRule.derivedQuote(pair.token1))
    }

    /** A copy of the AMM figures, for a commit that overlaps the derivation of the next batch. */
    snapshot(): AmmSnapshot {
        return {
            pairs: new Map([...this.pairs].map(([id, pair]) => [id, { ...pair }])),
            decimals: new Map(this.decimals),
            prices: new Map(this.prices),
            liquidity: new Map(this.liquidity),
        }
    }
}

/** A stored price (numeric text) as the fixed-point bigint the price rule works in. */
function parsePrice(text: string): bigint {
    const [whole, fraction = ''] = text.split('.')
    return BigInt(whole + fraction.padEnd(PRICE_DECIMALS, '0').slice(0, PRICE_DECIMALS))
}
