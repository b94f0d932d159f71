import { expect } from 'chai'
import { Address, createPublicClient, http, PublicClient, zeroAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { abis, loadArtifact } from '../../abi'
import { NativeContracts } from '../../common/config'
import { Anvil, startAnvil } from '../../devnet/anvil'
import { createPair, deployNativeContracts, deployPlatformToken, mintStable, NativeDeployment } from '../../devnet/deploy'
import { freePort } from '../support/ports'
import { CHAIN_ID } from './support'

describe('deployNativeContracts', () => {
    let anvil: Anvil
    let client: PublicClient
    // A deployer holding no coin: deployment must work at a zero gas price.
    const deployerPrivateKey = generatePrivateKey()
    const deployer = privateKeyToAccount(deployerPrivateKey)
    let first: NativeDeployment

    before(async () => {
        anvil = await startAnvil({ port: await freePort(), chainId: CHAIN_ID })
        client = createPublicClient({ transport: http(anvil.url) }) as PublicClient
    })

    after(async () => {
        await anvil?.stop()
    })

    const code = (address: Address) => client.getCode({ address })

    it('deploys WNATIVE, STABLE, factory and router, wired to each other, from an account holding no coin', async () => {
        expect(await client.getBalance({ address: deployer.address })).to.equal(0n)
        first = await deployNativeContracts({ rpcUrl: anvil.url, deployerPrivateKey })
        const { contracts } = first
        expect(first.deployed).to.equal(true)
        expect(first.startBlock).to.equal(1)
        expect(new Set(Object.values(contracts)).size).to.equal(4)

        expect(await code(contracts.wnative)).to.equal(loadArtifact('WNative').deployedBytecode)
        expect(await code(contracts.stable)).to.equal(loadArtifact('Stable').deployedBytecode)
        expect(await code(contracts.factory)).to.equal(loadArtifact('AmmFactory').deployedBytecode)
        const router = { address: contracts.router, abi: abis.AmmRouter }
        expect(await client.readContract({ ...router, functionName: 'factory' })).to.equal(contracts.factory)
        expect(await client.readContract({ ...router, functionName: 'WETH' })).to.equal(contracts.wnative)
        expect(await client.readContract({ address: contracts.stable, abi: abis.Stable, functionName: 'owner' })).to.equal(deployer.address)
        expect(await client.readContract({ address: contracts.factory, abi: abis.AmmFactory, functionName: 'feeToSetter' })).to.equal(deployer.address)
        expect(await client.readContract({ address: contracts.factory, abi: abis.AmmFactory, functionName: 'feeTo' })).to.equal(zeroAddress)
    })

    it('is idempotent: given the previous addresses it sends nothing and returns them with the same start block', async () => {
        const [nonce, block] = [await client.getTransactionCount({ address: deployer.address }), await client.getBlockNumber()]
        const again = await deployNativeContracts({ rpcUrl: anvil.url, deployerPrivateKey, previous: first.contracts })
        expect(again).to.deep.equal({ ...first, deployed: false })
        expect(await client.getTransactionCount({ address: deployer.address })).to.equal(nonce)
        expect(await client.getBlockNumber()).to.equal(block)
    })

    it('deploys afresh when a previous address does not hold the expected code', async () => {
        const swapped: NativeContracts = { ...first.contracts, wnative: first.contracts.stable, stable: first.contracts.wnative }
        const missing: NativeContracts = { ...first.contracts, router: '0x000000000000000000000000000000000000dead' }
        for (const previous of [swapped, missing]) {
            const result = await deployNativeContracts({ rpcUrl: anvil.url, deployerPrivateKey, previous })
            expect(result.deployed).to.equal(true)
            for (const address of Object.values(result.contracts)) expect(Object.values(first.contracts)).to.not.include(address)
        }
    })

    it('helpers for seeding: a PlatformToken, its pair with STABLE (created once), STABLE minted', async () => {
        const { contracts } = first
        const token = await deployPlatformToken(anvil.url, CHAIN_ID, deployer, {
            name: 'Seed', symbol: 'SEED', totalSupply: 10n ** 24n, ammFactory: contracts.factory,
        })
        expect(await client.readContract({ address: token, abi: abis.PlatformToken, functionName: 'balanceOf', args: [deployer.address] })).to.equal(10n ** 24n)

        const pair = await createPair(anvil.url, CHAIN_ID, deployer, contracts.factory, token, contracts.stable)
        expect(pair).to.not.equal(zeroAddress)
        expect(await createPair(anvil.url, CHAIN_ID, deployer, contracts.factory, contracts.stable, token)).to.equal(pair)
        expect(await client.readContract({ address: contracts.factory, abi: abis.AmmFactory, functionName: 'allPairsLength' })).to.equal(1n)

        await mintStable(anvil.url, CHAIN_ID, deployer, contracts.stable, pair, 5_000_000n)
        expect(await client.readContract({ address: contracts.stable, abi: abis.Stable, functionName: 'balanceOf', args: [pair] })).to.equal(5_000_000n)
    })
})
