import { AmmMathError, getAmountOut } from '../../common/amm-math'
import { formatRatio, parseRational, rescale } from '../amounts'
import { BridgeConfig, PoolConfig } from '../config'
import { ChainAdapter } from '../chains/adapter'
import { PriceSource } from '../prices'
import { SwapProvider } from '../providers/provider'
import { Route } from './routing'

/**
 * The rate engine: what a route pays for an amount, right now. The fee (percent from config) is
 * taken once, from the deposit, before conversion; then each leg converts: pool legs with the
 * AMM's own formula (common/amm-math.ts) on the pool's current reserves, reference legs at the
 * price source's USD prices (a stale one throws PriceUnavailableError), pegs 1:1, the provider leg
 * at the provider's own estimate (its fee included). All integer arithmetic, rounding down, so the bridge
 * never promises more than the maths gives.
 */

export class NoLiquidityError extends Error {}

export interface LegQuote {
    type: string
    pool?: string
    /** Provider legs: who converts (token_in/token_out are then "CHAIN:SYMBOL"). */
    provider?: string
    pair?: string
    block?: string
    reserve_in?: string
    reserve_out?: string
    /** Pool legs: the chain's assets traded (the coin's name where the vault holds the coin) and the amounts, base units. */
    chain?: string
    token_in?: string
    token_out?: string
    amount_in?: string
    amount_out?: string
    price_from_usd?: string
    price_to_usd?: string
}

export interface Quote {
    amountIn: bigint
    fee: bigint
    /** Target base units. */
    amountOut: bigint
    /** Target per source, whole tokens, after the fee (decimal string). */
    rate: string
    legs: LegQuote[]
}

export interface PoolPrice {
    pool: PoolConfig
    pair: string
    reserveBase: bigint
    reserveQuote: bigint
    blockNumber: bigint
    /** Quote tokens per base token (decimal string). */
    price: string
}

/** What the pool pays for amountIn (the AMM's getAmountOut), or 0n where the router would revert: the bridge reads 0n as no liquidity. */
export function poolAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
    try {
        return getAmountOut(amountIn, reserveIn, reserveOut)
    } catch (err) {
        if (err instanceof AmmMathError) return 0n
        throw err
    }
}

export class RateEngine {
    constructor(private readonly config: BridgeConfig, private readonly prices: PriceSource, private readonly adapters: Map<string, ChainAdapter>, private readonly provider?: SwapProvider) {}

    async quote(route: Route, amountIn: bigint): Promise<Quote> {
        const fee = (amountIn * BigInt(this.config.feeBps)) / 10_000n
        let amount = amountIn - fee
        let decimals = route.source.decimals
        const legs: LegQuote[] = []
        for (const leg of route.legs) {
            if (leg.type === 'peg') {
                legs.push({ type: 'peg' })
            } else if (leg.type === 'reference') {
                const [from, to] = [this.prices.usd(leg.from), this.prices.usd(leg.to)]
                const [p1, p2] = [parseRational(from), parseRational(to)]
                amount = (rescale(amount, decimals, 18) * p1.num * p2.den) / (p1.den * p2.num)
                decimals = 18
                legs.push({ type: 'reference', price_from_usd: from, price_to_usd: to })
            } else if (leg.type === 'pool') {
                const price = await this.poolPrice(leg.pool)
                const pool = price.pool
                const baseToQuote = leg.from === 'NATIVE'
                const [tokenIn, tokenOut] = baseToQuote ? [pool.base, pool.quote] : [pool.quote, pool.base]
                const [reserveIn, reserveOut] = baseToQuote ? [price.reserveBase, price.reserveQuote] : [price.reserveQuote, price.reserveBase]
                const legIn = rescale(amount, decimals, tokenIn.decimals)
                amount = poolAmountOut(legIn, reserveIn, reserveOut)
                decimals = tokenOut.decimals
                if (amount === 0n) throw new NoLiquidityError(`no liquidity for the pair at that moment (pool ${leg.pool})`)
                legs.push({
                    type: 'pool', pool: leg.pool, pair: price.pair, block: price.blockNumber.toString(), reserve_in: reserveIn.toString(), reserve_out: reserveOut.toString(),
                    chain: pool.chain, token_in: tokenIn.coin ?? tokenIn.symbol, token_out: tokenOut.coin ?? tokenOut.symbol,
                    amount_in: legIn.toString(), amount_out: amount.toString(),
                })
            } else {
                if (!this.provider || !route.provider) throw new NoLiquidityError('no route for the pair: the external swap provider is not configured')
                const { sell, buy } = route.provider
                const legIn = rescale(amount, decimals, sell.decimals)
                // Out-of-range and unavailable errors go to the caller: a 400 with the bounds, or a retry.
                const estimate = await this.provider.estimate({ from: sell, to: buy }, legIn)
                amount = estimate.amountOut
                decimals = buy.decimals
                if (amount === 0n) throw new NoLiquidityError('no liquidity or route for the pair at that moment: the provider pays nothing for the amount')
                legs.push({
                    type: 'provider', provider: this.provider.name, chain: sell.chain, token_in: leg.sell, token_out: leg.buy,
                    amount_in: legIn.toString(), amount_out: amount.toString(),
                })
            }
        }
        const amountOut = rescale(amount, decimals, route.target.decimals)
        if (amountOut <= 0n) throw new NoLiquidityError('no liquidity or route for the pair at that moment: the amount converts to nothing')
        const net = amountIn - fee
        const rate = formatRatio(amountOut * 10n ** BigInt(route.source.decimals), net * 10n ** BigInt(route.target.decimals))
        return { amountIn, fee, amountOut, rate, legs }
    }

    async poolPrice(poolId: string): Promise<PoolPrice> {
        const pool = this.config.pools.find((p) => p.id === poolId)
        if (!pool) throw new NoLiquidityError(`no route for the pair: pool ${poolId} is not configured`)
        const adapter = this.adapters.get(pool.chain)
        if (!adapter?.pairReserves) throw new NoLiquidityError(`network not enabled: ${pool.chain}`)
        const reserves = await adapter.pairReserves(pool.factory, pool.base.address, pool.quote.address)
        if (!reserves || reserves.reserveA === 0n || reserves.reserveB === 0n) {
            throw new NoLiquidityError(`no liquidity for the pair at that moment (pool ${poolId} is empty)`)
        }
        const price = formatRatio(reserves.reserveB * 10n ** BigInt(pool.base.decimals), reserves.reserveA * 10n ** BigInt(pool.quote.decimals))
        return { pool, pair: reserves.pair, reserveBase: reserves.reserveA, reserveQuote: reserves.reserveB, blockNumber: reserves.blockNumber, price }
    }
}
