/**
 * The AMM's pair formulas (Uniswap V2 with a 0.2% swap fee) in exact integer arithmetic, as
 * AmmRouter computes them (docs/contracts.md). Each throws AmmMathError where the router reverts,
 * with the router's reason: a caller that wants 0n (or undefined) for "cannot trade" says so
 * where it calls.
 */

export class AmmMathError extends Error {
    constructor(readonly reason: 'INSUFFICIENT_AMOUNT' | 'INSUFFICIENT_INPUT_AMOUNT' | 'INSUFFICIENT_OUTPUT_AMOUNT' | 'INSUFFICIENT_LIQUIDITY') {
        super(reason)
        this.name = 'AmmMathError'
    }
}

/** Of each 1000 units paid in, 998 count towards the pair's invariant (AmmPair.swap). */
const FEE_DENOMINATOR = 1000n
const AFTER_FEE = 998n

/** The pair's fee on `amountIn`: what of it stays with the liquidity providers (0.2%, rounded down). */
export function swapFee(amountIn: bigint): bigint {
    return (amountIn * (FEE_DENOMINATOR - AFTER_FEE)) / FEE_DENOMINATOR
}

/** The pair's fee as a percent, for people: "0.20". */
export const SWAP_FEE_PERCENT = '0.20'

/** amountA valued in B at the reserves, no fee (the router's quote, used for liquidity and pricing). */
export function quote(amountA: bigint, reserveA: bigint, reserveB: bigint): bigint {
    if (amountA <= 0n) throw new AmmMathError('INSUFFICIENT_AMOUNT')
    if (reserveA <= 0n || reserveB <= 0n) throw new AmmMathError('INSUFFICIENT_LIQUIDITY')
    return (amountA * reserveB) / reserveA
}

/** amountIn·998·reserveOut / (reserveIn·1000 + amountIn·998), rounded down, as the router's getAmountOut. */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
    if (amountIn <= 0n) throw new AmmMathError('INSUFFICIENT_INPUT_AMOUNT')
    if (reserveIn <= 0n || reserveOut <= 0n) throw new AmmMathError('INSUFFICIENT_LIQUIDITY')
    const withFee = amountIn * AFTER_FEE
    return (withFee * reserveOut) / (reserveIn * FEE_DENOMINATOR + withFee)
}

/** The least input whose getAmountOut reaches amountOut (floor + 1, as the router's getAmountIn). */
export function getAmountIn(amountOut: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
    if (amountOut <= 0n) throw new AmmMathError('INSUFFICIENT_OUTPUT_AMOUNT')
    if (reserveIn <= 0n || reserveOut <= amountOut) throw new AmmMathError('INSUFFICIENT_LIQUIDITY')
    return (reserveIn * amountOut * FEE_DENOMINATOR) / ((reserveOut - amountOut) * AFTER_FEE) + 1n
}
