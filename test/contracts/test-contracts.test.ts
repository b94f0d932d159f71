import { expect } from 'chai'
import { hexToString, parseEventLogs } from 'viem'
import { abis } from '../../abi'
import { revertOf, TestChain, TX } from './support'

/** The odd contracts the indexer's tests deploy behave as those tests assume. */
describe('test-only contracts (abi/test/)', () => {
    let chain: TestChain
    const holder = TestChain.account(18)

    before(async () => {
        chain = await TestChain.start()
    })

    after(async () => {
        await chain?.stop()
    })

    it('Bytes32Token answers name() and symbol() with bytes32, like MKR', async () => {
        const token = await chain.deploy('Bytes32Token', [])
        const name = await chain.client.readContract({ address: token, abi: abis.Bytes32Token, functionName: 'name' })
        const symbol = await chain.client.readContract({ address: token, abi: abis.Bytes32Token, functionName: 'symbol' })
        expect(hexToString(name, { size: 32 })).to.equal('Bytes Token')
        expect(hexToString(symbol, { size: 32 })).to.equal('BYT')
        const receipt = await chain.mined(chain.wallet(holder).writeContract({ address: token, abi: abis.Bytes32Token, functionName: 'mint', args: [holder.address, 5n], ...TX }))
        expect(parseEventLogs({ abi: abis.Bytes32Token, eventName: 'Transfer', logs: receipt.logs })).to.have.length(1)
    })

    it('RevertingNameToken reverts in name() and decimals() but answers symbol()', async () => {
        const token = await chain.deploy('RevertingNameToken', [])
        expect(await revertOf(chain.client.readContract({ address: token, abi: abis.RevertingNameToken, functionName: 'name' }))).to.equal('no name')
        expect(await revertOf(chain.client.readContract({ address: token, abi: abis.RevertingNameToken, functionName: 'decimals' }))).to.equal('')
        expect(await chain.client.readContract({ address: token, abi: abis.RevertingNameToken, functionName: 'symbol' })).to.equal('RVT')
    })

    it('DemoNft lets anyone mint and emits the ERC-721 Transfer with the token id indexed', async () => {
        const nft = await chain.deploy('DemoNft', [])
        const receipt = await chain.mined(chain.wallet(holder).writeContract({ address: nft, abi: abis.DemoNft, functionName: 'mint', args: [holder.address, 42n], ...TX }))
        expect(receipt.logs[0].topics).to.have.length(4)
        expect(await chain.client.readContract({ address: nft, abi: abis.DemoNft, functionName: 'ownerOf', args: [42n] })).to.equal(holder.address)
    })
})
