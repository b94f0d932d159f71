import { expect } from 'chai'
import { parseBridgeEnv } from '../../bridge/config'
import { DEFAULT_STATIC_PRICES, parseFeed, parsePriceSource } from '../../bridge/prices'

/** The price source without a bridge: config rules and the feed's parsing (polling a loopback feed: prices-units.test.ts). */
describe('bridge: reference price sources', function () {
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
})
