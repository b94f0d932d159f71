import { expect } from 'chai'
import { Address, parseEther, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { ammFactoryAbi, ammPairAbi } from '../../../abi'
import { deployToken, giveStable, nativeBalance, newWallet, PlatformFixture, setNativeBalance, startPlatform, tokenBalance } from './support'

const PWD = 'swap-trader-password'

/** The contracts' pricing, written out independently of the platform's code (docs/contracts.md: 0.2% fee). */
const amountOut = (amountIn: bigint, rIn: bigint, rOut: bigint) => (amountIn * 998n * rOut) / (rIn * 1000n + amountIn * 998n)
const amountIn = (out: bigint, rIn: bigint, rOut: bigint) => (rIn * out * 1000n) / ((rOut - out) * 998n) + 1n

describe('wallet platform: swaps', function () {
    let f: PlatformFixture
    let trader: Address
    let gold: Address
    let taxi: Address
    let stable: Address
    let wnative: Address
    const feeSink = privateKeyToAccount(generatePrivateKey()).address
    const receiver = () => privateKeyToAccount(generatePrivateKey()).address

    const post = (route: string, body: Record<string, unknown>) => f.http.post(`/api/swap/${route}`, body, PWD)

    /** Reserves of the pair of (a, b), in that order. */
    const reserves = async (a: Address, b: Address): Promise<[bigint, bigint]> => {
        const pair = await f.chain.client.readContract({ address: f.chain.contracts.factory, abi: ammFactoryAbi, functionName: 'getPair', args: [a, b] })
        const [r0, r1] = await f.chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'getReserves' })
        return BigInt(a) < BigInt(b) ? [r0, r1] : [r1, r0]
    }

    before(async function () {
        f = await startPlatform()
        stable = f.chain.contracts.stable
        wnative = f.chain.contracts.wnative
        trader = await newWallet(f.http, 'trader', PWD)
        await setNativeBalance(f.chain, trader, parseEther('10000'))
        await giveStable(f.chain, trader, parseUnits('1000000', 6))
        gold = await deployToken(f.http, 'trader', PWD, { tokenName: 'Gold', tokenSymbol: 'GOLD', totalSupply: '1000000', destinationAddress: trader })
        taxi = await deployToken(f.http, 'trader', PWD, {
            tokenName: 'Taxi', tokenSymbol: 'TAXI', totalSupply: '1000000', buyingFee: 200, sellingFee: 300, feeAddress: feeSink, destinationAddress: trader,
        })
        const pools = [
            ['/api/pools/add_liquidity_native', { token: stable, amount_token_desired: '200000', amount_native_desired: '200', amount_token_min: '0', amount_native_min: '0', address: trader }],
            ['/api/pools/add_liquidity', { token1: gold, token2: stable, amount1_desired: '10000', amount2_desired: '20000', amount1_min: '0', amount2_min: '0', address: trader }],
            ['/api/pools/add_liquidity_native', { token: taxi, amount_token_desired: '100000', amount_native_desired: '100', amount_token_min: '0', amount_native_min: '0', address: trader }],
        ] as const
        for (const [path, body] of pools) {
            const res = await f.http.post(path, body, PWD)
            if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(res.body)}`)
        }
    })

    after(async function () {
        await f?.stop()
    })

    describe('quotes (GET /api/swap/quote)', function () {
        it('quotes exact input along the route the swap takes, with price impact and the bound at a slippage; the swap then pays the quote', async function () {
            const [rGold, rStable] = await reserves(gold, stable)
            const res = await f.http.get('/api/swap/quote', { token_in: gold, token_out: stable, amount_in: '10', slippage_percent: '1' })
            expect(res.status, JSON.stringify(res.body)).to.equal(200)
            const q = res.body.data
            const expected = amountOut(parseEther('10'), rGold, rStable)
            expect(q).to.deep.include({
                token_in: gold, token_out: stable, path: [gold, stable], fee_on_transfer: false, slippage_percent: '1.00',
                amount_in: '10', amount_in_raw: parseEther('10').toString(), amount_out_raw: expected.toString(),
                amount_out_min_raw: ((expected * 9_900n) / 10_000n).toString(),
            })
            // Mid price 2 STABLE per GOLD: 20 STABLE without fees or impact; the quote is below it by the 0.2% fee and the trade's own move.
            const mid = (parseEther('10') * rStable) / rGold
            const impact = Number((mid - expected) * 1_000_000n / mid) / 10_000
            expect(Number(q.price_impact_percent)).to.be.within(impact, impact + 0.01)
            expect(Number(q.price_impact_percent)).to.be.greaterThan(0.2)
            // Nothing was signed: the pool is as it was, and the swap right after pays exactly the quote.
            expect(await reserves(gold, stable)).to.deep.equal([rGold, rStable])
            const swap = await post('execute_exact_tokens_for_tokens', { amount_in: '10', amount_out_min: q.amount_out_min, token1: gold, token2: stable, from: trader, to: receiver() })
            expect(swap.status, JSON.stringify(swap.body)).to.equal(200)
            expect(swap.body.data.amount_out_raw).to.equal(q.amount_out_raw)
        })

        it('quotes exact output (what it costs), routes through a hub, and refuses what the swap routes refuse', async function () {
            const exactOut = await f.http.get('/api/swap/quote', { token_in: 'NATIVE', token_out: gold, amount_out: '5' })
            expect(exactOut.status, JSON.stringify(exactOut.body)).to.equal(200)
            expect(exactOut.body.data).to.deep.include({ token_in: 'NATIVE', token_out: gold, amount_out: '5', slippage_percent: '0.50' })
            // No NATIVE/GOLD pair: through STABLE (WNATIVE → STABLE → GOLD).
            expect(exactOut.body.data.path).to.deep.equal([wnative, stable, gold])
            const cost = BigInt(exactOut.body.data.amount_in_raw)
            expect(BigInt(exactOut.body.data.amount_in_max_raw)).to.equal((cost * 10_050n + 9_999n) / 10_000n)
            for (const [query, pattern] of [
                [{ token_in: gold, token_out: stable }, /exactly one of amount_in/],
                [{ token_in: gold, token_out: stable, amount_in: '1', amount_out: '1' }, /exactly one of amount_in/],
                [{ token_in: gold, token_out: gold, amount_in: '1' }, /same asset/],
                [{ token_in: gold, token_out: stable, amount_in: '0' }, /greater than 0/],
                [{ token_in: gold, token_out: stable, amount_in: '1', slippage_percent: '150' }, /slippage_percent/],
                [{ token_in: 'gold', token_out: stable, amount_in: '1' }, /token_in/],
                [{ token_in: gold, token_out: stable, amount_out: '100000000' }, /INSUFFICIENT_LIQUIDITY/],
            ] as const) {
                const res = await f.http.get('/api/swap/quote', query as Record<string, string>)
                expect(res.status, `${JSON.stringify(query)}: ${JSON.stringify(res.body)}`).to.equal(400)
                expect(res.body.error).to.match(pattern)
            }
        })
    })

    it('execute_exact_tokens_for_tokens spends exactly amount_in and pays the pool price', async function () {
        const [rGold, rStable] = await reserves(gold, stable)
        const to = receiver()
        const spend = parseEther('10')
        const res = await post('execute_exact_tokens_for_tokens', { amount_in: '10', amount_out_min: '19', token1: gold, token2: stable, from: trader, to })
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        const expected = amountOut(spend, rGold, rStable)
        expect(res.body.data).to.deep.include({
            method: 'swapExactTokensForTokens', fee_on_transfer: false, token_in: gold, token_out: stable,
            amount_in: '10', amount_in_raw: spend.toString(), amount_out_raw: expected.toString(), quoted_amount_out_raw: expected.toString(),
        })
        expect(res.body.data.path).to.deep.equal([gold, stable])
        expect(await tokenBalance(f.chain, stable, to)).to.equal(expected)
        const receipt = await f.chain.client.getTransactionReceipt({ hash: res.body.data.hash })
        expect(receipt.status).to.equal('success')
    })

    it('an amount_out_min above the quote reverts with INSUFFICIENT_OUTPUT_AMOUNT and moves nothing', async function () {
        // A fresh wallet that never approved the router: the approval would be part of the plan, and is not sent either.
        const fresh = await newWallet(f.http, 'fresh-trader', PWD)
        await f.http.post('/api/wallet/send', { address_from: trader, token: gold, amount: '100', address_to: fresh }, PWD)
        const [rGold, rStable] = await reserves(gold, stable)
        const quote = amountOut(parseEther('10'), rGold, rStable)
        const before = {
            gold: await tokenBalance(f.chain, gold, fresh),
            stable: await tokenBalance(f.chain, stable, fresh),
            nonce: await f.chain.client.getTransactionCount({ address: fresh }),
            reserves: await reserves(gold, stable),
        }
        const res = await post('execute_exact_tokens_for_tokens', {
            amount_in: '10', amount_out_min: ((quote + 1n) / 10n ** 6n + 1n).toString(), token1: gold, token2: stable, from: fresh, to: fresh,
        })
        expect(res.status).to.equal(400)
        expect(res.body.success).to.equal(false)
        expect(res.body.error).to.match(/^INSUFFICIENT_OUTPUT_AMOUNT/)
        expect(res.body.error).to.match(/amount_out_min/)
        expect(await tokenBalance(f.chain, gold, fresh)).to.equal(before.gold)
        expect(await tokenBalance(f.chain, stable, fresh)).to.equal(before.stable)
        expect(await f.chain.client.getTransactionCount({ address: fresh })).to.equal(before.nonce)
        expect(await reserves(gold, stable)).to.deep.equal(before.reserves)

        // The same wallet at a feasible bound: the approval and the swap go through together.
        const ok = await post('execute_exact_tokens_for_tokens', { amount_in: '10', amount_out_min: '0', token1: gold, token2: stable, from: fresh, to: fresh })
        expect(ok.status, JSON.stringify(ok.body)).to.equal(200)
        expect(ok.body.data.approval_hash).to.match(/^0x/)
        expect(await f.chain.client.getTransactionCount({ address: fresh })).to.equal(before.nonce + 2)
    })

    it('execute_tokens_for_exact_tokens receives exactly amount_out and respects amount_in_max', async function () {
        const [rStable, rGold] = await reserves(stable, gold)
        const to = receiver()
        const want = parseEther('5')
        const res = await post('execute_tokens_for_exact_tokens', { amount_out: '5', amount_in_max: '100', token1: stable, token2: gold, from: trader, to })
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        expect(res.body.data.method).to.equal('swapTokensForExactTokens')
        expect(res.body.data.amount_out_raw).to.equal(want.toString())
        expect(res.body.data.amount_in_raw).to.equal(amountIn(want, rStable, rGold).toString())
        expect(await tokenBalance(f.chain, gold, to)).to.equal(want)

        const tooLittle = await post('execute_tokens_for_exact_tokens', { amount_out: '5', amount_in_max: '1', token1: stable, token2: gold, from: trader, to })
        expect(tooLittle.status).to.equal(400)
        expect(tooLittle.body.error).to.match(/^EXCESSIVE_INPUT_AMOUNT/)
    })

    it('execute_exact_native_for_tokens spends exactly amount_native', async function () {
        const [rW, rS] = await reserves(wnative, stable)
        const to = receiver()
        const before = await nativeBalance(f.chain, trader)
        const res = await post('execute_exact_native_for_tokens', { amount_native: '1', amount_out_min: '0', token: stable, from: trader, to })
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        expect(res.body.data).to.deep.include({ method: 'swapExactETHForTokens', token_in: 'NATIVE', amount_in: '1' })
        expect(res.body.data.amount_out_raw).to.equal(amountOut(parseEther('1'), rW, rS).toString())
        expect(before - (await nativeBalance(f.chain, trader))).to.equal(parseEther('1'))
        // amount_in is accepted for the native spend too; both, if they differ, are refused.
        const alias = await post('execute_exact_native_for_tokens', { amount_in: '0.5', amount_out_min: '0', token: stable, from: trader, to })
        expect(alias.status).to.equal(200)
        expect(alias.body.data.amount_in).to.equal('0.5')
        const both = await post('execute_exact_native_for_tokens', { amount_in: '0.5', amount_native: '1', amount_out_min: '0', token: stable, from: trader, to })
        expect(both.status).to.equal(400)
    })

    it('execute_native_for_exact_tokens pays what the exact output costs and refunds the rest of amount_native', async function () {
        const [rW, rS] = await reserves(wnative, stable)
        const to = receiver()
        const want = parseUnits('100', 6)
        const before = await nativeBalance(f.chain, trader)
        const res = await post('execute_native_for_exact_tokens', { amount_native: '10', amount_out_min: '100', token: stable, from: trader, to })
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        const cost = amountIn(want, rW, rS)
        expect(res.body.data).to.deep.include({ method: 'swapETHForExactTokens', amount_out_raw: want.toString(), amount_in_raw: cost.toString() })
        expect(before - (await nativeBalance(f.chain, trader))).to.equal(cost)
        expect(await tokenBalance(f.chain, stable, to)).to.equal(want)
    })

    it('execute_exact_tokens_for_native spends exactly the spec\'s amount_in_max and floors at amount_out', async function () {
        const [rS, rW] = await reserves(stable, wnative)
        const to = receiver()
        const res = await post('execute_exact_tokens_for_native', { amount_in_max: '100', amount_out: '0.01', token1: stable, token2: 'NATIVE', from: trader, to })
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        const expected = amountOut(parseUnits('100', 6), rS, rW)
        expect(res.body.data).to.deep.include({ method: 'swapExactTokensForETH', token_out: 'NATIVE', amount_in: '100', amount_out_raw: expected.toString() })
        expect(await nativeBalance(f.chain, to)).to.equal(expected)
        const floor = await post('execute_exact_tokens_for_native', { amount_in_max: '100', amount_out: '1', token1: stable, from: trader, to })
        expect(floor.status).to.equal(400)
        expect(floor.body.error).to.match(/^INSUFFICIENT_OUTPUT_AMOUNT/)
    })

    it('execute_tokens_for_exact_native receives exactly amount_out of the native coin', async function () {
        const [rS, rW] = await reserves(stable, wnative)
        const to = receiver()
        const res = await post('execute_tokens_for_exact_native', { amount_out: '0.5', amount_in_max: '10000', token1: stable, token2: wnative, from: trader, to })
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        expect(res.body.data.method).to.equal('swapTokensForExactETH')
        expect(res.body.data.amount_in_raw).to.equal(amountIn(parseEther('0.5'), rS, rW).toString())
        expect(await nativeBalance(f.chain, to)).to.equal(parseEther('0.5'))
    })

    it('routes through STABLE when there is no direct pair', async function () {
        const to = receiver()
        const res = await post('execute_exact_tokens_for_native', { amount_in_max: '10', amount_out: '0', token1: gold, from: trader, to })
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        expect(res.body.data.path).to.deep.equal([gold, stable, wnative])
        expect(await nativeBalance(f.chain, to)).to.equal(BigInt(res.body.data.amount_out_raw))
    })

    describe('fee-on-transfer tokens', function () {
        it('buys TAXI with the fee-supporting method; the quote includes the 2% buying fee', async function () {
            const to = receiver()
            const sinkBefore = await tokenBalance(f.chain, taxi, feeSink)
            const res = await post('execute_exact_native_for_tokens', { amount_native: '1', amount_out_min: '0', token: taxi, from: trader, to })
            expect(res.status, JSON.stringify(res.body)).to.equal(200)
            expect(res.body.data).to.deep.include({ method: 'swapExactETHForTokensSupportingFeeOnTransferTokens', fee_on_transfer: true })
            const received = await tokenBalance(f.chain, taxi, to)
            expect(res.body.data.amount_out_raw).to.equal(received.toString())
            expect(res.body.data.quoted_amount_out_raw).to.equal(received.toString())
            const fee = (await tokenBalance(f.chain, taxi, feeSink)) - sinkBefore
            expect(fee).to.equal(((received + fee) * 200n) / 10_000n)
        })

        it('sells TAXI for the native coin, paying the 3% selling fee', async function () {
            const to = receiver()
            const res = await post('execute_exact_tokens_for_native', { amount_in_max: '1000', amount_out: '0', token1: taxi, from: trader, to })
            expect(res.status, JSON.stringify(res.body)).to.equal(200)
            expect(res.body.data.method).to.equal('swapExactTokensForETHSupportingFeeOnTransferTokens')
            expect(res.body.data.amount_in).to.equal('1000')
            expect(await nativeBalance(f.chain, to)).to.equal(BigInt(res.body.data.amount_out_raw))
            expect(res.body.data.quoted_amount_out_raw).to.equal(res.body.data.amount_out_raw)
        })

        it('gives at least the exact output through a fee token, within amount_in_max', async function () {
            const to = receiver()
            const buy = await post('execute_native_for_exact_tokens', { amount_native: '5', amount_out: '500', token: taxi, from: trader, to })
            expect(buy.status, JSON.stringify(buy.body)).to.equal(200)
            expect(buy.body.data.method).to.equal('swapExactETHForTokensSupportingFeeOnTransferTokens')
            const got = await tokenBalance(f.chain, taxi, to)
            expect(got >= parseEther('500')).to.equal(true)
            expect(got - parseEther('500') < parseEther('0.001')).to.equal(true)

            const sellTo = receiver()
            const sell = await post('execute_tokens_for_exact_native', { amount_out: '0.25', amount_in_max: '1000', token1: taxi, from: trader, to: sellTo })
            expect(sell.status, JSON.stringify(sell.body)).to.equal(200)
            expect(sell.body.data.method).to.equal('swapExactTokensForETHSupportingFeeOnTransferTokens')
            const native = await nativeBalance(f.chain, sellTo)
            expect(native >= parseEther('0.25')).to.equal(true)
            expect(BigInt(sell.body.data.amount_in_raw) <= parseEther('1000')).to.equal(true)

            const capped = await post('execute_tokens_for_exact_native', { amount_out: '0.25', amount_in_max: '100', token1: taxi, from: trader, to: sellTo })
            expect(capped.status).to.equal(400)
            expect(capped.body.error).to.match(/^EXCESSIVE_INPUT_AMOUNT/)
        })

        it('trades TAXI for STABLE over two hops, both charged', async function () {
            const to = receiver()
            const res = await post('execute_exact_tokens_for_tokens', { amount_in: '100', amount_out_min: '0', token1: taxi, token2: stable, from: trader, to })
            expect(res.status, JSON.stringify(res.body)).to.equal(200)
            expect(res.body.data.path).to.deep.equal([taxi, wnative, stable])
            expect(res.body.data.method).to.equal('swapExactTokensForTokensSupportingFeeOnTransferTokens')
            expect(res.body.data.amount_out_raw).to.equal((await tokenBalance(f.chain, stable, to)).toString())
            expect(res.body.data.quoted_amount_out_raw).to.equal(res.body.data.amount_out_raw)
        })
    })

    describe('errors', function () {
        it('a missing pool, a trade larger than the pool, a passed deadline and overdrafts are 400s that say what to do', async function () {
            const orphan = await deployToken(f.http, 'trader', PWD, { tokenName: 'Orphan', tokenSymbol: 'ORP', totalSupply: '100', destinationAddress: trader })
            const cases: [string, Record<string, unknown>, RegExp][] = [
                ['execute_exact_tokens_for_tokens', { amount_in: '1', amount_out_min: '0', token1: orphan, token2: stable }, /does not exist.*add liquidity/],
                ['execute_exact_native_for_tokens', { amount_native: '1', amount_out_min: '0', token: orphan }, /does not exist/],
                ['execute_tokens_for_exact_tokens', { amount_out: '30000', amount_in_max: '999999', token1: stable, token2: gold }, /^INSUFFICIENT_LIQUIDITY/],
                ['execute_exact_tokens_for_tokens', { amount_in: '1', amount_out_min: '0', token1: gold, token2: stable, deadline: 1000 }, /^EXPIRED/],
                ['execute_exact_tokens_for_tokens', { amount_in: '999999999', amount_out_min: '0', token1: gold, token2: stable }, /insufficient GOLD balance/],
                ['execute_exact_native_for_tokens', { amount_native: '99999999', amount_out_min: '0', token: stable }, /insufficient funds/],
            ]
            const nonce = await f.chain.client.getTransactionCount({ address: trader })
            for (const [route, body, message] of cases) {
                const res = await post(route, { from: trader, to: trader, ...body })
                expect(res.status, `${route} ${JSON.stringify(res.body)}`).to.equal(400)
                expect(res.body.error, route).to.match(message)
            }
            expect(await f.chain.client.getTransactionCount({ address: trader })).to.equal(nonce)
        })

        it('answers malformed input on every swap route with a 400', async function () {
            const cases: [string, Record<string, unknown>][] = [
                ['execute_exact_tokens_for_tokens', { amount_in: '1', amount_out_min: '0', token1: gold, token2: gold }],
                ['execute_exact_tokens_for_tokens', { amount_in: '1', amount_out_min: '0', token1: 'NATIVE', token2: gold }],
                ['execute_exact_tokens_for_tokens', { amount_in: '1', amount_out_min: '0', token1: gold }],
                ['execute_exact_tokens_for_tokens', { amount_in: '0', amount_out_min: '0', token1: gold, token2: stable }],
                ['execute_exact_tokens_for_tokens', { amount_in: '1', amount_out_min: '0.0000001', token1: gold, token2: stable }],
                ['execute_tokens_for_exact_tokens', { amount_out: 'five', amount_in_max: '1', token1: stable, token2: gold }],
                ['execute_tokens_for_exact_tokens', { amount_out: '1', token1: stable, token2: gold }],
                ['execute_exact_native_for_tokens', { amount_out_min: '0', token: stable }],
                ['execute_exact_native_for_tokens', { amount_native: '1', amount_out_min: '0', token: 'NATIVE' }],
                ['execute_exact_native_for_tokens', { amount_native: '1', amount_out_min: '0', token: wnative }],
                ['execute_native_for_exact_tokens', { amount_native: '1', token: stable }],
                ['execute_native_for_exact_tokens', { amount_native: '1', amount_out_min: '1', amount_out: '2', token: stable }],
                ['execute_exact_tokens_for_native', { amount_in_max: '1', amount_out: '0', token1: stable, token2: gold }],
                ['execute_exact_tokens_for_native', { amount_out: '0', token1: stable }],
                ['execute_tokens_for_exact_native', { amount_out: '1', amount_in_max: '1', token1: 'NATIVE' }],
                ['execute_tokens_for_exact_native', { amount_out: '1', amount_in_max: [], token1: stable }],
            ]
            for (const [route, body] of cases) {
                const res = await post(route, { from: trader, to: trader, ...body })
                expect(res.status, `${route} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).to.equal(400)
                expect(res.body.success).to.equal(false)
            }
            for (const route of ['execute_exact_tokens_for_tokens', 'execute_tokens_for_exact_native']) {
                const res = await post(route, { from: 'me', to: trader, amount_in: '1', amount_out_min: '0', token1: gold, token2: stable })
                expect(res.status).to.equal(400)
                expect((await post(route, { from: trader, to: '0x0000000000000000000000000000000000000000', amount_in: '1', amount_out_min: '0', token1: gold, token2: stable })).status).to.equal(400)
            }
        })
    })
})
