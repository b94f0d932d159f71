import { expect } from 'chai'
import * as fs from 'fs'
import { AmmMathError, getAmountIn, getAmountOut, quote } from '../../common/amm-math'
import { repoPath } from '../support/paths'

/** The shared pair formulas; test/contracts/amm-pricing holds them to the deployed router. */
describe('AMM pair maths (pure)', function () {
    it('getAmountOut and getAmountIn are the 0.2% Uniswap V2 formulas and invert each other', function () {
        expect(getAmountOut(1000n, 100_000n, 200_000n)).to.equal((1000n * 998n * 200_000n) / (100_000n * 1000n + 1000n * 998n))
        for (const out of [1n, 7n, 1999n, 150_000n]) {
            const input = getAmountIn(out, 100_000n, 200_000n)
            expect(getAmountOut(input, 100_000n, 200_000n) >= out).to.equal(true)
            // floor + 1, as in Uniswap: at most one unit above the least sufficient input
            if (input > 2n) expect(getAmountOut(input - 2n, 100_000n, 200_000n) < out).to.equal(true)
        }
        expect(() => getAmountOut(0n, 1n, 1n)).to.throw(AmmMathError, 'INSUFFICIENT_INPUT_AMOUNT')
        expect(() => getAmountIn(200_000n, 100_000n, 200_000n)).to.throw(AmmMathError, 'INSUFFICIENT_LIQUIDITY')
    })

    it('rounds down as the contract does: values worked out by hand from AmmRouter\'s formula', function () {
        // 1000·998·200000 / (100000·1000 + 1000·998) = 199600000000 / 100998000 = 1976.27…; a 0.3% fee would give 1974.
        expect(getAmountOut(1000n, 100_000n, 200_000n)).to.equal(1976n)
        // 100000·1976·1000 / (198024·998) = 999.86… → 999, plus one.
        expect(getAmountIn(1976n, 100_000n, 200_000n)).to.equal(1000n)
        expect(getAmountIn(1977n, 100_000n, 200_000n)).to.equal(1001n)
        // One unit in against one-unit reserves: 998 / 1998 rounds to nothing.
        expect(getAmountOut(1n, 1n, 1n)).to.equal(0n)
        expect(quote(12_345n, 3n, 7n)).to.equal(28_805n)
    })

    it('the fee is the one AmmRouter and AmmPair charge (998/1000)', function () {
        const source = (name: string) => fs.readFileSync(repoPath('contracts', 'amm', name), 'utf8')
        expect(source('AmmRouter.sol')).to.include('uint256 amountInWithFee = amountIn * 998;')
        expect(source('AmmRouter.sol')).to.include('(reserveIn * amountOut * 1000) / ((reserveOut - amountOut) * 998) + 1')
        expect(source('AmmPair.sol')).to.include('balance0 * 1000 - amount0In * 2')
    })

    it('throws where the router reverts: zero amounts and empty or too small reserves', function () {
        const reason = (f: () => bigint) => {
            try {
                f()
            } catch (err) {
                expect(err).to.be.instanceOf(AmmMathError)
                return (err as AmmMathError).reason
            }
            expect.fail('did not throw')
        }
        expect(reason(() => getAmountOut(0n, 10n, 10n))).to.equal('INSUFFICIENT_INPUT_AMOUNT')
        expect(reason(() => getAmountOut(-1n, 10n, 10n))).to.equal('INSUFFICIENT_INPUT_AMOUNT')
        expect(reason(() => getAmountOut(5n, 0n, 10n))).to.equal('INSUFFICIENT_LIQUIDITY')
        expect(reason(() => getAmountOut(5n, 10n, 0n))).to.equal('INSUFFICIENT_LIQUIDITY')
        expect(reason(() => getAmountIn(0n, 10n, 10n))).to.equal('INSUFFICIENT_OUTPUT_AMOUNT')
        expect(reason(() => getAmountIn(5n, 0n, 10n))).to.equal('INSUFFICIENT_LIQUIDITY')
        expect(reason(() => getAmountIn(10n, 10n, 10n))).to.equal('INSUFFICIENT_LIQUIDITY')
        expect(getAmountIn(9n, 10n, 10n)).to.equal(91n)
        expect(reason(() => quote(0n, 10n, 10n))).to.equal('INSUFFICIENT_AMOUNT')
        expect(reason(() => quote(5n, 0n, 10n))).to.equal('INSUFFICIENT_LIQUIDITY')
        expect(reason(() => quote(5n, 10n, 0n))).to.equal('INSUFFICIENT_LIQUIDITY')
    })
})
