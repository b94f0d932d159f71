import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { formatUnits, parseUnits } from 'viem'
import { spawnManaged, waitFor } from '../../common/processes'
import { PriceFeed } from '../doubles/price-feed'
import { createTestDatabase } from '../support/postgres'
import { freePort } from '../support/ports'
import {
    account, api, balanceOf, BridgeChains, BridgeProcess, bridgeEnv, createSwap, eventsOf, fundVaults, send, startBridge, startBridgeChains,
    tempDir, waitForStatus,
} from './support'

/**
 * Rate protection and price sources, against the real bridge: the rate
 * bound a swap carries (min_target_amount, or the quote less BRIDGE_MAX_SLIPPAGE_PERCENT) failing
 * and refunding a swap whose locked rate pays less; reference prices from a loopback
 * CoinGecko-style feed that goes stale (503 price_unavailable at creation, a rate lock that waits
 * rather than fails) and fresh again (the swap completes at the new price); production refusing
 * to start on built-in prices.
 */
describe('bridge: rate bound and reference price feed', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let feed: PriceFeed
    let env: Record<string, string>
    let dir: string

    const ethToUsdt = { source_chain: 'ETHEREUM', source_token: 'ETH', target_chain: 'BSC', target_token: 'USDT' }
    const nativeToUsdt = { source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'USDT' }
    const ethPrice = async () => (await api(bridge, 'GET', '/api/swap/config')).body.price_source.prices.ETH

    before(async function () {
        feed = new PriceFeed({ ethereum: '3000', bitcoin: '90000' })
        await feed.start()
        const databaseUrl = await createTestDatabase('bridge_prices')
        w = await startBridgeChains()
        dir = tempDir()
        env = { ...bridgeEnv(w, databaseUrl, dir), BRIDGE_PRICE_FEED_URL: feed.url, BRIDGE_PRICE_FEED_POLL_SECONDS: '1', BRIDGE_PRICE_MAX_AGE_SECONDS: '3' }
        bridge = await startBridge(env)
        await fundVaults(w, bridge)
        await waitFor('the first feed prices', async () => (await ethPrice())?.stale === false, 30_000, 200)
    })

    after(async function () {
        await bridge?.stop()
        await w?.stop()
        await feed?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    it('refuses a min_target_amount that is not an amount of the target token, naming the field', async function () {
        const base = { ...nativeToUsdt, source_token_amount: '0.5', target_wallet: account(30).address }
        for (const [value, message] of [
            ['abc', 'must be a positive decimal number'],
            ['-1', 'must be a positive decimal number'],
            [-1, 'must be a positive number'],
            ['0', 'must be greater than 0'],
            [{ amount: 1 }, 'must be a positive number'],
            ['1.0000000000000000001', "more than the token's 18 decimal places"],
        ] as const) {
            const res = await api(bridge, 'POST', '/api/swap', { ...base, min_target_amount: value })
            expect(res.status, JSON.stringify(value)).to.equal(400)
            expect(res.body.error.field).to.equal('min_target_amount')
            expect(res.body.error.message).to.match(/^min_target_amount: /).and.include(message)
        }
        // ETHEREUM USDT has 6 decimals: the check is the target token's.
        const usdt = await api(bridge, 'POST', '/api/swap', { ...base, target_chain: 'ETHEREUM', min_target_amount: '1.0000001' })
        expect(usdt.status).to.equal(400)
        expect(usdt.body.error.message).to.equal("min_target_amount: has more than the token's 6 decimal places")
        const usage = (await api(bridge, 'GET', '/api/swap')).body
        expect(usage.body.min_target_amount).to.include({ required: false })
        expect(usage.body.min_target_amount.description).to.include('3.00%')
    })

    it('stores the bound: the one given, or the quote less BRIDGE_MAX_SLIPPAGE_PERCENT', async function () {
        const given = await createSwap(bridge, { ...nativeToUsdt, source_token_amount: 0.5, target_wallet: account(30).address, min_target_amount: '123.45' })
        expect(given.min_target_amount).to.equal('123.45')
        const fallback = await createSwap(bridge, { ...nativeToUsdt, source_token_amount: 0.5, target_wallet: account(30).address })
        const quote = parseUnits(fallback.estimated_target_amount, 18)
        expect(quote > 0n).to.equal(true)
        expect(parseUnits(fallback.min_target_amount, 18)).to.equal((quote * 9_700n) / 10_000n)
        expect((await api(bridge, 'GET', `/api/swap/${fallback.id}`)).body.min_target_amount).to.equal(fallback.min_target_amount)
    })

    it('refuses a min_target_amount more than BRIDGE_MIN_TARGET_ABOVE_QUOTE_PERCENT above the quote, naming the field and the quote', async function () {
        const base = { ...nativeToUsdt, source_token_amount: '0.5', target_wallet: account(30).address }
        const quote = parseUnits((await createSwap(bridge, base)).estimated_target_amount, 18)
        const refused = await api(bridge, 'POST', '/api/swap', { ...base, min_target_amount: '1000000' })
        expect(refused.status).to.equal(400)
        expect(refused.body.error).to.include({ code: 'invalid_request', field: 'min_target_amount' })
        expect(refused.body.error.message).to.match(/^min_target_amount: 1000000 USDT is more than 3\.00% above the current quote of [\d.]+ USDT; the swap could only fail at the rate lock/)
        // Within the margin (the pool's price does not move between the two requests): accepted as given.
        const within = formatUnits((quote * 10_250n) / 10_000n, 18)
        expect((await createSwap(bridge, { ...base, min_target_amount: within })).min_target_amount).to.equal(within)
    })

    it('fails a swap whose locked rate pays less than its bound, and refunds the deposit', async function () {
        const eth = w.chains.ETHEREUM
        const refundTo = account(31).address
        // The bound is the quote at 3000 USD; the price then falls before the deposit.
        const swap = await createSwap(bridge, { ...ethToUsdt, source_token_amount: '0.05', target_wallet: account(32).address, refund_address: refundTo })
        const bounded = await createSwap(bridge, {
            ...ethToUsdt, source_token_amount: '0.05', target_wallet: account(32).address, refund_address: refundTo, min_target_amount: swap.estimated_target_amount,
        })
        feed.prices.ethereum = '2000'
        try {
            await waitFor('the ETH price to fall', async () => (await ethPrice())?.usd === '2000', 30_000, 200)
            const before = await balanceOf(eth, refundTo)
            await send(eth, 5, bounded.deposit_address, parseUnits('0.05', 18))
            const failed = await waitForStatus(bridge, bounded.id, ['failed'])
            expect(failed.error_message).to.match(/^rate moved beyond the allowed slippage: the rate now pays [\d.]+ USDT, below the swap's minimum of 146\.25 USDT$/)
            expect(failed.target_token_amount).to.equal(null)
            expect(failed.payout_tx_hash).to.equal(null)
            const refunded = await waitFor(`refund of ${bounded.id}`, async () => {
                const { body } = await api(bridge, 'GET', `/api/swap/${bounded.id}`)
                return body.refund_status === 'sent' || body.refund_status === 'failed' ? body : undefined
            }, 120_000, 250)
            expect(refunded.refund_status).to.equal('sent')
            // What came back on chain is the refund the swap states (the deposit less the refund's network fee).
            expect(await balanceOf(eth, refundTo) - before).to.equal(parseUnits(refunded.refund_amount, 18))
            expect(parseUnits(refunded.refund_amount, 18) > parseUnits('0.04', 18)).to.equal(true)
            const events = (await eventsOf(bridge, bounded.id)).map((e) => e.event)
            expect(events).to.include('swap_failed').and.include('refund_sent').and.not.include('rate_locked')
        } finally {
            feed.prices.ethereum = '3000'
            await waitFor('the ETH price back at 3000', async () => (await ethPrice())?.usd === '3000', 30_000, 200)
        }
    })

    it('holds a deposit of another size to the bound pro rata: half the amount at the same rate completes', async function () {
        const receiver = account(34).address
        const swap = await createSwap(bridge, { ...nativeToUsdt, source_token_amount: '1', target_wallet: receiver })
        await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('0.5', 18))
        const done = await waitForStatus(bridge, swap.id, ['completed'])
        // Below the bound as stated for 1 NATIVE, above it for the 0.5 that arrived.
        const paid = parseUnits(done.target_token_amount, 18)
        expect(paid < parseUnits(swap.min_target_amount, 18)).to.equal(true)
        expect(paid >= parseUnits(swap.min_target_amount, 18) / 2n).to.equal(true)
    })

    it('answers 503 price_unavailable while the feed is stale, locks no rate on a stale price, and completes at the fresh price', async function () {
        const receiver = account(33).address
        const swap = await createSwap(bridge, { ...ethToUsdt, source_token_amount: '0.05', target_wallet: receiver, refund_address: account(5).address })
        // 0.05 ETH less the 2.5% fee at 3000 USD.
        expect(swap.estimated_target_amount).to.equal('146.25')

        feed.mode = 'garbage'
        await waitFor('the ETH price to go stale', async () => (await ethPrice()).stale === true, 30_000, 200)
        const refused = await api(bridge, 'POST', '/api/swap', { ...ethToUsdt, source_token_amount: '0.05', target_wallet: receiver })
        expect(refused.status).to.equal(503)
        expect(refused.body.error.code).to.equal('price_unavailable')
        expect(refused.body.error.message).to.include('ETH')
        expect((await api(bridge, 'GET', '/api/swap/config')).body.reference_prices_usd).to.not.have.property('ETH')
        // A route priced by our pools alone does not need the feed.
        expect((await api(bridge, 'POST', '/api/swap', { ...nativeToUsdt, source_token_amount: '0.5', target_wallet: receiver })).status).to.equal(201)

        feed.mode = 'error'
        await send(w.chains.ETHEREUM, 5, swap.deposit_address, parseUnits('0.05', 18))
        await waitForStatus(bridge, swap.id, ['deposit_confirmed'])
        // Many engine passes (every 300 ms) and feed polls (every second) later, nothing was locked.
        const eth = w.chains.ETHEREUM
        const from = await eth.client.getBlockNumber()
        await waitFor('three more ETHEREUM blocks', async () => (await eth.client.getBlockNumber()) >= from + 3n, 30_000, 200)
        const waiting = (await api(bridge, 'GET', `/api/swap/${swap.id}`)).body
        expect(waiting.status).to.equal('deposit_confirmed')
        expect(waiting.rate).to.equal(null)
        expect(waiting.target_token_amount).to.equal(null)
        expect((await eventsOf(bridge, swap.id)).map((e) => e.event)).to.deep.equal(['deposit_wallet_created', 'source_token_deposited', 'deposit_confirmed'])

        feed.prices.ethereum = '3100'
        feed.mode = 'ok'
        const done = await waitForStatus(bridge, swap.id, ['completed'])
        // Locked at the fresh price: 0.04875 ETH at 3100 USD.
        expect(done.target_token_amount).to.equal('151.125')
        expect(await balanceOf(w.chains.BSC, receiver, w.chains.BSC.tokens.USDT)).to.equal(parseUnits('151.125', 18))
    })

    it('refuses to start in production on built-in prices, naming the variables to set', async function () {
        const output: string[] = []
        const proc = spawnManaged(process.execPath, [path.resolve(__dirname, '../../bridge/main.js')], {
            name: 'bridge-production',
            env: { ...process.env, ...env, NODE_ENV: 'production', BRIDGE_PRICE_FEED_URL: '', BRIDGE_REFERENCE_PRICES: '', BRIDGE_PORT: String(await freePort()) },
        })
        proc.child.stdout?.on('data', (d: Buffer) => output.push(d.toString()))
        proc.child.stderr?.on('data', (d: Buffer) => output.push(d.toString()))
        const code = await proc.exited
        expect(code).to.not.equal(0)
        expect(output.join('')).to.match(/no price source: in production set BRIDGE_PRICE_FEED_URL .* or BRIDGE_REFERENCE_PRICES/)
    })
})
