import { expect } from 'chai'
import { PRICE_ONE, PriceRule } from '../../common/amm-prices'
import { PairReserves, PoolsByTokens, QuoteValuation } from '../../common/quote-value'

const STABLE = '0xs'
const TOKEN = '0xt'

/** docs/indexer.md#several-factories: which pool prices when factories share a token pair, and nothing priced without a quote token. */
describe('several factories and no quote token (pure)', () => {
    const pool = (reserveToken: bigint, reserveStable: bigint): PairReserves => ({ token0: STABLE, token1: TOKEN, reserve0: reserveStable, reserve1: reserveToken })

    it('reads the pool holding the most of the valuing token, the lowest address on a tie', () => {
        const pools = new PoolsByTokens<PairReserves>()
        const shallow = pool(100n, 10n)
        const deep = pool(1000n, 500n)
        pools.add('0xb', shallow)
        pools.add('0xc', deep)
        expect(pools.pairOf(TOKEN, STABLE)).to.equal(deep)
        // Valued in TOKEN instead, the shallow pool holds less of it too.
        expect(pools.pairOf(STABLE, TOKEN)).to.equal(deep)
        const twin = pool(2000n, 500n)
        pools.add('0xa', twin)
        expect(pools.pairOf(TOKEN, STABLE)).to.equal(twin)
        expect(pools.pairOf(TOKEN, '0xother')).to.equal(undefined)
    })

    it('prices through the deepest pool, so a shallow pool of another factory cannot move the price', () => {
        const pools = new PoolsByTokens<PairReserves>()
        pools.add('0x1', pool(1_000n, 20_000n))
        pools.add('0x2', pool(1n, 11n))
        const rule = new PriceRule(STABLE, null, (t, b) => pools.pairOf(t, b), () => 0)
        expect(rule.derivedQuote(TOKEN)).to.equal(20n * PRICE_ONE)
    })

    it('without STABLE every price is null and every value 0', () => {
        const pools = new PoolsByTokens<PairReserves>()
        const p = pool(1_000n, 20_000n)
        pools.add('0x1', p)
        expect(new PriceRule(null, null, (t, b) => pools.pairOf(t, b), () => 0).derivedQuote(TOKEN)).to.equal(null)
        expect(new PriceRule(null, null, (t, b) => pools.pairOf(t, b), () => 0).derivedQuote(STABLE)).to.equal(null)
        expect(new QuoteValuation(null, null, (t, b) => pools.pairOf(t, b)).pairValue(p, 5n, 7n)).to.equal(0n)
        expect(new QuoteValuation(STABLE, null, (t, b) => pools.pairOf(t, b)).pairValue(p, 5n, 7n)).to.equal(5n)
    })
})
