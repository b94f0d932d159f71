import { expect } from 'chai'
import * as http from 'http'
import { AddressInfo } from 'net'
import { inspect } from 'util'
import { formatUnits, parseRational } from '../../bridge/amounts'
import {
    ProviderAmountOutOfRangeError, ProviderAuthError, ProviderError, ProviderNotFoundError, ProviderUnavailableError, ProviderUncertainError,
} from '../../bridge/providers/errors'
import { ProviderAsset, ProviderPair } from '../../bridge/providers/provider'
import { SimpleSwapProvider } from '../../bridge/providers/simpleswap/client'
import { simpleSwapFromEnv } from '../../bridge/providers/simpleswap/factory'
import { STATUS_TABLE, ProviderStatus } from '../../bridge/providers/status'
import { SimpleSwapServer, STATUS_PATHS, StatusPath } from '../../devnet/provider/server'

const BTC: ProviderAsset = { chain: 'BITCOIN', symbol: 'BTC' }
const TRON_USDT: ProviderAsset = { chain: 'TRON', symbol: 'USDT' }
const SOL: ProviderAsset = { chain: 'SOLANA', symbol: 'SOL' }
const BSC_USDT: ProviderAsset = { chain: 'BSC', symbol: 'USDT' }
const ETH_USDT: ProviderAsset = { chain: 'ETHEREUM', symbol: 'USDT' }
const ETH: ProviderAsset = { chain: 'ETHEREUM', symbol: 'ETH' }

const PAYOUT = '0x8ba1f109551bD432803012645Ac136ddd64DBA72'
const REFUND = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'

/** amountIn × rate in the target's base units, rounded down: computed apart from the code under test. */
function expectedOut(amountIn: bigint, fromDecimals: number, toDecimals: number, rate: string): bigint {
    const r = parseRational(rate)
    return (amountIn * r.num * 10n ** BigInt(toDecimals)) / (10n ** BigInt(fromDecimals) * r.den)
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
    try {
        await promise
    } catch (err) {
        return err
    }
    throw new Error('expected a rejection')
}

