import { PairReserves, QuoteValuation, tokensKey } from '../common/quote-value'

/**
 * What the indexer must remember between blocks: which contracts are known tokens, and every AMM
 * pair with its current reserves (needed to price swaps at the moment they happen). It is small
 * (one entry per token or pair), loaded from the database at start and after a reorg.
 */

export type PairState = PairReserves

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
    private readonly valuation: QuoteValuation

    constructor(readonly amm: AmmAddresses) {
        this.valuation = new QuoteValuation(amm.stable, amm.wnative, (a, b) => {
            const address = this.pairByTokens.get(tokensKey(a, b))
            return address === undefined ? undefined : this.pairs.get(address)
        })
    }

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
        return this.valuation.pairValue(pair, amount0, amount1)
    }
}
