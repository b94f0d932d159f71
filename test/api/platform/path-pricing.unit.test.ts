import { expect } from 'chai'
import { getAmountIn, getAmountOut } from '../../../common/amm-math'
import { grossForNet, netOfTransfer, NO_FEES, PricedPath, quoteExactIn, quoteExactOut } from '../../../api/platform/path-pricing'
import { parseAmount } from '../../../api/platform/amounts'

describe('wallet platform: AMM and fee maths (pure)', function () {
    it('charges buying fees out of pairs and selling fees into them, each rounded down', function () {
        const fees = { buying: 200, selling: 300 }
        expect(netOfTransfer(10_000n, fees, false, false)).to.equal(10_000n)
        expect(netOfTransfer(10_000n, fees, true, false)).to.equal(9_800n)
        expect(netOfTransfer(10_000n, fees, false, true)).to.equal(9_700n)
        expect(netOfTransfer(10_000n, fees, true, true)).to.equal(9_500n)
        expect(netOfTransfer(99n, fees, true, true)).to.equal(99n - 1n - 2n)
    })

    it('grossForNet finds the least transfer that delivers a net amount', function () {
        const fees = { buying: 200, selling: 300 }
        for (const net of [1n, 2n, 97n, 98n, 12_345n, 10n ** 24n + 7n]) {
            for (const [fromPair, toPair] of [[true, false], [false, true], [true, true]] as const) {
                const gross = grossForNet(net, fees, fromPair, toPair)
                expect(netOfTransfer(gross, fees, fromPair, toPair) >= net, `${net} ${fromPair} ${toPair}`).to.equal(true)
                expect(netOfTransfer(gross - 1n, fees, fromPair, toPair) < net, `${net} ${fromPair} ${toPair}`).to.equal(true)
            }
        }
        expect(grossForNet(500n, NO_FEES, true, true)).to.equal(500n)
    })

    it('quoteExactOut is (within a unit) the least input for which quoteExactIn reaches the output, with fees on any hop', function () {
        const path: PricedPath = {
            reserves: [[10n ** 23n, 10n ** 20n], [10n ** 20n, 2n * 10n ** 11n]],
            fees: [{ buying: 200, selling: 300 }, NO_FEES, { buying: 100, selling: 0 }],
        }
        for (const out of [1n, 1_000_000n, 123_456_789n, 10n ** 10n]) {
            const input = quoteExactOut(out, path)
            expect(quoteExactIn(input, path) >= out).to.equal(true)
            expect(quoteExactIn(input - 2n, path) < out).to.equal(true)
        }
        const plain: PricedPath = { reserves: [[5000n, 7000n]], fees: [NO_FEES, NO_FEES] }
        expect(quoteExactOut(100n, plain)).to.equal(getAmountIn(100n, 5000n, 7000n))
        expect(quoteExactIn(100n, plain)).to.equal(getAmountOut(100n, 5000n, 7000n))
    })

    it('parses whole-token decimal amounts exactly and refuses what it would have to round', function () {
        expect(parseAmount('1.5', 18, 'amount')).to.equal(1_500_000_000_000_000_000n)
        expect(parseAmount('0.000001', 6, 'amount')).to.equal(1n)
        expect(parseAmount(250, 0, 'amount')).to.equal(250n)
        expect(parseAmount(' 7 ', 2, 'amount')).to.equal(700n)
        for (const bad of ['1.0000001', '', '.5', '1.', '1e5', '-1', '0x10', '1,5']) {
            expect(() => parseAmount(bad, 6, 'amount'), bad).to.throw()
        }
        expect(() => parseAmount(1e21, 18, 'amount')).to.throw(/decimal string/)
        expect(() => parseAmount('9'.repeat(80), 0, 'amount')).to.throw(/too large/)
    })
})
