import { EntityTarget } from 'typeorm'
import { priceText, unitPrice, wholeText } from '../common/amm-prices'
import { DexDayData, Pair, PairDayData, PairHourData, TokenDayData } from '../model'
import { Candle, PairBucket } from './amm-batch'
import { Batch } from './batch'
import { AmmSnapshot } from './state'

/**
 * Writes the AMM's aggregates of a batch (its event rows are appended with the others): one
 * upsert per table, additive columns as deltas, end-of-bucket and current values as they stand
 * after the batch, candles merged (open kept, GREATEST, LEAST, close replaced).
 */

type Upsert = <R>(entity: EntityTarget<unknown>, rows: { id: string }[], onConflict: Record<string, string>, returning?: string) => Promise<R[]>

const add = (column: string) => `t.${column} + excluded.${column}`
const replace = (column: string) => `excluded.${column}`

const CANDLE = {
    price_open: 'COALESCE(t.price_open, excluded.price_open)',
    price_high: 'GREATEST(t.price_high, excluded.price_high)',
    price_low: 'LEAST(t.price_low, excluded.price_low)',
    price_close: 'COALESCE(excluded.price_close, t.price_close)',
}

function candleColumns(candle: Candle) {
    return {
        priceOpen: priceText(candle.open),
        priceHigh: priceText(candle.high),
        priceLow: priceText(candle.low),
        priceClose: priceText(candle.close),
    }
}

/**
 * The AMM columns of a token row: its trade figures as deltas, and its price and liquidity as
 * they stand (null and 0 for a token in no pair, which is what such a token has).
 */
export function tokenAmmColumns(batch: Batch, amm: AmmSnapshot, token: string) {
    const figures = batch.amm.tokens.get(token)
    return {
        tradeVolume: figures?.volume ?? 0n,
        tradeVolumeQuote: figures?.volumeQuote ?? 0n,
        swapCount: figures?.swaps ?? 0,
        derivedQuote: priceText(amm.prices.get(token) ?? null),
        totalLiquidity: amm.liquidity.get(token) ?? 0n,
    }
}

export const TOKEN_AMM_CONFLICT = {
    trade_volume: add('trade_volume'),
    trade_volume_quote: add('trade_volume_quote'),
    swap_count: add('swap_count'),
    derived_quote: replace('derived_quote'),
    total_liquidity: replace('total_liquidity'),
}

const BUCKET_CONFLICT = {
    swaps: add('swaps'),
    volume_token0: add('volume_token0'),
    volume_token1: add('volume_token1'),
    reserve0: replace('reserve0'),
    reserve1: replace('reserve1'),
    reserve0_decimal: replace('reserve0_decimal'),
    reserve1_decimal: replace('reserve1_decimal'),
    reserve_quote: replace('reserve_quote'),
    ...CANDLE,
}

export async function writeAmmAggregates(batch: Batch, amm: AmmSnapshot, upsert: Upsert): Promise<void> {
    const decimals = (token: string) => amm.decimals.get(token) ?? 0
    const reserves = (pairId: string, reserve0: bigint, reserve1: bigint) => {
        const pair = amm.pairs.get(pairId)!
        return {
            reserve0, reserve1,
            reserve0Decimal: wholeText(reserve0, decimals(pair.token0)),
            reserve1Decimal: wholeText(reserve1, decimals(pair.token1)),
        }
    }
    // Pairs whose LP supply changed are among them: a Mint or Burn comes with the pair's Sync.
    const pairs = [...batch.amm.pairs].map(([id, figures]) => {
        const pair = amm.pairs.get(id)!
        const created = batch.amm.newPairs.get(id)
        const d0 = decimals(pair.token0)
        const d1 = decimals(pair.token1)
        return {
            id,
            token0: pair.token0,
            token1: pair.token1,
            ...reserves(id, pair.reserve0, pair.reserve1),
            token0Price: priceText(unitPrice(pair.reserve0, d0, pair.reserve1, d1)),
            token1Price: priceText(unitPrice(pair.reserve1, d1, pair.reserve0, d0)),
            reserveQuote: pair.reserveQuote,
            volumeToken0: figures.volumeToken0,
            volumeToken1: figures.volumeToken1,
            volumeTotal: figures.volume,
            swapsTotal: figures.swaps,
            totalSupply: batch.tokens.get(id)?.supply ?? 0n,
            createdBlock: created?.createdBlock ?? 0,
            createdTransaction: created?.createdTransaction ?? '',
        }
    })
    await upsert(Pair, pairs, {
        reserve0: replace('reserve0'),
        reserve1: replace('reserve1'),
        reserve0_decimal: replace('reserve0_decimal'),
        reserve1_decimal: replace('reserve1_decimal'),
        token0_price: replace('token0_price'),
        token1_price: replace('token1_price'),
        reserve_quote: replace('reserve_quote'),
        volume_token0: add('volume_token0'),
        volume_token1: add('volume_token1'),
        volume_total: add('volume_total'),
        swaps_total: add('swaps_total'),
        total_supply: add('total_supply'),
    })

    const bucketRow = (id: string, b: PairBucket) => ({
        id, pair: b.pair, swaps: b.swaps, volumeToken0: b.volumeToken0, volumeToken1: b.volumeToken1,
        ...reserves(b.pair, b.reserve0, b.reserve1), reserveQuote: b.reserveQuote, ...candleColumns(b.candle),
    })
    const hours = [...batch.amm.pairHours].map(([id, b]) => ({ ...bucketRow(id, b), hour: b.start, volume: b.volume }))
    await upsert(PairHourData, hours, { volume: add('volume'), ...BUCKET_CONFLICT })
    const days = [...batch.amm.pairDays].map(([id, b]) => ({ ...bucketRow(id, b), date: b.start, volumeQuote: b.volume }))
    await upsert(PairDayData, days, { volume_quote: add('volume_quote'), ...BUCKET_CONFLICT })

    const tokenDays = [...batch.amm.tokenDays].map(([id, b]) => ({
        id, token: b.token, date: b.date, volume: b.volume, volumeQuote: b.volumeQuote, swaps: b.swaps,
        ...candleColumns(b.candle), totalLiquidity: b.totalLiquidity, liquidityQuote: b.liquidityQuote,
    }))
    await upsert(TokenDayData, tokenDays, {
        volume: add('volume'), volume_quote: add('volume_quote'), swaps: add('swaps'), ...CANDLE,
        total_liquidity: replace('total_liquidity'), liquidity_quote: replace('liquidity_quote'),
    })

    const dexDays = [...batch.amm.dexDays].map(([id, d]) => ({ id, ...d }))
    await upsert(DexDayData, dexDays, {
        volume: add('volume'), swaps: add('swaps'), trade_volume_quote: add('trade_volume_quote'), trades: add('trades'),
        liquidity_quote: replace('liquidity_quote'), pair_count: replace('pair_count'),
    })
}