describe('provider: SimpleSwap v3 client against the loopback double', function () {
    let double: SimpleSwapServer
    let provider: SimpleSwapProvider

    before(async function () {
        double = await new SimpleSwapServer().start()
        double.setPair(['btc', 'btc'], ['usdt', 'trx'], { rate: '91234.567891', min: '0.000123456789', max: '2.123456789' })
        double.setPair(['sol', 'sol'], ['usdt', 'bsc'], { rate: '187.123456789012345678', min: '0.1', max: null })
        double.setPair(['usdt', 'eth'], ['btc', 'btc'], { rate: '0.0000109612345', min: '10', max: '50000' })
        double.setPair(['usdt', 'bsc'], ['eth', 'eth'], { rate: '0.000333333333333333', min: '1', max: null })
        double.setPair(['btc', 'btc'], ['usdt', 'bsc'], { rate: '95000.5', min: '0.0001', max: '1' })
        provider = simpleSwapFromEnv(
            { SIMPLESWAP_API_KEY: double.apiKey, SIMPLESWAP_API_URL: double.baseUrl },
            { retryDelayMs: 10, readAttempts: 3 },
        )!
    })

    after(async function () {
        await double.stop()
    })

    it('reads min and max exactly, rounding the minimum up and the maximum down', async function () {
        // 0.000123456789 BTC: sending 12345 sat would be below it.
        expect(await provider.range({ from: BTC, to: TRON_USDT })).to.deep.equal({ min: 12_346n, max: 212_345_678n })
        expect(await provider.range({ from: SOL, to: BSC_USDT })).to.deep.equal({ min: 100_000_000n, max: undefined })
        expect(await provider.range({ from: ETH_USDT, to: BTC })).to.deep.equal({ min: 10_000_000n, max: 50_000_000_000n })
        expect(await provider.range({ from: BSC_USDT, to: ETH })).to.deep.equal({ min: 10n ** 18n, max: undefined })
    })

    it('estimates exactly at 8→6, 9→18, 6→8 and 18→18 decimals, the provider fee inside the rate', async function () {
        const cases: [ProviderPair, bigint, number, number, string][] = [
            [{ from: BTC, to: TRON_USDT }, 12_345_678n, 8, 6, '91234.567891'],
            [{ from: SOL, to: BSC_USDT }, 1_234_567_891n, 9, 18, '187.123456789012345678'],
            [{ from: ETH_USDT, to: BTC }, 12_345_678_901n, 6, 8, '0.0000109612345'],
            // 12345.678901234567890123 USDT: far beyond 2^53 base units.
            [{ from: BSC_USDT, to: ETH }, 12_345_678_901_234_567_890_123n, 18, 18, '0.000333333333333333'],
        ]
        for (const [pair, amountIn, fromDec, toDec, rate] of cases) {
            const estimate = await provider.estimate(pair, amountIn)
            expect(estimate.amountIn).to.equal(amountIn)
            expect(estimate.amountOut, `${pair.from.symbol}→${pair.to.symbol}`).to.equal(expectedOut(amountIn, fromDec, toDec, rate))
        }
        expect(2n ** 53n < 12_345_678_901_234_567_890_123n).to.equal(true)
        const fixed = await provider.estimate({ from: BTC, to: TRON_USDT, fixed: true }, 50_000n)
        expect(fixed.rateId).to.be.a('string')
        expect(fixed.validUntil).to.be.instanceOf(Date)
    })

    it('turns an amount outside the range into a 400-class error that names the bounds', async function () {
        const low = await rejection(provider.estimate({ from: BTC, to: TRON_USDT }, 12_345n))
        expect(low).to.be.instanceOf(ProviderAmountOutOfRangeError)
        expect(low).to.include({ kind: 'out_of_range', httpStatus: 400, min: 12_346n, max: 212_345_678n })
        expect((low as Error).message).to.contain('0.00012346').and.contain('2.12345678')
        const high = await rejection(provider.createExchange({
            from: BTC, to: BSC_USDT, amountIn: 100_000_001n, payoutAddress: PAYOUT, refundAddress: REFUND,
        }))
        expect(high).to.be.instanceOf(ProviderAmountOutOfRangeError)
        expect(high).to.include({ min: 10_000n, max: 100_000_000n })
    })

    it('creates an exchange paying our address, with our refund address, and reads it back', async function () {
        const before = double.created
        const amountIn = 2_500_001n
        const ex = await provider.createExchange({
            from: BTC, to: BSC_USDT, amountIn, payoutAddress: PAYOUT, refundAddress: REFUND, payoutExtraId: 'memo-1',
        })
        expect(double.created).to.equal(before + 1)
        const stored = double.exchanges.get(ex.id)!
        expect(stored).to.include({
            tickerFrom: 'btc', networkFrom: 'btc', tickerTo: 'usdt', networkTo: 'bsc',
            amountFrom: '0.02500001', addressTo: PAYOUT, extraIdTo: 'memo-1', userRefundAddress: REFUND,
        })
        expect(ex).to.include({ payoutAddress: PAYOUT, refundAddress: REFUND, depositAddress: stored.addressFrom, amountIn, fixed: false })
        expect(ex.from).to.deep.equal(BTC)
        expect(ex.to).to.deep.equal(BSC_USDT)
        expect(ex.amountOut).to.equal(expectedOut(amountIn, 8, 18, '95000.5'))
        expect(ex.status).to.include({ known: true, ours: 'simpleswap_waiting', action: 'wait' })
        const again = await provider.getExchange(ex.id)
        expect(again.id).to.equal(ex.id)
        expect(again.amountOut).to.equal(ex.amountOut)
    })

    for (const path of Object.keys(STATUS_PATHS) as StatusPath[]) {
        it(`maps each status of the ${path} path to its simpleswap_* status`, async function () {
            const amountIn = 30_000n
            const ex = await provider.createExchange({ from: BTC, to: TRON_USDT, amountIn, payoutAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', refundAddress: REFUND })
            double.script(ex.id, path)
            const seen: string[] = [ex.status.known ? ex.status.ours : '?']
            for (let i = 1; i < STATUS_PATHS[path].length; i++) {
                double.advance(ex.id)
                const now = await provider.getExchange(ex.id)
                expect(now.status.known).to.equal(true)
                if (now.status.known) seen.push(now.status.ours)
                if (now.status.raw === 'confirming') expect(now.txIn).to.be.a('string')
                if (now.status.raw === 'finished') {
                    expect(now.txOut).to.be.a('string')
                    expect(now.amountOut).to.equal(expectedOut(amountIn, 8, 6, '91234.567891'))
                }
            }
            expect(seen).to.deep.equal(STATUS_PATHS[path].map((s) => `simpleswap_${s}`))
            const last = await provider.getExchange(ex.id)
            const row = STATUS_TABLE[STATUS_PATHS[path].at(-1) as ProviderStatus]
            expect(last.status).to.include({ final: row.final, action: row.action })
        })
    }

    it('reports a status it does not know as in progress, to be alerted on', async function () {
        const ex = await provider.createExchange({ from: BTC, to: TRON_USDT, amountIn: 30_000n, payoutAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', refundAddress: REFUND })
        double.setStatus(ex.id, 'overdue')
        expect((await provider.getExchange(ex.id)).status).to.deep.equal({ known: false, raw: 'overdue', action: 'wait_and_alert', final: false, fundsMayMove: true })
        expect(await rejection(provider.getExchange('nosuchexchange'))).to.be.instanceOf(ProviderNotFoundError)
    })

    it('refuses requests without a key (401) and a wrong key (403) with an error that never shows the key', async function () {
        const bare = await fetch(`${double.baseUrl}/ranges?tickerFrom=btc&networkFrom=btc&tickerTo=usdt&networkTo=trx&fixed=false`)
        expect(bare.status).to.equal(401)
        const wrongKey = 'wrong-key-that-must-not-leak'
        const wrong = new SimpleSwapProvider({ apiKey: wrongKey, baseUrl: double.baseUrl, retryDelayMs: 10 })
        const err = await rejection(wrong.range({ from: BTC, to: TRON_USDT }))
        expect(err).to.be.instanceOf(ProviderAuthError)
        expect(err).to.include({ kind: 'unauthorized', httpStatus: 503, providerStatus: 403 })
        for (const text of [(err as Error).message, (err as Error).stack ?? '', inspect(err), inspect(wrong, { depth: 5 }), inspect(provider, { depth: 5 })]) {
            expect(text).to.not.contain(wrongKey)
            expect(text).to.not.contain(double.apiKey)
        }
        expect(() => new SimpleSwapProvider({ apiKey: ' ', baseUrl: double.baseUrl })).to.throw('API key')
    })

    it('retries reads through a passing 5xx and reports a lasting one as unavailable', async function () {
        const route = 'GET /v3/ranges'
        const start = double.requestCount(route)
        double.failNext(route, 502, 1)
        expect((await provider.range({ from: BTC, to: TRON_USDT })).min).to.equal(12_346n)
        expect(double.requestCount(route) - start).to.equal(2)

        double.failNext(route, 500, 10)
        const err = await rejection(provider.range({ from: BTC, to: TRON_USDT }))
        expect(err).to.be.instanceOf(ProviderUnavailableError)
        expect(err).to.include({ kind: 'unavailable', httpStatus: 503, providerStatus: 500 })
        expect(double.requestCount(route) - start).to.equal(2 + 3)
        double.failNext(route, 500, 0)
    })

    it('never repeats a create: 503 is unavailable with nothing created, other 5xx are uncertain', async function () {
        const route = 'POST /v3/exchanges'
        const request = { from: BTC, to: TRON_USDT, amountIn: 30_000n, payoutAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', refundAddress: REFUND }
        const [requests, created, posts] = [double.createRequests, double.created, double.requestCount(route)]
        double.failNext(route, 503, 5)
        expect(await rejection(provider.createExchange(request))).to.be.instanceOf(ProviderUnavailableError)
        double.failNext(route, 500, 5)
        const uncertain = await rejection(provider.createExchange(request))
        expect(uncertain).to.be.instanceOf(ProviderUncertainError)
        expect(uncertain).to.include({ kind: 'uncertain', mayHaveCreated: true })
        double.failNext(route, 500, 0)
        // One request per call, though failures were queued for five; injected failures answer before anything is stored.
        expect(double.requestCount(route) - posts).to.equal(2)
        expect(double.created - created).to.equal(0)
        expect(double.createRequests - requests).to.equal(0)
    })

    it('does not repeat a create that timed out: the provider holds exactly one exchange', async function () {
        const impatient = new SimpleSwapProvider({ apiKey: double.apiKey, baseUrl: double.baseUrl, createTimeoutMs: 300, retryDelayMs: 10 })
        const [requests, created] = [double.createRequests, double.created]
        double.holdCreates()
        try {
            const err = await rejection(impatient.createExchange({
                from: SOL, to: BSC_USDT, amountIn: 5_000_000_000n, payoutAddress: PAYOUT, refundAddress: 'So11111111111111111111111111111111111111112',
            }))
            expect(err).to.be.instanceOf(ProviderUncertainError)
            expect(err).to.include({ mayHaveCreated: true })
        } finally {
            double.releaseCreates()
        }
        await double.heldAnswered()
        expect(double.createRequests - requests).to.equal(1)
        expect(double.created - created).to.equal(1)
    })

    it('reports an unreachable provider as unavailable, for reads and for a create that was never sent', async function () {
        const probe = http.createServer()
        await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
        const port = (probe.address() as AddressInfo).port
        await new Promise<void>((resolve) => probe.close(() => resolve()))
        const gone = new SimpleSwapProvider({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}/v3`, retryDelayMs: 10, readAttempts: 2 })
        const read = await rejection(gone.estimate({ from: BTC, to: TRON_USDT }, 50_000n))
        expect(read).to.be.instanceOf(ProviderUnavailableError)
        const create = await rejection(gone.createExchange({ from: BTC, to: TRON_USDT, amountIn: 50_000n, payoutAddress: PAYOUT, refundAddress: REFUND }))
        expect(create).to.be.instanceOf(ProviderUnavailableError)
        expect(create).to.be.instanceOf(ProviderError)
    })

    it('sends amounts as exact decimal strings, beyond 2^53 base units', async function () {
        const amountIn = 98_765_432_109_876_543_210_987n // 98765.432109876543210987 USDT (18 decimals)
        const ex = await provider.createExchange({ from: BSC_USDT, to: ETH, amountIn, payoutAddress: PAYOUT, refundAddress: PAYOUT })
        expect(double.exchanges.get(ex.id)!.amountFrom).to.equal(formatUnits(amountIn, 18)).and.equal('98765.432109876543210987')
        expect(ex.amountIn).to.equal(amountIn)
        expect((await provider.getExchange(ex.id)).amountIn).to.equal(amountIn)
        expect(ex.amountOut).to.equal(expectedOut(amountIn, 18, 18, '0.000333333333333333'))
    })
})
