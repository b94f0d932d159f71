import { formatUnits } from 'viem'
import { PairReserves } from './quote-value'

/**
 * The DeFi price rule (docs/indexer.md#defi-price-rule), as Uniswap's v2 subgraph derives prices
 * (findEthPerToken), in the quote token (STABLE) instead of ETH. Prices are exact fixed-point
 * bigints with PRICE_DECIMALS fractional digits, truncated; no floats.
 */

/** Fractional digits of every price (and of the BigDecimal price columns). */
export const PRICE_DECIMALS = 18
export const PRICE_ONE = 10n ** BigInt(PRICE_DECIMALS)

/**
 * Whole quote tokens a pair's whitelisted side (STABLE, or WNATIVE valued in STABLE) must hold
 * for the pair to price its other token: a dust pool would let anyone set any price.
 */
export const MIN_PRICING_LIQUIDITY = 10n

/** numerator / denominator of whole units (amounts in base units of the given decimals), as a price; null when the denominator is 0. */
export function unitPrice(numerator: bigint, numeratorDecimals: number, denominator: bigint, denominatorDecimals: number): bigint | null {
    if (denominator === 0n) return null
    return (numerator * 10n ** BigInt(denominatorDecimals) * PRICE_ONE) / (denominator * 10n ** BigInt(numeratorDecimals))
}

/** A price as an exact decimal string (trailing zeros trimmed), or null. */
export function priceText(price: bigint | null): string | null {
    return price === null ? null : formatUnits(price, PRICE_DECIMALS)
}

/** Base units as whole units, exactly. */
export function wholeText(amount: bigint, decimals: number): string {
    return formatUnits(amount, decimals)
}

/** `amount` base units of a token of `decimals` at `price` (whole quote per whole token) in quote base units, truncated; 0 when unpriced. */
export function quoteValue(amount: bigint, decimals: number, price: bigint | null, quoteDecimals: number): bigint {
    if (price === null) return 0n
    return (amount * price * 10n ** BigInt(quoteDecimals)) / (10n ** BigInt(decimals) * PRICE_ONE)
}

export class PriceRule {
    /** Without STABLE (a chain without our contracts) every price is null: unknown, never guessed. */
    constructor(
        private readonly stable: string | null,
        private readonly wnative: string | null,
        private readonly pairOf: (tokenA: string, tokenB: string) => PairReserves | undefined,
        /** Decimals of a token; unknown decimals count as 0. */
        private readonly decimalsOf: (token: string) => number
    ) {}

    /**
     * Price of one whole `token` in whole STABLE: STABLE is 1; WNATIVE through the WNATIVE/STABLE
     * pair; any other token through its STABLE pair, else its WNATIVE pair, each only while the
     * whitelisted side holds at least MIN_PRICING_LIQUIDITY STABLE of value; else null.
     */
    derivedQuote(token: string): bigint | null {
        if (this.stable === null) return null
        if (token === this.stable) return PRICE_ONE
        const direct = this.through(token, this.stable, PRICE_ONE)
        if (token === this.wnative || direct !== null || this.wnative === null) return direct
        const wnativePrice = this.derivedQuote(this.wnative)
        return wnativePrice === null ? null : this.through(token, this.wnative, wnativePrice)
    }

    /** The token's price through its pair with `base` (whose price is `basePrice`), or null. */
    private through(token: string, base: string, basePrice: bigint): bigint | null {
        const pair = this.pairOf(token, base)
        if (!pair) return null
        const [reserveToken, reserveBase] = pair.token0 === token ? [pair.reserve0, pair.reserve1] : [pair.reserve1, pair.reserve0]
        const baseDecimals = this.decimalsOf(base)
        // reserveBase x basePrice >= MIN whole STABLE, in base units of `base` scaled by PRICE_ONE.
        if (reserveBase * basePrice < MIN_PRICING_LIQUIDITY * 10n ** BigInt(baseDecimals) * PRICE_ONE) return null
        const inBase = unitPrice(reserveBase, baseDecimals, reserveToken, this.decimalsOf(token))
        return inBase === null ? null : (inBase * basePrice) / PRICE_ONE
    }
}
