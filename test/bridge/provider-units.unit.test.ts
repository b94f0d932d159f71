import { expect } from 'chai'
import { formatUnits } from '../../bridge/amounts'
import { decimalToUnits, providerDecimal } from '../../bridge/providers/decimal'
import { simpleSwapFromEnv } from '../../bridge/providers/simpleswap/factory'
import { SIMPLESWAP_DEFAULT_URL } from '../../bridge/providers/simpleswap/client'
import { mapProviderStatus, OUR_PROVIDER_STATUSES, PROVIDER_STATUSES, STATUS_TABLE } from '../../bridge/providers/status'
import { isKnownEvent } from '../../bridge/webhooks/catalogue'

describe('provider: exact amounts, status table, configuration', function () {
    it('converts provider decimals to base units exactly at 6, 8, 9 and 18 decimals, rounding only where told', function () {
        const cases: [string, number, bigint, bigint][] = [
            // value, decimals, down, up
            ['1.234567', 6, 1_234_567n, 1_234_567n],
            ['1.2345678', 6, 1_234_567n, 1_234_568n],
            ['0.000123456789', 8, 12_345n, 12_346n],
            ['21000000', 8, 2_100_000_000_000_000n, 2_100_000_000_000_000n],
            ['0.0000000001', 9, 0n, 1n],
            ['187.123456789', 9, 187_123_456_789n, 187_123_456_789n],
            ['12345.678901234567890123', 18, 12_345_678_901_234_567_890_123n, 12_345_678_901_234_567_890_123n],
            ['0.0000000000000000011', 18, 1n, 2n],
        ]
        for (const [value, decimals, down, up] of cases) {
            expect(decimalToUnits(value, decimals, 'down'), `${value} down`).to.equal(down)
            expect(decimalToUnits(value, decimals, 'up'), `${value} up`).to.equal(up)
            if (down === up) expect(decimalToUnits(value, decimals, 'exact')).to.equal(down)
            else expect(() => decimalToUnits(value, decimals, 'exact')).to.throw('decimal places')
        }
    })

    it('round-trips base units beyond 2^53 without loss', function () {
        const big = 2n ** 53n + 1n
        for (const decimals of [6, 8, 9, 18]) {
            const amount = big * 1000n + 7n
            expect(decimalToUnits(formatUnits(amount, decimals), decimals, 'exact')).to.equal(amount)
        }
        // What a float would have done to it: the reason nothing here goes through Number.
        expect(BigInt(Number(big))).to.not.equal(big)
    })

    it('accepts a JSON number only when it cannot have been rounded', function () {
        expect(providerDecimal('0.00012345')).to.equal('0.00012345')
        expect(providerDecimal(0.1)).to.equal('0.1')
        expect(providerDecimal(1e-7)).to.equal('0.0000001')
        expect(providerDecimal(123456.789012345)).to.equal('123456.789012345')
        expect(() => providerDecimal(2 ** 53 + 2)).to.throw('significant digits')
        expect(() => providerDecimal(0.12345678901234568)).to.throw('significant digits')
        expect(() => providerDecimal('1e-7')).to.throw('plain')
        expect(() => providerDecimal('-1')).to.throw('plain')
    })

    it('maps every provider status one to one onto simpleswap_<status>, which the webhook catalogue accepts', function () {
        expect(PROVIDER_STATUSES).to.have.members(['waiting', 'confirming', 'exchanging', 'sending', 'finished', 'failed', 'refunded', 'verifying', 'expired'])
        expect(new Set(OUR_PROVIDER_STATUSES).size).to.equal(PROVIDER_STATUSES.length)
        for (const s of PROVIDER_STATUSES) {
            const row = STATUS_TABLE[s]
            expect(row.ours).to.equal(`simpleswap_${s}`)
            expect(isKnownEvent(row.ours), row.ours).to.equal(true)
            expect(row.meaning).to.be.a('string').and.not.empty
            if (row.action === 'fail' || row.action === 'fail_and_refund') expect(row.failReason, s).to.be.a('string')
            expect(mapProviderStatus(` ${s.toUpperCase()} `)).to.include({ known: true, ours: row.ours })
        }
        const finals = PROVIDER_STATUSES.filter((s) => STATUS_TABLE[s].final)
        expect(finals).to.have.members(['finished', 'failed', 'refunded', 'expired'])
        expect(STATUS_TABLE.finished.action).to.equal('continue')
        expect(STATUS_TABLE.refunded.action).to.equal('fail_and_refund')
        expect(STATUS_TABLE.verifying.action).to.equal('wait_and_alert')
        // A status the provider adds later is waited on and alerted, never read as a failure.
        expect(mapProviderStatus('on_hold')).to.deep.equal({ known: false, raw: 'on_hold', action: 'wait_and_alert', final: false, fundsMayMove: true })
    })

    it('is not configured without SIMPLESWAP_API_KEY, and defaults to the public v3 URL', function () {
        expect(simpleSwapFromEnv({})).to.equal(undefined)
        expect(simpleSwapFromEnv({ SIMPLESWAP_API_KEY: '   ' })).to.equal(undefined)
        expect(SIMPLESWAP_DEFAULT_URL).to.equal('https://api.simpleswap.io/v3')
        expect(simpleSwapFromEnv({ SIMPLESWAP_API_KEY: 'k' })).to.not.equal(undefined)
        expect(() => simpleSwapFromEnv({ SIMPLESWAP_API_KEY: 'k', SIMPLESWAP_API_URL: 'not a url' })).to.throw('not a URL')
        expect(() => simpleSwapFromEnv({ SIMPLESWAP_API_KEY: 'k', SIMPLESWAP_API_URL: 'ftp://x/v3' })).to.throw('http')
    })
})
