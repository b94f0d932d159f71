import { parseRational, rescale } from '../amounts'
import { Asset } from '../config'
import { PriceUnavailableError } from '../prices'
import { EngineContext } from './context'
import { Route } from './routing'

/** The least deposit a route takes now, the fee floor above its lower bound: docs/bridge/routes-and-prices.md#fee-and-bounds */

export const FEE_MULTIPLE = 4n
/** Lamports a Solana system account must hold to exist (0 data bytes), verified on LiteSVM. */
export const SOLANA_RENT_EXEMPT_MINIMUM = 890_880n

/** The minimum an amount is judged against, and the network fees it was derived from. */
export interface Minimum {
    amount: bigint
    /** Absent when they were not needed (an amount below the registry's minimum) or the nodes could not give them now. */
    fees?: NetworkFees
}

/**
 * The minimum an `amount` is judged against: below the registry's minimum nothing more needs
 * asking; otherwise the fee floor, or the registry's minimum when the nodes cannot give the fees
 * now (the rate lock checks again). A stale price is not such a case: it throws PriceUnavailableError.
 * The fees come back with it so a caller that shows them (the quote) does not ask the nodes twice.
 */
export async function minimumFor(ctx: EngineContext, route: Route, amount: bigint): Promise<Minimum> {
    if (amount < route.minAmount) return { amount: route.minAmount }
    let fees: NetworkFees
    try {
        fees = await networkFees(ctx, route)
    } catch (err) {
        if (err instanceof PriceUnavailableError) throw err
        ctx.log.warn({ err, source: route.source.chain, target: route.target.chain }, 'network fees unavailable for the minimum deposit')
        return { amount: route.minAmount }
    }
    return { amount: await minimumDeposit(ctx, route, fees), fees }
}

/** The network fees of a swap's own transactions, each in its chain's coin, and their sum in the source token. */
export interface NetworkFees {
    gather: { amount: bigint; coin: Asset }
    payout: { amount: bigint; coin: Asset }
    /** Both, in base units of the source token at reference prices (a coin not priced at all counts 0). */
    inSource: bigint
}

/** What the gather on the source chain and the payout on the target chain cost now, as the nodes estimate. */
export async function networkFees(ctx: EngineContext, route: Route): Promise<NetworkFees> {
    const { source, target } = route
    const sourceAdapter = ctx.adapter(source.chain)
    const targetAdapter = ctx.adapter(target.chain)
    // Addresses only shape the estimate (an EVM coin transfer to a contract costs more): the vaults stand in for both ends.
    const [sourceVault, targetVault] = await Promise.all([sourceAdapter.deriveAddress({ kind: 'vault' }), targetAdapter.deriveAddress({ kind: 'vault' })])
    const [gatherFee, payoutFee] = await Promise.all([
        sourceAdapter.transferFee(source, sourceVault, sourceVault),
        targetAdapter.transferFee(target, targetVault, targetVault),
    ])
    const [gatherCoin, payoutCoin] = [ctx.coin(source.chain), ctx.coin(target.chain)]
    return {
        gather: { amount: gatherFee, coin: gatherCoin },
        payout: { amount: payoutFee, coin: payoutCoin },
        inSource: toSource(ctx, gatherFee, gatherCoin, source) + toSource(ctx, payoutFee, payoutCoin, source),
    }
}

export async function minimumDeposit(ctx: EngineContext, route: Route, fees?: NetworkFees): Promise<bigint> {
    let floor = route.minAmount
    if (route.source.chain === 'SOLANA' && floor < SOLANA_RENT_EXEMPT_MINIMUM) floor = SOLANA_RENT_EXEMPT_MINIMUM
    const needed = (fees ?? await networkFees(ctx, route)).inSource * FEE_MULTIPLE
    return needed > floor ? needed : floor
}

/** `amount` of `coin` in base units of `source`, at reference prices; 0 when either is not priced at all. */
function toSource(ctx: EngineContext, amount: bigint, coin: Asset, source: Asset): bigint {
    if (amount === 0n) return 0n
    if (coin.priceClass === source.priceClass) return rescale(amount, coin.decimals, source.decimals)
    if (!ctx.prices.has(coin.priceClass) || !ctx.prices.has(source.priceClass)) return 0n
    const [from, to] = [ctx.prices.usd(coin.priceClass), ctx.prices.usd(source.priceClass)]
    const [p1, p2] = [parseRational(from), parseRational(to)]
    // Rounded up: the floor must cover the fee, not fall a unit short of it.
    const num = amount * p1.num * p2.den * 10n ** BigInt(source.decimals)
    const den = p1.den * p2.num * 10n ** BigInt(coin.decimals)
    return (num + den - 1n) / den
}
