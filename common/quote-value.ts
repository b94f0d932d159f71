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
 * The DeFi volume rule (docs/indexer.md#defi-volume-rule), shared by the indexer's swap volumes
 * and the explorer's pool liquidity: amounts valued in the quote token at pool reserves.
 */
export class QuoteValuation {
    constructor(
        private readonly quoteToken: string,
        private readonly wnative: string,
        private readonly pairOf: (tokenA: string, tokenB: string) => PairReserves | undefined
    ) {}

    /**
     * A pair's two amounts (a swap's, or its reserves) in quote units: the quote side when the pair
     * holds the quote token, else token0's value (else token1's); 0 when neither can be priced.
     */
    pairValue(pair: PairReserves, amount0: bigint, amount1: bigint): bigint {
        if (pair.token0 === this.quoteToken) return amount0
        if (pair.token1 === this.quoteToken) return amount1
        return this.value(pair.token0, amount0) ?? this.value(pair.token1, amount1) ?? 0n
    }

    /** Through the token's quote pool, else its WNATIVE pool and WNATIVE's quote pool. */
    private value(token: string, amount: bigint): bigint | undefined {
        const direct = this.convert(token, this.quoteToken, amount)
        if (direct !== undefined) return direct
        const inWnative = token === this.wnative ? amount : this.convert(token, this.wnative, amount)
        return inWnative === undefined ? undefined : this.convert(this.wnative, this.quoteToken, inWnative)
    }

    /** undefined without a funded pool of the two tokens. */
    private convert(from: string, to: string, amount: bigint): bigint | undefined {
        const pair = this.pairOf(from, to)
        if (!pair) return undefined
        const [reserveFrom, reserveTo] = pair.token0 === from ? [pair.reserve0, pair.reserve1] : [pair.reserve1, pair.reserve0]
        if (reserveFrom === 0n || reserveTo === 0n) return undefined
        return amount === 0n ? 0n : quote(amount, reserveFrom, reserveTo)
    }
}
