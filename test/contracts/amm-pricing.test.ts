import { expect } from 'chai'
import { Address, parseEther, parseEventLogs, parseUnits } from 'viem'
import { abis } from '../../abi'
import { getAmountIn, getAmountOut } from '../../common/amm-math'
import { expectRevert, FAR_DEADLINE, SeededRandom, TestChain, TX } from './support'

describe('AMM pricing: 0.2% fee (amountIn x 998 / 1000)', () => {
    let chain: TestChain
    let wnative: Address, stable: Address, gold: Address, silver: Address
    const trader = TestChain.account(10) // holds no coin: every transaction here is free
    const coinTrader = TestChain.account(1)

    before(async () => {
        chain = await TestChain.start()
        ;({ wnative, stable } = chain.contracts)
        gold = await chain.deployToken({ name: 'Gold', symbol: 'GOLD', totalSupply: parseEther('1000000000') })
        silver = await chain.deployToken({ name: 'Silver', symbol: 'SILVER', decimals: 8, totalSupply: parseUnits('1000000000', 8) })
        await chain.mintStable(chain.deployer.address, parseUnits('100000000', 6))
        for (const token of [stable, gold, silver]) await chain.approveRouter(token, chain.deployer)
        await chain.mined(chain.wallet(chain.deployer).writeContract({
            address: chain.contracts.router,
            abi: abis.AmmRouter,
            functionName: 'addLiquidityETH',
            args: [stable, parseUnits('2000000', 6), 0n, 0n, chain.deployer.address, FAR_DEADLINE],
            value: parseEther('1000'),
            ...TX,
        }))
        await chain.addLiquidity(gold, stable, parseEther('100000'), parseUnits('5000000', 6))
        await chain.addLiquidity(silver, gold, parseUnits('2000000', 8), parseEther('20000'))

        await chain.mintStable(trader.address, parseUnits('1000000', 6))
        await chain.approveRouter(stable, trader)
        await chain.transfer(gold, chain.deployer, coinTrader.address, parseEther('10000'))
        await chain.approveRouter(gold, coinTrader)
    })

    after(async () => {
        await chain?.stop()
    })

    const router = () => ({ address: chain.contracts.router, abi: abis.AmmRouter })

    /** The formula applied hop by hop on the pools' current reserves. */
    async function expectedAmountsOut(amountIn: bigint, path: Address[]): Promise<bigint[]> {
        const amounts = [amountIn]
        for (let i = 0; i < path.length - 1; i++) {
            const [reserveIn, reserveOut] = await chain.reserves(path[i], path[i + 1])
            amounts.push(getAmountOut(amounts[i], reserveIn, reserveOut))
        }
        return amounts
    }

    async function expectedAmountsIn(amountOut: bigint, path: Address[]): Promise<bigint[]> {
        const amounts = [amountOut]
        for (let i = path.length - 1; i > 0; i--) {
            const [reserveIn, reserveOut] = await chain.reserves(path[i - 1], path[i])
            amounts.unshift(getAmountIn(amounts[0], reserveIn, reserveOut))
        }
        return amounts
    }

    it('getAmountOut and getAmountIn equal the formula for 60 random amounts and reserves', async () => {
        const random = new SeededRandom('getAmountOut')
        for (let i = 0; i < 60; i++) {
            const reserveIn = random.magnitude(1n, 10n ** 30n)
            const reserveOut = random.magnitude(2n, 10n ** 30n)
            const amountIn = random.magnitude(1n, 10n ** 30n)
            const out = await chain.client.readContract({ ...router(), functionName: 'getAmountOut', args: [amountIn, reserveIn, reserveOut] })
            expect(out, `getAmountOut(${amountIn}, ${reserveIn}, ${reserveOut})`).to.equal(getAmountOut(amountIn, reserveIn, reserveOut))

            const amountOut = random.bigint(1n, reserveOut - 1n)
            const needed = await chain.client.readContract({ ...router(), functionName: 'getAmountIn', args: [amountOut, reserveIn, reserveOut] })
            expect(needed, `getAmountIn(${amountOut}, ${reserveIn}, ${reserveOut})`).to.equal(getAmountIn(amountOut, reserveIn, reserveOut))
        }
    })

    it('getAmountsOut equals the formula on the pools for 50 random amounts, over one hop and three', async () => {
        const random = new SeededRandom('getAmountsOut')
        // Over three hops the smallest inputs would round to nothing at the first hop.
        const paths: [Address[], bigint][] = [[[stable, gold], 1n], [[wnative, stable, gold, silver], 10n ** 12n]]
        for (let i = 0; i < 50; i++) {
            const [path, smallest] = paths[i % 2]
            const amountIn = random.magnitude(smallest, parseEther('100000'))
            const quoted = await chain.client.readContract({ ...router(), functionName: 'getAmountsOut', args: [amountIn, path] })
            expect(quoted, `getAmountsOut(${amountIn})`).to.deep.equal(await expectedAmountsOut(amountIn, path))
        }
    })

    it('getAmountsIn equals the formula on the pools for 50 random amounts, over one hop and three', async () => {
        const random = new SeededRandom('getAmountsIn')
        const paths = [[stable, gold], [wnative, stable, gold, silver]]
        for (let i = 0; i < 50; i++) {
            const path = paths[i % 2]
            const [, reserveOut] = await chain.reserves(path[path.length - 2], path[path.length - 1])
            const amountOut = random.magnitude(1n, reserveOut / 2n)
            const quoted = await chain.client.readContract({ ...router(), functionName: 'getAmountsIn', args: [amountOut, path] })
            expect(quoted, `getAmountsIn(${amountOut})`).to.deep.equal(await expectedAmountsIn(amountOut, path))
        }
    })

    it('swapExactTokensForTokens over two hops delivers exactly the quote and moves the reserves by it', async () => {
        const path = [stable, gold, silver]
        const amountIn = parseUnits('12345.678901', 6)
        const quoted = await chain.client.readContract({ ...router(), functionName: 'getAmountsOut', args: [amountIn, path] })
        const reservesBefore = [await chain.reserves(stable, gold), await chain.reserves(gold, silver)]
        const stableBefore = await chain.balanceOf(stable, trader.address)
        const silverBefore = await chain.balanceOf(silver, trader.address)

        const receipt = await chain.mined(chain.wallet(trader).writeContract({
            ...router(), functionName: 'swapExactTokensForTokens', args: [amountIn, quoted[2], path, trader.address, FAR_DEADLINE], ...TX,
        }))

        expect(stableBefore - (await chain.balanceOf(stable, trader.address))).to.equal(amountIn)
        expect((await chain.balanceOf(silver, trader.address)) - silverBefore).to.equal(quoted[2])
        expect(await chain.reserves(stable, gold)).to.deep.equal([reservesBefore[0][0] + quoted[0], reservesBefore[0][1] - quoted[1]])
        expect(await chain.reserves(gold, silver)).to.deep.equal([reservesBefore[1][0] + quoted[1], reservesBefore[1][1] - quoted[2]])
        const swaps = parseEventLogs({ abi: abis.AmmPair, eventName: 'Swap', logs: receipt.logs })
        expect(swaps).to.have.length(2)
        expect(swaps[1].args.to).to.equal(trader.address)
        expect(swaps[1].args.amount0Out + swaps[1].args.amount1Out).to.equal(quoted[2])
    })

    it('swapTokensForExactTokens spends exactly getAmountsIn and delivers the exact amount', async () => {
        const path = [stable, gold]
        const amountOut = parseEther('77.7')
        const quoted = await chain.client.readContract({ ...router(), functionName: 'getAmountsIn', args: [amountOut, path] })
        const stableBefore = await chain.balanceOf(stable, trader.address)
        const goldBefore = await chain.balanceOf(gold, trader.address)

        await chain.mined(chain.wallet(trader).writeContract({
            ...router(), functionName: 'swapTokensForExactTokens', args: [amountOut, quoted[0], path, trader.address, FAR_DEADLINE], ...TX,
        }))

        expect(stableBefore - (await chain.balanceOf(stable, trader.address))).to.equal(quoted[0])
        expect((await chain.balanceOf(gold, trader.address)) - goldBefore).to.equal(amountOut)
    })

    it('the coin variants price the same way and refund what swapETHForExactTokens does not need', async () => {
        const coinBalance = () => chain.client.getBalance({ address: coinTrader.address })
        const wallet = chain.wallet(coinTrader)

        const value = parseEther('3.5')
        const out = await chain.client.readContract({ ...router(), functionName: 'getAmountsOut', args: [value, [wnative, stable]] })
        let stableBefore = await chain.balanceOf(stable, coinTrader.address)
        let coinBefore = await coinBalance()
        await chain.mined(wallet.writeContract({
            ...router(), functionName: 'swapExactETHForTokens', args: [out[1], [wnative, stable], coinTrader.address, FAR_DEADLINE], value, ...TX,
        }))
        expect((await chain.balanceOf(stable, coinTrader.address)) - stableBefore).to.equal(out[1])
        expect(coinBefore - (await coinBalance())).to.equal(value)

        const wanted = parseUnits('1000', 6)
        const needed = await chain.client.readContract({ ...router(), functionName: 'getAmountsIn', args: [wanted, [wnative, stable]] })
        stableBefore = await chain.balanceOf(stable, coinTrader.address)
        coinBefore = await coinBalance()
        await chain.mined(wallet.writeContract({
            ...router(), functionName: 'swapETHForExactTokens', args: [wanted, [wnative, stable], coinTrader.address, FAR_DEADLINE], value: needed[0] * 2n, ...TX,
        }))
        expect((await chain.balanceOf(stable, coinTrader.address)) - stableBefore).to.equal(wanted)
        expect(coinBefore - (await coinBalance())).to.equal(needed[0])

        const goldIn = parseEther('250')
        const path = [gold, stable, wnative]
        const coinOut = await chain.client.readContract({ ...router(), functionName: 'getAmountsOut', args: [goldIn, path] })
        coinBefore = await coinBalance()
        await chain.mined(wallet.writeContract({
            ...router(), functionName: 'swapExactTokensForETH', args: [goldIn, coinOut[2], path, coinTrader.address, FAR_DEADLINE], ...TX,
        }))
        expect((await coinBalance()) - coinBefore).to.equal(coinOut[2])

        const exactCoin = parseEther('0.25')
        const goldNeeded = await chain.client.readContract({ ...router(), functionName: 'getAmountsIn', args: [exactCoin, path] })
        const goldBefore = await chain.balanceOf(gold, coinTrader.address)
        coinBefore = await coinBalance()
        await chain.mined(wallet.writeContract({
            ...router(), functionName: 'swapTokensForExactETH', args: [exactCoin, goldNeeded[0], path, coinTrader.address, FAR_DEADLINE], ...TX,
        }))
        expect((await coinBalance()) - coinBefore).to.equal(exactCoin)
        expect(goldBefore - (await chain.balanceOf(gold, coinTrader.address))).to.equal(goldNeeded[0])
    })

    it("the pair's invariant check uses the same fee: it pays getAmountOut for an input, and not one unit more", async () => {
        const pair = await chain.getPair(stable, gold)
        const [reserveStable, reserveGold] = await chain.reserves(stable, gold)
        const amountIn = parseUnits('5000', 6)
        const amountOut = getAmountOut(amountIn, reserveStable, reserveGold)
        const goldIsToken0 = (await chain.client.readContract({ address: pair, abi: abis.AmmPair, functionName: 'token0' })) === gold
        const outs = (amount: bigint): [bigint, bigint] => (goldIsToken0 ? [amount, 0n] : [0n, amount])

        await chain.transfer(stable, trader, pair, amountIn)
        await expectRevert(
            chain.client.simulateContract({ account: trader, address: pair, abi: abis.AmmPair, functionName: 'swap', args: [...outs(amountOut + 1n), trader.address, '0x'] }),
            'K'
        )
        const goldBefore = await chain.balanceOf(gold, trader.address)
        await chain.mined(chain.wallet(trader).writeContract({
            address: pair, abi: abis.AmmPair, functionName: 'swap', args: [...outs(amountOut), trader.address, '0x'], ...TX,
        }))
        expect((await chain.balanceOf(gold, trader.address)) - goldBefore).to.equal(amountOut)
    })
})
