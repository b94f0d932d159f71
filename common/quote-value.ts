import { quote } from './amm-math'

/** A pool's tokens and reserves, as the indexer and the DeFi figures hold them. */
export interface PairReserves {
    token0: string
    token1: string
    reserve0: bigint
    reserve1: bigint
}

/** The key of a pool by its two tokens, whichever order they come in. */
export function tokensKey(a: string, b: string): string {
    return a < b ? `${a}-${b}` : `${b}-${a}`
}

/**
 * The pools of each pair of tokens. With several DEX factories two pools may hold the same two
 * tokens; a price or a value is then read from the one holding the most of the token it is valued
 * in (the deepest market, the hardest to move), the lowest address on a tie, so that the indexer
 * and the explorer pick the same pool (docs/indexer.md#several-factories).
 */
export class PoolsByTokens<P extends PairReserves> {
    private readonly byKey = new Map<string, Map<string, P>>()

    add(address: string, pool: P): void {
        const key = tokensKey(pool.token0, pool.token1)
        const pools = this.byKey.get(key) ?? new Map<string, P>()
        pools.set(address, pool)
        this.byKey.set(key, pools)
    }

    clear(): void {
        this.byKey.clear()
    }

    /** The pool of `token` and `base` holding the most `base`; undefined when there is none. */
    pairOf(token: string, base: string): P | undefined {
        const pools = this.byKey.get(tokensKey(token, base))
        if (!pools) return undefined
        let best: [string, P] | undefined
        for (const entry of pools) {
            if (!best) {
                best = entry
                continue
            }
            const [held, bestHeld] = [entry[1], best[1]].map((p) => (p.token0 === base ? p.reserve0 : p.reserve1))
            if (held > bestHeld || (held === bestHeld && entry[0] < best[0])) best = entry
        }
        return best?.[1]
    }
}

/**
 * The DeFi volume rule (docs/indexer.md#defi-volume-rule), shared by the indexer's swap volumes
 * and the explorer's pool liquidity: amounts valued in the quote token at pool reserves.
 */
export class QuoteValuation {
    /** Without a quote token (a chain without our contracts) nothing is priced: every value is 0. */
    constructor(
        private readonly quoteToken: string | null,
        private readonly wnative: string | null,
        private readonly pairOf: (tokenA: string, tokenB: string) => PairReserves | undefined
    ) {}

    /**
     * A pair's two amounts (a swap's, or its reserves) in quote units: the quote side when the pair
     * holds the quote token, else token0's value (else token1's); 0 when neither can be priced.
     */
    pairValue(pair: PairReserves, amount0: bigint, amount1: bigint): bigint {
        if (this.quoteToken === null) return 0n
        if (pair.token0 === this.quoteToken) return amount0
        if (pair.token1 === this.quoteToken) return amount1
        return this.value(pair.token0, amount0) ?? this.value(pair.token1, amount1) ?? 0n
    }

    /** Through the token's quote pool, else its WNATIVE pool and WNATIVE's quote pool. */
    private value(token: string, amount: bigint): bigint | undefined {
        const direct = this.convert(token, this.quoteToken!, amount)
        if (direct !== undefined || this.wnative === null) return direct
        const inWnative = token === this.wnative ? amount : this.convert(token, this.wnative, amount)
        return inWnative === undefined ? undefined : this.convert(this.wnative, this.quoteToken!, inWnative)
    }

    /** undefined without a funded pool of the two tokens (`to` is the side the pool is chosen by). */
    private convert(from: string, to: string, amount: bigint): bigint | undefined {
        const pair = this.pairOf(from, to)
        if (!pair) return undefined
        const [reserveFrom, reserveTo] = pair.token0 === from ? [pair.reserve0, pair.reserve1] : [pair.reserve1, pair.reserve0]
        if (reserveFrom === 0n || reserveTo === 0n) return undefined
        return amount === 0n ? 0n : quote(amount, reserveFrom, reserveTo)
    }
}
