import { expect } from 'chai'
import { Address, parseEther, parseUnits, zeroAddress } from 'viem'
import { abis } from '../../abi'
import { expectRevert, FAR_DEADLINE, TestChain, TX } from './support'

/** Each revert reason of our AMM (Uniswap V2's; docs/contracts.md), from its cause. */
describe('AMM revert reasons', () => {
    let chain: TestChain
    let stable: Address, gold: Address
    const trader = TestChain.account(10)

    before(async () => {
        chain = await TestChain.start()
        stable = chain.contracts.stable
        gold = await chain.deployToken({ name: 'Gold', symbol: 'GOLD', totalSupply: parseEther('1000000000') })
        await chain.mintStable(chain.deployer.address, parseUnits('100000000', 6))
        await chain.approveRouter(stable, chain.deployer)
        await chain.approveRouter(gold, chain.deployer)
        await chain.addLiquidity(gold, stable, parseEther('1000'), parseUnits('50000', 6))
        await chain.mintStable(trader.address, parseUnits('100000', 6))
        await chain.approveRouter(stable, trader)
    })

    after(async () => {
        await chain?.stop()
    })

    const router = () => ({ address: chain.contracts.router, abi: abis.AmmRouter })
    const factory = () => ({ address: chain.contracts.factory, abi: abis.AmmFactory })

    it('INSUFFICIENT_OUTPUT_AMOUNT when amountOutMin is above the quote, and a mined attempt changes no balance', async () => {
        const amountIn = parseUnits('100', 6)
        const [, quoted] = await chain.client.readContract({ ...router(), functionName: 'getAmountsOut', args: [amountIn, [stable, gold]] })
        const args = [amountIn, quoted + 1n, [stable, gold], trader.address, FAR_DEADLINE] as const
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: trader, functionName: 'swapExactTokensForTokens', args }),
            'INSUFFICIENT_OUTPUT_AMOUNT'
        )

        const before = [await chain.balanceOf(stable, trader.address), await chain.balanceOf(gold, trader.address), await chain.reserves(stable, gold)]
        // A fixed gas limit skips estimation, so the transaction is mined and reverts on chain.
        const hash = await chain.wallet(trader).writeContract({ ...router(), functionName: 'swapExactTokensForTokens', args, ...TX })
        const receipt = await chain.client.waitForTransactionReceipt({ hash })
        expect(receipt.status).to.equal('reverted')
        const after = [await chain.balanceOf(stable, trader.address), await chain.balanceOf(gold, trader.address), await chain.reserves(stable, gold)]
        expect(after).to.deep.equal(before)
    })

    it('INSUFFICIENT_INPUT_AMOUNT for a zero input, from the router and from the pair', async () => {
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: trader, functionName: 'swapExactTokensForTokens', args: [0n, 0n, [stable, gold], trader.address, FAR_DEADLINE] }),
            'INSUFFICIENT_INPUT_AMOUNT'
        )
        // Asking the pair for output without paying it anything.
        const pair = await chain.getPair(stable, gold)
        await expectRevert(
            chain.client.simulateContract({ account: trader, address: pair, abi: abis.AmmPair, functionName: 'swap', args: [1n, 0n, trader.address, '0x'] }),
            'INSUFFICIENT_INPUT_AMOUNT'
        )
    })

    it('TRANSFER_FROM_FAILED when the router has no allowance', async () => {
        const unapproved = TestChain.account(11)
        await chain.mintStable(unapproved.address, parseUnits('1000', 6))
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: unapproved, functionName: 'swapExactTokensForTokens', args: [parseUnits('10', 6), 0n, [stable, gold], unapproved.address, FAR_DEADLINE] }),
            'TRANSFER_FROM_FAILED'
        )
    })

    it('EXPIRED when the deadline has passed', async () => {
        const past = (await chain.timestamp()) - 1n
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: trader, functionName: 'swapExactTokensForTokens', args: [parseUnits('10', 6), 0n, [stable, gold], trader.address, past] }),
            'EXPIRED'
        )
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: chain.deployer, functionName: 'addLiquidity', args: [gold, stable, 1n, 1n, 0n, 0n, trader.address, past] }),
            'EXPIRED'
        )
    })

    it('INSUFFICIENT_LIQUIDITY for a trade larger than the reserves and for an empty pool', async () => {
        const [, goldReserve] = await chain.reserves(stable, gold)
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: trader, functionName: 'swapTokensForExactTokens', args: [goldReserve, parseUnits('100000', 6), [stable, gold], trader.address, FAR_DEADLINE] }),
            'INSUFFICIENT_LIQUIDITY'
        )
        const pair = await chain.getPair(stable, gold)
        await expectRevert(
            chain.client.simulateContract({ account: trader, address: pair, abi: abis.AmmPair, functionName: 'swap', args: [goldReserve, goldReserve, trader.address, '0x'] }),
            'INSUFFICIENT_LIQUIDITY'
        )

        const silver = await chain.deployToken({ name: 'Silver', symbol: 'SILVER', totalSupply: parseEther('1000') })
        await chain.mined(chain.wallet(chain.deployer).writeContract({ ...factory(), functionName: 'createPair', args: [silver, stable], ...TX }))
        expect(await chain.getPair(silver, stable)).to.not.equal(zeroAddress)
        await expectRevert(
            chain.client.readContract({ ...router(), functionName: 'getAmountsOut', args: [parseUnits('1', 6), [stable, silver]] }),
            'INSUFFICIENT_LIQUIDITY'
        )
    })

    it('getPair returns the zero address for a pair that does not exist, and the router refuses its path', async () => {
        const copper = await chain.deployToken({ name: 'Copper', symbol: 'COPPER', totalSupply: parseEther('1000') })
        expect(await chain.getPair(copper, stable)).to.equal(zeroAddress)
        expect(await chain.getPair(stable, copper)).to.equal(zeroAddress)
        await expectRevert(
            chain.client.readContract({ ...router(), functionName: 'getAmountsOut', args: [parseUnits('1', 6), [stable, copper]] }),
            'PAIR_NOT_FOUND'
        )
    })

    it('EXCESSIVE_INPUT_AMOUNT when the exact output costs more than amountInMax', async () => {
        const amountOut = parseEther('1')
        const [needed] = await chain.client.readContract({ ...router(), functionName: 'getAmountsIn', args: [amountOut, [stable, gold]] })
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: trader, functionName: 'swapTokensForExactTokens', args: [amountOut, needed - 1n, [stable, gold], trader.address, FAR_DEADLINE] }),
            'EXCESSIVE_INPUT_AMOUNT'
        )
    })

    it('INVALID_PATH for a coin swap whose path does not start or end at WNATIVE, or a path of one token', async () => {
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: chain.deployer, functionName: 'swapExactETHForTokens', args: [0n, [stable, gold], trader.address, FAR_DEADLINE], value: 1n }),
            'INVALID_PATH'
        )
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: trader, functionName: 'swapExactTokensForETH', args: [1n, 0n, [stable, gold], trader.address, FAR_DEADLINE] }),
            'INVALID_PATH'
        )
        await expectRevert(chain.client.readContract({ ...router(), functionName: 'getAmountsOut', args: [1n, [stable]] }), 'INVALID_PATH')
    })

    it('INSUFFICIENT_A_AMOUNT and INSUFFICIENT_B_AMOUNT when the pool ratio cannot meet the minimums', async () => {
        const [goldReserve, stableReserve] = await chain.reserves(gold, stable)
        const goldDesired = parseEther('10')
        const stableAtRatio = (goldDesired * stableReserve) / goldReserve
        // Plenty of STABLE offered: all the GOLD goes in, and less STABLE than its minimum.
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: chain.deployer, functionName: 'addLiquidity', args: [gold, stable, goldDesired, stableAtRatio * 2n, 0n, stableAtRatio + 1n, chain.deployer.address, FAR_DEADLINE] }),
            'INSUFFICIENT_B_AMOUNT'
        )
        // Too little STABLE offered: less GOLD than its minimum goes in.
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: chain.deployer, functionName: 'addLiquidity', args: [gold, stable, goldDesired, stableAtRatio / 2n, goldDesired, 0n, chain.deployer.address, FAR_DEADLINE] }),
            'INSUFFICIENT_A_AMOUNT'
        )
    })

    it('IDENTICAL_ADDRESSES, ZERO_ADDRESS, PAIR_EXISTS and FORBIDDEN from the factory', async () => {
        const create = (a: Address, b: Address) => chain.client.simulateContract({ ...factory(), account: chain.deployer, functionName: 'createPair', args: [a, b] })
        await expectRevert(create(gold, gold), 'IDENTICAL_ADDRESSES')
        await expectRevert(create(zeroAddress, gold), 'ZERO_ADDRESS')
        await expectRevert(create(stable, gold), 'PAIR_EXISTS')
        await expectRevert(
            chain.client.simulateContract({ ...factory(), account: trader, functionName: 'setFeeTo', args: [trader.address] }),
            'FORBIDDEN'
        )
    })

    it('LOCKED when a flash-swap callback re-enters the pair, and K when it repays without the fee', async () => {
        const pair = await chain.getPair(stable, gold)
        const borrower = await chain.deploy('FlashBorrower', [])
        const borrow = (reenter: boolean) => chain.client.simulateContract({
            account: trader, address: borrower, abi: abis.FlashBorrower, functionName: 'borrow', args: [pair, 1000n, 1000n, reenter],
        })
        await expectRevert(borrow(true), 'LOCKED')
        await expectRevert(borrow(false), 'K')
    })
})
