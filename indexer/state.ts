import { quote } from '../common/amm-math'

/**
 * What the indexer must remember between blocks: which contracts are known tokens, and every AMM
 * pair with its current reserves (needed to price swaps at the moment they happen). It is small
 * (one entry per token or pair), loaded from the database at start and after a reorg.
 */

export interface PairState {
    token0: string
    token1: string
    reserve0: bigint
    reserve1: bigint
}

export interface AmmAddresses {
    wnative: string
    stable: string
    factory: string
}

export type Query = (sql: string, params?: unknown[]) => Promise<any[]>

export class ChainState {
    readonly tokens = new Set<string>()
    readonly pairs = new Map<string, PairState>()
    private readonly pairByTokens = new Map<string, string>()

    constructor(readonly amm: AmmAddresses) {}

    async load(query: Query): Promise<void> {
        this.tokens.clear()
        this.pairs.clear()
        this.pairByTokens.clear()
        for (const row of await query('SELECT id FROM token')) this.tokens.add(row.id)
        for (const row of await query('SELECT id, token0, token1, reserve0, reserve1 FROM pair')) {
            this.addPair(row.id, {
                token0: row.token0,
                token1: row.token1,
                reserve0: BigInt(row.reserve0),
                reserve1: BigInt(row.reserve1),
            })
        }
    }

    addPair(address: string, pair: PairState): void {
        this.pairs.set(address, pair)
        this.pairByTokens.set(tokensKey(pair.token0, pair.token1), address)
    }

    /**
     * Volume of a swap in quote-token (STABLE) base units, by the DeFi volume rule (docs/indexer.md#defi-volume-rule), at the
     * reserves after every earlier event (the pair's Sync just before this Swap included): the price at its position.
     */
    swapVolume(pair: PairState, amount0: bigint, amount1: bigint): bigint {
        const { stable } = this.amm
        if (pair.token0 === stable) return amount0
        if (pair.token1 === stable) return amount1
        return this.valueInQuote(pair.token0, amount0) ?? this.valueInQuote(pair.token1, amount1) ?? 0n
    }

    private valueInQuote(token: string, amount: bigint): bigint | undefined {
        const { stable, wnative } = this.amm
        const direct = this.convert(token, stable, amount)
        if (direct !== undefined) return direct
        const inWnative = token === wnative ? amount : this.convert(token, wnative, amount)
        return inWnative === undefined ? undefined : this.convert(wnative, stable, inWnative)
    }

    /** amount of `from` valued in `to` at the reserves of their pool; undefined without a funded pool. */
    private convert(from: string, to: string, amount: bigint): bigint | undefined {
        const address = this.pairByTokens.get(tokensKey(from, to))
        if (!address) return undefined
        const pair = this.pairs.get(address)!
        const [reserveFrom, reserveTo] = pair.token0 === from ? [pair.reserve0, pair.reserve1] : [pair.reserve1, pair.reserve0]
        if (reserveFrom === 0n || reserveTo === 0n) return undefined
        return amount === 0n ? 0n : quote(amount, reserveFrom, reserveTo)
    }
}

function tokensKey(a: string, b: string): string {
    return a < b ? `${a}-${b}` : `${b}-${a}`
}
