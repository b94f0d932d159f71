import { expect } from 'chai'
import pino from 'pino'
import { PriceSource, PriceUnavailableError } from '../../bridge/prices'
import { PriceFeed } from '../doubles/price-feed'

/** The price source polling a feed on loopback: ageing and errors (config rules and parsing: prices-rules.unit.test.ts). */
describe('bridge: reference price sources', function () {
    const log = pino({ level: 'silent' })

    describe('a polled feed', function () {
        let feed: PriceFeed
        let clock: number
        let source: PriceSource

        beforeEach(async function () {
            feed = new PriceFeed({ ethereum: '3012.5', bitcoin: '91000' })
            await feed.start()
            clock = 1_000_000
            source = new PriceSource({ kind: 'feed', url: feed.url, ids: { ETH: 'ethereum', BTC: 'bitcoin', SOL: 'solana' }, pollMs: 60_000, maxAgeMs: 10_000 }, log, () => clock)
        })

        afterEach(async function () {
            await feed.stop()
        })

        it('asks for every id in USD, stamps each price with its fetch time, and refuses it once older than the maximum age', async function () {
            expect(() => source.usd('ETH')).to.throw(PriceUnavailableError, 'no price for ETH')
            await source.poll()
            expect(feed.requests[0].searchParams.get('ids')).to.equal('ethereum,bitcoin,solana')
            expect(feed.requests[0].searchParams.get('vs_currencies')).to.equal('usd')
            expect(source.usd('ETH')).to.equal('3012.5')
            expect(source.usd('USD')).to.equal('1')
            // Configured but not in the answer: no price, never a zero.
            expect(source.has('SOL')).to.equal(true)
            expect(() => source.usd('SOL')).to.throw(PriceUnavailableError)
            expect(source.has('BNB')).to.equal(false)
            expect(source.view().ETH).to.deep.equal({ usd: '3012.5', fetched_at: new Date(1_000_000).toISOString(), stale: false })
            clock += 10_001
            expect(() => source.usd('ETH')).to.throw(PriceUnavailableError, 'stale')
            expect(source.view().ETH.stale).to.equal(true)
        })

        it('keeps the last good prices through errors and garbage until they age out, and takes fresh ones again', async function () {
            await source.poll()
            for (const mode of ['error', 'garbage'] as const) {
                feed.mode = mode
                clock += 4_000
                await source.poll()
                expect(source.usd('ETH'), `after a feed ${mode}`).to.equal('3012.5')
            }
            clock += 4_000
            expect(() => source.usd('BTC')).to.throw(PriceUnavailableError, 'stale')
            feed.mode = 'ok'
            feed.prices.bitcoin = '92000.25'
            await source.poll()
            expect(source.usd('BTC')).to.equal('92000.25')
        })

        it('gives up on a feed that cannot be reached without throwing', async function () {
            await feed.stop()
            await source.poll()
            expect(() => source.usd('ETH')).to.throw(PriceUnavailableError)
        })
    })
})
