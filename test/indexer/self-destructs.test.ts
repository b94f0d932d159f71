import { expect } from 'chai'
import { Address, concat, createWalletClient, encodeDeployData, getContractAddress, Hash, Hex, http, pad } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis, loadArtifact } from '../../abi'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { IndexedChain, startIndexedChain } from '../support/indexed-chain'

const CHAIN_ID = 778
/** anvil's default CREATE2 deployer (Arachnid's deterministic deployment proxy): input is salt || init code. */
const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C'
const SALT = pad('0x5e1f', { size: 32 })
const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 8 })

/**
 * Self-destructs before Cancun (docs/indexer.md#self-destructed-contracts), where SELFDESTRUCT deletes
 * a contract whenever it runs, not only in its creating transaction as the devnet's Prague does (the
 * zoo test covers that): the indexer reads the code rather than assuming a hardfork's rule. A contract
 * made by CREATE2, destroyed by a later call and made again at the same address is shown destroyed,
 * then created with success again.
 */
describe('self-destructed contracts on a chain before Cancun', function () {
    this.timeout(180_000)
    let chain: IndexedChain

    const viemChain = () => devnetChain(CHAIN_ID, chain.url)
    const mined = async (hash: Hash) => {
        const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        expect(receipt.status, `transaction ${hash}`).to.equal('success')
        return hash
    }
    const send = async (to: Address, data: Hex) => {
        const wallet = createWalletClient({ account, chain: viemChain(), transport: http(chain.url) })
        return mined(await wallet.sendTransaction({ to, data, ...ZERO_FEES }))
    }
    const { abi, bytecode, deployedBytecode } = loadArtifact('SelfDestructing')
    const initCode = encodeDeployData({ abi, bytecode, args: [account.address, false] })
    const viaCreate2 = getContractAddress({ from: CREATE2_DEPLOYER, salt: SALT, bytecode: initCode, opcode: 'CREATE2' })
    const createViaCreate2 = () => send(CREATE2_DEPLOYER, concat([SALT, initCode]))
    const indexed = () => chain.indexed()
    const v2 = async (route: string) => {
        const res = await fetch(`${chain.api.explorerUrl}/api/v2${route}`)
        expect(res.status, route).to.equal(200)
        return await res.json() as any
    }
    const shown = async (address: Address) => {
        const [page, contract] = await Promise.all([v2(`/addresses/${address}`), v2(`/smart-contracts/${address}`)])
        return { is_contract: page.is_contract, address: page.creation_status, contract: contract.creation_status, deployed_bytecode: contract.deployed_bytecode }
    }

    before(async () => {
        chain = await startIndexedChain({
            name: 'self_destructs', ownChain: { chainId: CHAIN_ID, hardfork: 'shanghai' }, indexerEnv: { INDEXER_FINALITY_CONFIRMATION: '2' },
        })
    })

    after(async () => {
        await chain?.stop()
    })

    it('shows a contract destroyed at creation and one destroyed by a later call as selfdestructed, without deployed bytecode', async () => {
        const atCreation = await deployContract(chain.url, CHAIN_ID, account, 'SelfDestructing', [account.address, true])
        await createViaCreate2()
        const kept = await deployContract(chain.url, CHAIN_ID, account, 'SelfDestructing', [account.address, false])
        const wallet = createWalletClient({ account, chain: viemChain(), transport: http(chain.url) })
        await mined(await wallet.writeContract({ address: viaCreate2, abi: abis.SelfDestructing, functionName: 'destroy', args: [account.address], ...ZERO_FEES }))
        // Before Cancun the later call deletes the code too.
        expect(await chain.client.getCode({ address: viaCreate2 })).to.equal(undefined)
        await indexed()

        const destroyed = { is_contract: true, address: 'selfdestructed', contract: 'selfdestructed', deployed_bytecode: null }
        expect(await shown(atCreation.address), 'destroyed at creation').to.deep.equal(destroyed)
        expect(await shown(viaCreate2), 'destroyed later').to.deep.equal(destroyed)
        expect(await shown(kept.address), 'never destroyed').to.deep.equal({ is_contract: true, address: 'success', contract: 'success', deployed_bytecode: deployedBytecode })
    })

    it('clears it when CREATE2 makes the contract again at the same address', async () => {
        await createViaCreate2()
        expect(await chain.client.getCode({ address: viaCreate2 })).to.equal(deployedBytecode)
        await indexed()
        expect(await shown(viaCreate2)).to.deep.equal({ is_contract: true, address: 'success', contract: 'success', deployed_bytecode: deployedBytecode })
        const { rows } = await chain.db.query('SELECT self_destructed FROM address WHERE id = $1', [viaCreate2.toLowerCase()])
        expect(rows).to.deep.equal([{ self_destructed: false }])
    })
})
