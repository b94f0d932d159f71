import { getAmountIn, getAmountOut } from '../../common/amm-math'

/**
 * Pricing of a swap path: the pair formulas hop by hop, with the transfer fees PlatformTokens
 * charge, in exact integer arithmetic as the contracts compute them. Pure functions: the routes
 * quote with these and the contracts have the last word.
 */

export const BPS = 10_000n

/** Basis-point fees a PlatformToken charges: buying on transfers out of a pair, selling on transfers into one. */
export interface TransferFees {
    buying: number
    selling: number
}

export const NO_FEES: TransferFees = { buying: 0, selling: 0 }

/** What arrives of a transfer of `value`: each applicable fee is rounded down on its own, as PlatformToken._update does. */
export function netOfTransfer(value: bigint, fees: TransferFees, fromPair: boolean, toPair: boolean): bigint {
    let fee = 0n
    if (fromPair && fees.buying > 0) fee += (value * BigInt(fees.buying)) / BPS
    if (toPair && fees.selling > 0) fee += (value * BigInt(fees.selling)) / BPS
    return value - fee
}

/** The least transfer (near enough: within rounding) of which at least `net` arrives. */
export function grossForNet(net: bigint, fees: TransferFees, fromPair: boolean, toPair: boolean): bigint {
    const rate = BigInt((fromPair ? fees.buying : 0) + (toPair ? fees.selling : 0))
    if (rate === 0n || net === 0n) return net
    let value = (net * BPS + (BPS - rate) - 1n) / (BPS - rate)
    // The two fees round separately, so the closed form can be off by a unit or two either way.
    while (netOfTransfer(value, fees, fromPair, toPair) < net) value++
    while (value > 0n && netOfTransfer(value - 1n, fees, fromPair, toPair) >= net) value--
    return value
}

/** A route through pairs: reserves per hop in the direction of travel, fees per token of the path. */
export interface PricedPath {
    /** [reserveIn, reserveOut] of each hop. */
    reserves: [bigint, bigint][]
    /** Fees of each token of the path (one more than hops). */
    fees: TransferFees[]
}

/**
 * What the receiver gets for sending amountIn along the path: the first transfer goes into the
 * first pair from a wallet (or the router), each later one from pair to pair, the last from the
 * final pair to the receiver. This is what the router's fee-supporting swaps compute hop by hop.
 */
export function quoteExactIn(amountIn: bigint, path: PricedPath): bigint {
    const hops = path.reserves.length
    let arriving = netOfTransfer(amountIn, path.fees[0], false, true)
    for (let i = 0; i < hops; i++) {
        const [reserveIn, reserveOut] = path.reserves[i]
        const out = getAmountOut(arriving, reserveIn, reserveOut)
        arriving = netOfTransfer(out, path.fees[i + 1], true, i < hops - 1)
    }
    return arriving
}

/** The least amount to send so that the receiver gets at least amountOut (inverse of quoteExactIn). */
export function quoteExactOut(amountOut: bigint, path: PricedPath): bigint {
    const hops = path.reserves.length
    let needed = grossForNet(amountOut, path.fees[hops], true, false)
    for (let i = hops - 1; i >= 0; i--) {
        const [reserveIn, reserveOut] = path.reserves[i]
        const arriving = getAmountIn(needed, reserveIn, reserveOut)
        needed = grossForNet(arriving, path.fees[i], i > 0, true)
    }
    // Rounding in the fee inverses can leave the forward quote a unit short; step up until it is not.
    for (let guard = 0; guard < 64 && quoteExactIn(needed, path) < amountOut; guard++) needed++
    return needed
}

/** Whether any transfer along the path is charged: then the router's fee-supporting methods are needed. */
export function chargesFees(path: PricedPath): boolean {
    return path.fees.some((f) => f.buying > 0 || f.selling > 0)
}
