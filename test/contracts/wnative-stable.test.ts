import { expect } from 'chai'
import { parseEther, parseEventLogs } from 'viem'
import { abis } from '../../abi'
import { expectRevert, revertOf, TestChain, TX } from './support'

describe('WNATIVE and STABLE', () => {
    let chain: TestChain
    const holder = TestChain.account(3)
    const receiver = TestChain.account(17)

    before(async () => {
        chain = await TestChain.start()
    })

    after(async () => {
        await chain?.stop()
    })

    const wnative = () => ({ address: chain.contracts.wnative, abi: abis.WNative })
    const coin = () => chain.client.getBalance({ address: holder.address })

    it('describes itself as Wrapped Native, WNATIVE, 18 decimals', async () => {
        expect(await chain.client.readContract({ ...wnative(), functionName: 'name' })).to.equal('Wrapped Native')
        expect(await chain.client.readContract({ ...wnative(), functionName: 'symbol' })).to.equal('WNATIVE')
        expect(await chain.client.readContract({ ...wnative(), functionName: 'decimals' })).to.equal(18)
    })

    it('wraps coin with deposit() and with a plain transfer, emitting Deposit', async () => {
        const coinBefore = await coin()
        const viaDeposit = await chain.mined(chain.wallet(holder).writeContract({ ...wnative(), functionName: 'deposit', value: parseEther('2'), ...TX }))
        const viaTransfer = await chain.mined(chain.wallet(holder).sendTransaction({ to: chain.contracts.wnative, value: parseEther('0.5'), ...TX }))

        const deposits = parseEventLogs({ abi: abis.WNative, eventName: 'Deposit', logs: [...viaDeposit.logs, ...viaTransfer.logs] })
        expect(deposits.map((d) => d.args)).to.deep.equal([
            { dst: holder.address, wad: parseEther('2') },
            { dst: holder.address, wad: parseEther('0.5') },
        ])
        expect(await chain.balanceOf(chain.contracts.wnative, holder.address)).to.equal(parseEther('2.5'))
        expect(await chain.client.readContract({ ...wnative(), functionName: 'totalSupply' })).to.equal(parseEther('2.5'))
        expect(coinBefore - (await coin())).to.equal(parseEther('2.5'))
    })

    it('transfers as an ERC-20 and unwraps with withdraw(), emitting Transfer and Withdrawal', async () => {
        const sent = await chain.mined(chain.wallet(holder).writeContract({ ...wnative(), functionName: 'transfer', args: [receiver.address, parseEther('1')], ...TX }))
        const [transfer] = parseEventLogs({ abi: abis.WNative, eventName: 'Transfer', logs: sent.logs })
        expect(transfer.args).to.deep.equal({ from: holder.address, to: receiver.address, value: parseEther('1') })

        const coinBefore = await coin()
        const unwrapped = await chain.mined(chain.wallet(holder).writeContract({ ...wnative(), functionName: 'withdraw', args: [parseEther('1.5')], ...TX }))
        const [withdrawal] = parseEventLogs({ abi: abis.WNative, eventName: 'Withdrawal', logs: unwrapped.logs })
        expect(withdrawal.args).to.deep.equal({ src: holder.address, wad: parseEther('1.5') })
        expect((await coin()) - coinBefore).to.equal(parseEther('1.5'))
        expect(await chain.balanceOf(chain.contracts.wnative, holder.address)).to.equal(0n)

        await expectRevert(
            chain.client.simulateContract({ ...wnative(), account: holder, functionName: 'withdraw', args: [1n] }),
            'INSUFFICIENT_BALANCE'
        )
    })

    it('STABLE has 6 decimals and only its owner, the deployer, can mint', async () => {
        const stable = { address: chain.contracts.stable, abi: abis.Stable }
        expect(await chain.client.readContract({ ...stable, functionName: 'decimals' })).to.equal(6)
        expect(await chain.client.readContract({ ...stable, functionName: 'symbol' })).to.equal('STABLE')
        expect(await chain.client.readContract({ ...stable, functionName: 'name' })).to.equal('Stable Token')
        expect(await chain.client.readContract({ ...stable, functionName: 'owner' })).to.equal(chain.deployer.address)

        await chain.mintStable(receiver.address, 1_000_000n)
        expect(await chain.balanceOf(chain.contracts.stable, receiver.address)).to.equal(1_000_000n)
        const byStranger = chain.client.simulateContract({ ...stable, account: receiver, functionName: 'mint', args: [receiver.address, 1n] })
        expect(await revertOf(byStranger, abis.Stable)).to.equal('OwnableUnauthorizedAccount')
    })
})
