import { expect } from 'chai'
import { Address, createTestClient, http, maxUint256, parseEther, parseUnits } from 'viem'
import { abis } from '../../abi'
import { getAmountOut } from '../../common/amm-math'
import { expectRevert, FAR_DEADLINE, TestChain, TX } from './support'

const BUYING_FEE = 300n // 3%
const SELLING_FEE = 500n // 5%
const fee = (amount: bigint, bps: bigint) => (amount * bps) / 10_000n

describe('fee-on-transfer PlatformToken in AMM pools', () => {
    let chain: TestChain
    let stable: Address, wnative: Address, tax: Address
    const collector = TestChain.account(12)
    const trader = TestChain.account(10) // no coin
    const coinTrader = TestChain.account(2)

    before(async () => {
        chain = await TestChain.start()
        ;({ stable, wnative } = chain.contracts)
        tax = await chain.deployToken({
            name: 'Taxed',
            symbol: 'TAX',
            totalSupply: parseEther('1000000000'),
            buyingFee: Number(BUYING_FEE),
            sellingFee: Number(SELLING_FEE),
            feeAddress: collector.address,
        })
        await chain.mintStable(chain.deployer.address, parseUnits('100000000', 6))
        await chain.approveRouter(stable, chain.deployer)
        await chain.approveRouter(tax, chain.deployer)
        await chain.addLiquidity(tax, stable, parseEther('1000000'), parseUnits('2000000', 6))
        await chain.mined(chain.wallet(chain.deployer).writeContract({
            address: chain.contracts.router,
            abi: abis.AmmRouter,
            functionName: 'addLiquidityETH',
            args: [tax, parseEther('1000000'), 0n, 0n, chain.deployer.address, FAR_DEADLINE],
            value: parseEther('500'),
            ...TX,
        }))

        await chain.mintStable(trader.address, parseUnits('100000', 6))
        await chain.approveRouter(stable, trader)
        await chain.approveRouter(tax, trader)
        await chain.approveRouter(tax, coinTrader)
    })

    after(async () => {
        await chain?.stop()
    })

    const router = () => ({ address: chain.contracts.router, abi: abis.AmmRouter })
    const quote = (amountIn: bigint, path: Address[]) =>
        chain.client.readContract({ ...router(), functionName: 'getAmountsOut', args: [amountIn, path] })
    const collected = () => chain.balanceOf(tax, collector.address)

    it('pays no fee on wallet-to-wallet transfers, nor to contracts that are not pairs of the factory', async () => {
        const before = await collected()
        await chain.transfer(tax, chain.deployer, trader.address, parseEther('100000'))
        await chain.transfer(tax, chain.deployer, coinTrader.address, parseEther('100000'))
        expect(await chain.balanceOf(tax, trader.address)).to.equal(parseEther('100000'))

        // A contract that answers every call with nothing (a catch-all fallback): must neither revert nor pay.
        const mute = '0x000000000000000000000000000000000000feed' as const
        await createTestClient({ mode: 'anvil', transport: http(chain.url) }).setCode({ address: mute, bytecode: '0x00' })
        await chain.transfer(tax, trader, mute, parseEther('1'))
        expect(await chain.balanceOf(tax, mute)).to.equal(parseEther('1'))

        // The router names the factory but is no pair; a pair of another factory is not ours.
        await chain.transfer(tax, trader, chain.contracts.router, parseEther('1'))
        const otherFactory = await chain.deploy('AmmFactory', [chain.deployer.address])
        await chain.mined(chain.wallet(chain.deployer).writeContract({ address: otherFactory, abi: abis.AmmFactory, functionName: 'createPair', args: [tax, stable], ...TX }))
        const foreignPair = await chain.client.readContract({ address: otherFactory, abi: abis.AmmFactory, functionName: 'getPair', args: [tax, stable] })
        await chain.transfer(tax, trader, foreignPair, parseEther('1'))
        expect(await chain.balanceOf(tax, foreignPair)).to.equal(parseEther('1'))

        expect(await collected()).to.equal(before)
    })

    it('buying through swapExactTokensForTokensSupportingFeeOnTransferTokens pays the buying fee; the quote overestimates', async () => {
        const amountIn = parseUnits('1000', 6)
        const [, quoted] = await quote(amountIn, [stable, tax])
        const buyerFee = fee(quoted, BUYING_FEE)
        // Asking for the quoted amount fails: the buyer receives it minus the fee.
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: trader, functionName: 'swapExactTokensForTokensSupportingFeeOnTransferTokens', args: [amountIn, quoted, [stable, tax], trader.address, FAR_DEADLINE] }),
            'INSUFFICIENT_OUTPUT_AMOUNT'
        )
        const [taxBefore, collectedBefore] = [await chain.balanceOf(tax, trader.address), await collected()]

        await chain.mined(chain.wallet(trader).writeContract({
            ...router(), functionName: 'swapExactTokensForTokensSupportingFeeOnTransferTokens', args: [amountIn, quoted - buyerFee, [stable, tax], trader.address, FAR_DEADLINE], ...TX,
        }))

        const received = (await chain.balanceOf(tax, trader.address)) - taxBefore
        expect(received).to.equal(quoted - buyerFee)
        expect(quoted > received, `quoted ${quoted} above received ${received}`).to.equal(true)
        expect((await collected()) - collectedBefore).to.equal(buyerFee)
    })

    it('selling through the supporting method pays the selling fee and prices only what reached the pair', async () => {
        const amountIn = parseEther('5000')
        const [, quoted] = await quote(amountIn, [tax, stable])
        const [taxReserve, stableReserve] = await chain.reserves(tax, stable)
        const sellerFee = fee(amountIn, SELLING_FEE)
        const [stableBefore, collectedBefore] = [await chain.balanceOf(stable, trader.address), await collected()]

        await chain.mined(chain.wallet(trader).writeContract({
            ...router(), functionName: 'swapExactTokensForTokensSupportingFeeOnTransferTokens', args: [amountIn, 0n, [tax, stable], trader.address, FAR_DEADLINE], ...TX,
        }))

        const received = (await chain.balanceOf(stable, trader.address)) - stableBefore
        expect(received).to.equal(getAmountOut(amountIn - sellerFee, taxReserve, stableReserve))
        expect(quoted > received, `quoted ${quoted} above received ${received}`).to.equal(true)
        expect((await collected()) - collectedBefore).to.equal(sellerFee)
    })

    it('the normal methods fail on the sell side with K, and on the buy side deliver less than amountOutMin', async () => {
        const sell = parseEther('5000')
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: trader, functionName: 'swapExactTokensForTokens', args: [sell, 0n, [tax, stable], trader.address, FAR_DEADLINE] }),
            'K'
        )
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: coinTrader, functionName: 'swapExactTokensForETH', args: [sell, 0n, [tax, wnative], coinTrader.address, FAR_DEADLINE] }),
            'K'
        )

        // The router checks its own computation, not what arrives: the buyer gets less than the floor it set.
        const amountIn = parseUnits('100', 6)
        const [, quoted] = await quote(amountIn, [stable, tax])
        const before = await chain.balanceOf(tax, trader.address)
        await chain.mined(chain.wallet(trader).writeContract({
            ...router(), functionName: 'swapExactTokensForTokens', args: [amountIn, quoted, [stable, tax], trader.address, FAR_DEADLINE], ...TX,
        }))
        expect((await chain.balanceOf(tax, trader.address)) - before).to.equal(quoted - fee(quoted, BUYING_FEE))
    })

    it('the coin variants of the supporting swaps charge the same fees', async () => {
        const coinBalance = () => chain.client.getBalance({ address: coinTrader.address })
        const value = parseEther('2')
        const [, quoted] = await quote(value, [wnative, tax])
        let taxBefore = await chain.balanceOf(tax, coinTrader.address)
        let collectedBefore = await collected()
        await chain.mined(chain.wallet(coinTrader).writeContract({
            ...router(), functionName: 'swapExactETHForTokensSupportingFeeOnTransferTokens', args: [0n, [wnative, tax], coinTrader.address, FAR_DEADLINE], value, ...TX,
        }))
        const received = (await chain.balanceOf(tax, coinTrader.address)) - taxBefore
        expect(received).to.equal(quoted - fee(quoted, BUYING_FEE))
        expect((await collected()) - collectedBefore).to.equal(fee(quoted, BUYING_FEE))

        const amountIn = parseEther('3000')
        const [taxReserve, coinReserve] = await chain.reserves(tax, wnative)
        const [, coinQuoted] = await quote(amountIn, [tax, wnative])
        const coinBefore = await coinBalance()
        taxBefore = await chain.balanceOf(tax, coinTrader.address)
        collectedBefore = await collected()
        await chain.mined(chain.wallet(coinTrader).writeContract({
            ...router(), functionName: 'swapExactTokensForETHSupportingFeeOnTransferTokens', args: [amountIn, 0n, [tax, wnative], coinTrader.address, FAR_DEADLINE], ...TX,
        }))
        const coinReceived = (await coinBalance()) - coinBefore
        expect(coinReceived).to.equal(getAmountOut(amountIn - fee(amountIn, SELLING_FEE), taxReserve, coinReserve))
        expect(coinQuoted > coinReceived, `coinQuoted ${coinQuoted} above coinReceived ${coinReceived}`).to.equal(true)
        expect(taxBefore - (await chain.balanceOf(tax, coinTrader.address))).to.equal(amountIn)
        expect((await collected()) - collectedBefore).to.equal(fee(amountIn, SELLING_FEE))
    })

    it('removing liquidity needs removeLiquidityETHSupportingFeeOnTransferTokens, which pays out what arrived', async () => {
        const pair = await chain.getPair(tax, wnative)
        await chain.mined(chain.wallet(chain.deployer).writeContract({ address: pair, abi: abis.AmmPair, functionName: 'approve', args: [chain.contracts.router, maxUint256], ...TX }))
        const liquidity = (await chain.client.readContract({ address: pair, abi: abis.AmmPair, functionName: 'balanceOf', args: [chain.deployer.address] })) / 10n
        const args = [tax, liquidity, 0n, 0n, chain.deployer.address, FAR_DEADLINE] as const
        // The router receives the token minus the buying fee, then tries to pass on the full amount.
        await expectRevert(
            chain.client.simulateContract({ ...router(), account: chain.deployer, functionName: 'removeLiquidityETH', args }),
            'TRANSFER_FAILED'
        )

        const [taxReserve] = await chain.reserves(tax, wnative)
        const supply = await chain.client.readContract({ address: pair, abi: abis.AmmPair, functionName: 'totalSupply' })
        const taxOut = (liquidity * taxReserve) / supply
        const taxBefore = await chain.balanceOf(tax, chain.deployer.address)
        // The router passes on its whole balance, including the token sent to it by the first test.
        const stray = await chain.balanceOf(tax, chain.contracts.router)
        await chain.mined(chain.wallet(chain.deployer).writeContract({ ...router(), functionName: 'removeLiquidityETHSupportingFeeOnTransferTokens', args, ...TX }))
        expect((await chain.balanceOf(tax, chain.deployer.address)) - taxBefore).to.equal(stray + taxOut - fee(taxOut, BUYING_FEE))
        expect(await chain.balanceOf(tax, chain.contracts.router)).to.equal(0n)
    })
})
