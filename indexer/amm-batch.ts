import type { Burn, Mint, Swap, Trade } from '../model'
import type { Row } from './rows'
import type { PairState } from './state'

/** Additive figures of a pair (or of a pair's bucket) in a batch. */
export interface PairFigures {
    /** quote base units, per hop */
    volume: bigint
    swaps: number
    volumeToken0: bigint
    volumeToken1: bigint
}

/** A pair's hour or day: additive figures, the values at the bucket's last event and the token0Price candle. */
export interface PairBucket extends PairFigures {
    pair: string
    start: Date
    reserve0: bigint
    reserve1: bigint
    reserveQuote: bigint
    candle: Candle
}

/** first, highest, lowest and last price of a bucket (fixed point, docs/indexer.md#defi-price-rule); null while unpriced. */
export interface Candle {
    open: bigint | null
    high: bigint | null
    low: bigint | null
    close: bigint | null
}

/** A token's trade figures in a batch (per hop). */
export interface TokenFigures {
    volume: bigint
    volumeQuote: bigint
    swaps: number
}

export interface TokenBucket extends TokenFigures {
    token: string
    date: Date
    candle: Candle
    totalLiquidity: bigint
    liquidityQuote: bigint
}

export interface DexBucket {
    date: Date
    volume: bigint
    swaps: number
    tradeVolumeQuote: bigint
    trades: number
    liquidityQuote: bigint
    pairCount: number
}

/** The trade being built from the hops of one transaction. */
export interface OpenTrade {
    row: Row<Trade>
    /** the last hop's recipient: a next hop continues the trade if it swaps in that pair */
    lastTo: string
    /** the first hop's volume (the trade's, unless 0) */
    firstVolume: bigint
    day: DexBucket
}

/** The LP tokens a pair minted or burned in a transaction, until its Mint or Burn event reads them. */
export interface LiquidityMoves {
    transaction: string
    mintedTo: string | null
    minted: bigint
    burned: bigint
}

export const emptyCandle = (): Candle => ({ open: null, high: null, low: null, close: null })

/** The candle after a new price: mergeable across batches as open = first, GREATEST, LEAST, close = last. */
export function addToCandle(candle: Candle, price: bigint | null): void {
    if (price === null) return
    if (candle.open === null) candle.open = price
    if (candle.high === null || price > candle.high) candle.high = price
    if (candle.low === null || price < candle.low) candle.low = price
    candle.close = price
}

/**
 * The AMM rows and aggregate deltas derived from a batch (docs/indexer.md#defi-entities): events
 * appended as rows, figures kept as deltas and end-of-bucket values, written once per batch.
 */
export class AmmBatch {
    readonly swaps: Row<Swap>[] = []
    readonly trades: Row<Trade>[] = []
    readonly mints: Row<Mint>[] = []
    readonly burns: Row<Burn>[] = []
    /** pair -> where it was created */
    readonly newPairs = new Map<string, { createdBlock: number; createdTransaction: string }>()
    /** Pairs whose reserves or figures changed. */
    readonly pairs = new Map<string, PairFigures>()
    /** Tokens whose figures, price or liquidity changed. */
    readonly tokens = new Map<string, TokenFigures>()
    readonly pairHours = new Map<string, PairBucket>()
    readonly pairDays = new Map<string, PairBucket>()
    readonly tokenDays = new Map<string, TokenBucket>()
    readonly dexDays = new Map<string, DexBucket>()
    readonly liquidityMoves = new Map<string, LiquidityMoves>()
    openTrade: OpenTrade | undefined

    pairFigures(pair: string): PairFigures {
        let figures = this.pairs.get(pair)
        if (!figures) {
            figures = { volume: 0n, swaps: 0, volumeToken0: 0n, volumeToken1: 0n }
            this.pairs.set(pair, figures)
        }
        return figures
    }

    tokenFigures(token: string): TokenFigures {
        let figures = this.tokens.get(token)
        if (!figures) {
            figures = { volume: 0n, volumeQuote: 0n, swaps: 0 }
            this.tokens.set(token, figures)
        }
        return figures
    }

    /** The pair's hour and day buckets of the timestamp (ms), with their end values set to the pair's state now. */
    pairBuckets(id: string, pair: PairState, timestampMs: number, price: bigint | null): PairBucket[] {
        const hour = Math.floor(timestampMs / 3_600_000) * 3600
        const day = utcDay(timestampMs)
        return [
            bucketOf(this.pairHours, `${id}-${hour}`, id, new Date(hour * 1000)),
            bucketOf(this.pairDays, `${id}-${day.key}`, id, day.date),
        ].map((bucket) => {
            bucket.reserve0 = pair.reserve0
            bucket.reserve1 = pair.reserve1
            bucket.reserveQuote = pair.reserveQuote
            addToCandle(bucket.candle, price)
            return bucket
        })
    }

    tokenDay(token: string, timestampMs: number): TokenBucket {
        const day = utcDay(timestampMs)
        const id = `${token}-${day.key}`
        let bucket = this.tokenDays.get(id)
        if (!bucket) {
            bucket = { token, date: day.date, volume: 0n, volumeQuote: 0n, swaps: 0, candle: emptyCandle(), totalLiquidity: 0n, liquidityQuote: 0n }
            this.tokenDays.set(id, bucket)
        }
        return bucket
    }

    dexDay(timestampMs: number): DexBucket {
        const day = utcDay(timestampMs)
        let bucket = this.dexDays.get(day.key)
        if (!bucket) {
            bucket = { date: day.date, volume: 0n, swaps: 0, tradeVolumeQuote: 0n, trades: 0, liquidityQuote: 0n, pairCount: 0 }
            this.dexDays.set(day.key, bucket)
        }
        return bucket
    }
}

function bucketOf(buckets: Map<string, PairBucket>, id: string, pair: string, start: Date): PairBucket {
    let bucket = buckets.get(id)
    if (!bucket) {
        bucket = { pair, start, volume: 0n, swaps: 0, volumeToken0: 0n, volumeToken1: 0n, reserve0: 0n, reserve1: 0n, reserveQuote: 0n, candle: emptyCandle() }
        buckets.set(id, bucket)
    }
    return bucket
}

/** The UTC calendar day of a millisecond timestamp, as key (YYYY-MM-DD) and midnight. */
export function utcDay(timestampMs: number): { key: string; date: Date } {
    const date = new Date(Math.floor(timestampMs / 86_400_000) * 86_400_000)
    return { key: date.toISOString().slice(0, 10), date }
}
