import { expect } from 'chai'
import { Address, parseEventLogs, parseUnits, zeroAddress } from 'viem'
import { abis } from '../../abi'
import { expectRevert, revertOf, TestChain, TX } from './support'

describe('PlatformToken (POST /api/token/deploy)', () => {
    let chain: TestChain
    const platform = TestChain.account(13) // the platform's deploying wallet: holds no coin
    const destination = TestChain.account(14)
    const stranger = TestChain.account(15)
    const feeAddress = TestChain.account(16).address

    before(async () => {
        chain = await TestChain.start()
    })

    after(async () => {
        await chain?.stop()
    })

    type ConstructorArgs = [string, string, string, number, bigint, number, number, Address, boolean, Address]
    const args = (overrides: Partial<{ decimals: number; buyingFee: number; sellingFee: number; feeAddress: Address; mintable: boolean }> = {}): ConstructorArgs => [
        'Token', 'TKN', 'A token', overrides.decimals ?? 18, 1000n, overrides.buyingFee ?? 0, overrides.sellingFee ?? 0,
        overrides.feeAddress ?? zeroAddress, overrides.mintable ?? false, chain.contracts.factory,
    ]
    const read = (token: Address) => ({
        decimals: () => chain.client.readContract({ address: token, abi: abis.PlatformToken, functionName: 'decimals' }),
    })

    it('refuses decimals 19 and 255 with DECIMALS_OUT_OF_RANGE, and accepts 0 and 18', async () => {
        for (const decimals of [19, 255]) {
            await expectRevert(chain.simulateDeploy('PlatformToken', args({ decimals }), platform), 'DECIMALS_OUT_OF_RANGE', abis.PlatformToken)
        }
        for (const decimals of [0, 18]) {
            const token = await chain.deploy('PlatformToken', args({ decimals }), platform)
            expect(await read(token).decimals()).to.equal(decimals)
        }
    })

    it('refuses a fee above 25% (FEE_TOO_HIGH) and a fee without a fee address (FEE_ADDRESS_REQUIRED)', async () => {
        await expectRevert(chain.simulateDeploy('PlatformToken', args({ buyingFee: 2501, feeAddress }), platform), 'FEE_TOO_HIGH', abis.PlatformToken)
        await expectRevert(chain.simulateDeploy('PlatformToken', args({ sellingFee: 2501, feeAddress }), platform), 'FEE_TOO_HIGH', abis.PlatformToken)
        await expectRevert(chain.simulateDeploy('PlatformToken', args({ sellingFee: 1 }), platform), 'FEE_ADDRESS_REQUIRED', abis.PlatformToken)
        const token = await chain.deploy('PlatformToken', args({ buyingFee: 2500, sellingFee: 2500, feeAddress }), platform)
        expect(await chain.client.readContract({ address: token, abi: abis.PlatformToken, functionName: 'sellingFee' })).to.equal(2500)
    })

    it("honours the platform's defaults: 18 decimals, no fees, no fee address, not mintable, empty description", async () => {
        const supply = parseUnits('1000000', 18)
        const token = await chain.deployToken({ name: 'Plain', symbol: 'PLN', totalSupply: supply }, platform)
        const view = async <F extends 'decimals' | 'buyingFee' | 'sellingFee' | 'feeAddress' | 'mintable' | 'description' | 'owner' | 'totalSupply' | 'name' | 'symbol'>(functionName: F) =>
            chain.client.readContract({ address: token, abi: abis.PlatformToken, functionName })
        expect(await view('name')).to.equal('Plain')
        expect(await view('symbol')).to.equal('PLN')
        expect(await view('decimals')).to.equal(18)
        expect(await view('buyingFee')).to.equal(0)
        expect(await view('sellingFee')).to.equal(0)
        expect(await view('feeAddress')).to.equal(zeroAddress)
        expect(await view('mintable')).to.equal(false)
        expect(await view('description')).to.equal('')
        expect(await view('owner')).to.equal(platform.address)
        expect(await view('totalSupply')).to.equal(supply)
        expect(await chain.balanceOf(token, platform.address)).to.equal(supply)

        // The platform's second transaction: the whole supply to the destination, free of fees.
        await chain.transfer(token, platform, destination.address, supply)
        expect(await chain.balanceOf(token, destination.address)).to.equal(supply)
    })

    it('keeps every given parameter', async () => {
        const token = await chain.deployToken({
            name: 'Full', symbol: 'FULL', description: 'All parameters set', decimals: 6, totalSupply: 5n,
            buyingFee: 150, sellingFee: 275, feeAddress, mintable: true,
        }, platform)
        const view = <F extends 'decimals' | 'buyingFee' | 'sellingFee' | 'feeAddress' | 'mintable' | 'description' | 'ammFactory'>(functionName: F) =>
            chain.client.readContract({ address: token, abi: abis.PlatformToken, functionName })
        expect(await view('description')).to.equal('All parameters set')
        expect(await view('decimals')).to.equal(6)
        expect(await view('buyingFee')).to.equal(150)
        expect(await view('sellingFee')).to.equal(275)
        expect(await view('feeAddress')).to.equal(feeAddress)
        expect(await view('mintable')).to.equal(true)
        expect(await view('ammFactory')).to.equal(chain.contracts.factory)
    })

    it('mints only when mintable, and only for the owner', async () => {
        const mintable = await chain.deployToken({ name: 'Mintable', symbol: 'MNT', totalSupply: 100n, mintable: true }, platform)
        const fixed = await chain.deployToken({ name: 'Fixed', symbol: 'FIX', totalSupply: 100n }, platform)
        const mint = (token: Address, account = platform) => chain.wallet(account).writeContract({
            address: token, abi: abis.PlatformToken, functionName: 'mint', args: [destination.address, 50n], ...TX,
        })
        const simulateMint = (token: Address, account = platform) => chain.client.simulateContract({
            account, address: token, abi: abis.PlatformToken, functionName: 'mint', args: [destination.address, 50n],
        })

        const receipt = await chain.mined(mint(mintable))
        const [minted] = parseEventLogs({ abi: abis.PlatformToken, eventName: 'Transfer', logs: receipt.logs })
        expect(minted.args).to.deep.equal({ from: zeroAddress, to: destination.address, value: 50n })
        expect(await chain.client.readContract({ address: mintable, abi: abis.PlatformToken, functionName: 'totalSupply' })).to.equal(150n)

        expect(await revertOf(simulateMint(mintable, stranger), abis.PlatformToken)).to.equal('OwnableUnauthorizedAccount')
        await expectRevert(simulateMint(fixed), 'NOT_MINTABLE')
        expect(await chain.client.readContract({ address: fixed, abi: abis.PlatformToken, functionName: 'totalSupply' })).to.equal(100n)
    })
})
