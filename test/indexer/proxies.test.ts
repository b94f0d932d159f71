import { expect } from 'chai'
import { Address, createWalletClient, getAddress, Hash, http } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis, ContractName } from '../../abi'
import * as S from '../../api/chain/schemas'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { CHAIN_ID } from '../support/chain'
import { expectProxiesMatchNode } from '../support/consistency'
import { IndexedChain, startIndexedChain } from '../support/indexed-chain'

/**
 * Proxy detection (docs/indexer.md#proxies) against the test proxies of contracts/test/: each kind
 * detected with the implementation the node holds, refreshed by Upgraded (a beacon's too), restored
 * by a reorganisation that drops the upgrade, and served by the chain API (docs/chain-api.md#proxies).
 */
describe('proxies: detection, upgrades, reorgs and the chain API', function () {
    this.timeout(300_000)
    let chain: IndexedChain
    const deployer = mnemonicToAccount(DEV_MNEMONIC)
    const c = {} as Record<'v1' | 'v2' | 'eip1967' | 'eip1822' | 'beacon' | 'beaconProxy' | 'safe' | 'factory' | 'clone', Address>

    const lower = (a: string) => a.toLowerCase()
    const deploy = async (name: ContractName, args: unknown[]) => (await deployContract(chain.url, CHAIN_ID, deployer, name, args as never)).address
    const wallet = () => createWalletClient({ account: deployer, chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
    async function send(address: Address, abi: readonly unknown[], functionName: string, args: unknown[]): Promise<Hash> {
        const hash = await wallet().writeContract({ address, abi, functionName, args, gas: 500_000n, ...ZERO_FEES } as never)
        const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        expect(receipt.status, `${functionName} on ${address}`).to.equal('success')
        return hash
    }
    const indexed = () => chain.indexed()
    const proxyRow = async (address: Address) =>
        (await chain.db.query('SELECT proxy_type, implementation, beacon FROM proxy_contract WHERE id = $1', [lower(address)])).rows[0]
    async function v2(path: string): Promise<any> {
        const res = await fetch(`${chain.api.explorerUrl}/api/v2${path}`)
        expect(res.status, path).to.equal(200)
        return res.json()
    }

    before(async () => {
        chain = await startIndexedChain({ name: 'proxies', api: false })
        c.v1 = await deploy('ProxyLogicV1', [])
        c.v2 = await deploy('ProxyLogicV2', [])
        c.eip1967 = await deploy('Eip1967Proxy', [c.v1])
        c.eip1822 = await deploy('Eip1822Proxy', [c.v1])
        c.beacon = await deploy('TestBeacon', [c.v1])
        c.beaconProxy = await deploy('TestBeaconProxy', [c.beacon])
        c.safe = await deploy('SafeLikeProxy', [c.v1])
        c.factory = await deploy('CloneFactory', [])
        const cloneTx = await send(c.factory, abis.CloneFactory, 'clone', [c.v1])
        const receipt = await chain.client.getTransactionReceipt({ hash: cloneTx })
        c.clone = getAddress('0x' + receipt.logs[0].data.slice(-40))
        await indexed()
        await chain.startApi()
    })

    after(async () => {
        await chain?.stop()
    })

    it('detects each kind at creation, with the implementation the node holds', async () => {
        const v1 = lower(c.v1)
        expect(await proxyRow(c.eip1967)).to.deep.equal({ proxy_type: 'eip1967', implementation: v1, beacon: null })
        expect(await proxyRow(c.eip1822)).to.deep.equal({ proxy_type: 'eip1822', implementation: v1, beacon: null })
        expect(await proxyRow(c.beaconProxy)).to.deep.equal({ proxy_type: 'eip1967_beacon', implementation: v1, beacon: lower(c.beacon) })
        expect(await proxyRow(c.safe)).to.deep.equal({ proxy_type: 'master_copy', implementation: v1, beacon: null })
        // Created by a call frame, not by a transaction.
        expect(await proxyRow(c.clone)).to.deep.equal({ proxy_type: 'eip1167', implementation: v1, beacon: null })
        // The implementations, the beacon and the factory are no proxies.
        for (const plain of [c.v1, c.v2, c.beacon, c.factory]) expect(await proxyRow(plain), plain).to.equal(undefined)
        // The proxies forward to the implementation they are said to: a call through each works.
        for (const proxy of [c.eip1967, c.eip1822, c.beaconProxy, c.safe, c.clone]) {
            expect(await chain.client.readContract({ address: proxy, abi: abis.ProxyLogicV1, functionName: 'version' }), proxy).to.equal(1n)
        }
        await expectProxiesMatchNode(chain.db, chain.url, Number(await chain.client.getBlockNumber({ cacheTime: 0 })))
    })

    it("refreshes on Upgraded: the proxy's own, and a beacon's for the proxies that follow it", async () => {
        await send(c.eip1967, abis.Eip1967Proxy, 'upgradeProxyTo', [c.v2])
        await send(c.beacon, abis.TestBeacon, 'upgradeTo', [c.v2])
        await indexed()
        expect(await proxyRow(c.eip1967)).to.deep.equal({ proxy_type: 'eip1967', implementation: lower(c.v2), beacon: null })
        expect(await proxyRow(c.beaconProxy)).to.deep.equal({ proxy_type: 'eip1967_beacon', implementation: lower(c.v2), beacon: lower(c.beacon) })
        expect(await proxyRow(c.eip1822), 'untouched').to.deep.equal({ proxy_type: 'eip1822', implementation: lower(c.v1), beacon: null })
        await expectProxiesMatchNode(chain.db, chain.url, Number(await chain.client.getBlockNumber({ cacheTime: 0 })))
    })

    it('a reorganisation that drops an upgrade restores the implementation before it', async () => {
        const snapshot = await chain.client.request({ method: 'evm_snapshot' as any, params: [] as any })
        await send(c.eip1967, abis.Eip1967Proxy, 'upgradeProxyTo', [c.v1])
        await send(c.beacon, abis.TestBeacon, 'upgradeTo', [c.v1])
        await indexed()
        expect((await proxyRow(c.eip1967)).implementation, 'upgraded on the branch').to.equal(lower(c.v1))
        expect((await proxyRow(c.beaconProxy)).implementation, 'upgraded on the branch').to.equal(lower(c.v1))

        await chain.client.request({ method: 'evm_revert' as any, params: [snapshot] as any })
        await chain.client.request({ method: 'anvil_mine' as any, params: ['0x4'] as any })
        await indexed()
        expect(await proxyRow(c.eip1967)).to.deep.equal({ proxy_type: 'eip1967', implementation: lower(c.v2), beacon: null })
        expect(await proxyRow(c.beaconProxy)).to.deep.equal({ proxy_type: 'eip1967_beacon', implementation: lower(c.v2), beacon: lower(c.beacon) })
        await expectProxiesMatchNode(chain.db, chain.url, Number(await chain.client.getBlockNumber({ cacheTime: 0 })))
        expect(chain.indexer.process.child.exitCode, chain.indexer.output()).to.equal(null)
    })

    it('/addresses/{proxy} and /smart-contracts/{proxy} show proxy_type and the verified implementation', async () => {
        const expected: [Address, string, Address, string][] = [
            [c.eip1967, 'eip1967', c.v2, 'ProxyLogicV2'],
            [c.eip1822, 'eip1822', c.v1, 'ProxyLogicV1'],
            [c.beaconProxy, 'eip1967_beacon', c.v2, 'ProxyLogicV2'],
            [c.safe, 'master_copy', c.v1, 'ProxyLogicV1'],
            [c.clone, 'eip1167', c.v1, 'ProxyLogicV1'],
        ]
        for (const [proxy, type, implementation, name] of expected) {
            const shown = { proxy_type: type, implementations: [{ address_hash: implementation, name }] }
            const address = await v2(`/addresses/${proxy}`)
            expect(S.AddressDetails.safeParse(address).success, `shape of /addresses/${proxy}`).to.equal(true)
            expect({ proxy_type: address.proxy_type, implementations: address.implementations }, `/addresses/${proxy}`).to.deep.equal(shown)
            const contract = await v2(`/smart-contracts/${proxy}`)
            expect(S.SmartContract.safeParse(contract).success, `shape of /smart-contracts/${proxy}`).to.equal(true)
            expect({ proxy_type: contract.proxy_type, implementations: contract.implementations }, `/smart-contracts/${proxy}`).to.deep.equal(shown)
        }
        for (const plain of [c.v1, c.beacon]) {
            const address = await v2(`/addresses/${plain}`)
            expect({ proxy_type: address.proxy_type, implementations: address.implementations }, plain).to.deep.equal({ proxy_type: null, implementations: [] })
        }
    })

    it("decodes a call to a proxy with its verified implementation's ABI", async () => {
        // ProxyLogicV1 and V2 share store(uint256)'s selector and name its parameter differently
        // (value, newValue); the ABIs known without the proxy's implementation decode it as V1's.
        const hash = await send(c.eip1967, abis.ProxyLogicV2, 'store', [21n])
        await indexed()
        expect(await chain.client.readContract({ address: c.eip1967, abi: abis.ProxyLogicV2, functionName: 'stored' })).to.equal(42n)
        const tx = await v2(`/transactions/${hash}`)
        expect(S.TransactionDetails.safeParse(tx).success, 'shape').to.equal(true)
        expect(tx.method).to.equal('store')
        expect(tx.decoded_input).to.deep.equal({
            method_id: '6057361d',
            method_call: 'store(uint256 newValue)',
            parameters: [{ name: 'newValue', type: 'uint256', value: '21' }],
        })
        // A call to the V1 clone decodes with V1's names.
        const cloneCall = await send(c.clone, abis.ProxyLogicV1, 'store', [5n])
        await indexed()
        expect((await v2(`/transactions/${cloneCall}`)).decoded_input.parameters).to.deep.equal([{ name: 'value', type: 'uint256', value: '5' }])
    })
})
