import { expect } from 'chai'
import pino from 'pino'
import { parseBridgeEnv } from '../../bridge/config'
import { DEFAULT_STATIC_PRICES, parseFeed, parsePriceSource, PriceSource, PriceUnavailableError } from '../../bridge/prices'
import { PriceFeed } from '../doubles/price-feed'

/** The price source without a bridge: config rules, the feed's parsing, ageing, and polling a loopback feed. */
describe('bridge: reference price sources', function () {
    const log = pino({ level: 'silent' })

    describe('configuration', function () {
        it('refuses production without an explicit price source, naming both variables', function () {
            expect(() => parsePriceSource(parseBridgeEnv({ NODE_ENV: 'production' })))
                .to.throw(/BRIDGE_PRICE_FEED_URL.*BRIDGE_REFERENCE_PRICES/)
            expect(parsePriceSource(parseBridgeEnv({ NODE_ENV: 'production', BRIDGE_REFERENCE_PRICES: 'ETH=2500' }))).to.deep.equal({ kind: 'static', prices: { ETH: '2500' } })
            expect(parsePriceSource(parseBridgeEnv({ NODE_ENV: 'production', BRIDGE_PRICE_FEED_URL: 'http://feed.example/price' })).kind).to.equal('feed')
        })

        it('uses the built-in prices in development and test, and refuses two sources at once', function () {
            for (const NODE_ENV of ['development', 'test']) {
                expect(parsePriceSource(parseBridgeEnv({ NODE_ENV }))).to.deep.equal({ kind: 'static', prices: Object.fromEntries(DEFAULT_STATIC_PRICES.split(',').map((p) => p.split('='))) })
            }
            expect(() => parsePriceSource(parseBridgeEnv({ BRIDGE_REFERENCE_PRICES: 'ETH=1', BRIDGE_PRICE_FEED_URL: 'http://feed.example/' }))).to.throw('not both')
        })

        it('maps price classes to feed ids, with defaults, and validates them', function () {
            const feed = parsePriceSource(parseBridgeEnv({ BRIDGE_PRICE_FEED_URL: 'http://feed.example/' }))
            expect(feed).to.deep.include({ ids: { ETH: 'ethereum', POL: 'polygon-ecosystem-token', BTC: 'bitcoin', TRX: 'tron', SOL: 'solana' }, pollMs: 60_000, maxAgeMs: 300_000 })
            expect(() => parseBridgeEnv({ BRIDGE_PRICE_FEED_IDS: 'ETH:ethereum' })).to.throw('BRIDGE_PRICE_FEED_IDS')
            expect(() => parsePriceSource(parseBridgeEnv({ BRIDGE_PRICE_FEED_URL: 'http://feed.example/', BRIDGE_PRICE_FEED_POLL_SECONDS: '300' })))
                .to.throw('BRIDGE_PRICE_FEED_POLL_SECONDS must be below BRIDGE_PRICE_MAX_AGE_SECONDS')
            expect(() => parseBridgeEnv({ BRIDGE_MAX_SLIPPAGE_PERCENT: '3.001' })).to.throw('BRIDGE_MAX_SLIPPAGE_PERCENT')
        })
    })

    it('reads feed numbers as the decimals they were written as, and leaves out what is not a positive price', function () {
        const body = JSON.parse('{"ethereum":{"usd":3012.5},"bitcoin":{"usd":1e5},"tron":{"usd":0.00000012},"solana":{"usd":-3},"polygon-ecosystem-token":{"eur":1}}')
        const ids = { ETH: 'ethereum', BTC: 'bitcoin', TRX: 'tron', SOL: 'solana', POL: 'polygon-ecosystem-token', BNB: 'binancecoin' }
        expect(parseFeed(body, ids)).to.deep.equal({
            prices: { ETH: '3012.5', BTC: '100000', TRX: '0.00000012' },
            missing: ['SOL (solana)', 'POL (polygon-ecosystem-token)', 'BNB (binancecoin)'],
        })
        expect(() => parseFeed([1, 2], ids)).to.throw('JSON object')
        expect(() => parseFeed(null, ids)).to.throw('JSON object')
    })

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
