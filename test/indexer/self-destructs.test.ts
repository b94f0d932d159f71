import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { Address, concat, createPublicClient, createWalletClient, encodeDeployData, getContractAddress, Hash, Hex, http, pad, PublicClient } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis, loadArtifact } from '../../abi'
import { Anvil, DEV_MNEMONIC, startAnvil } from '../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { ApiProcess, startApi } from '../support/api'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { freePort } from '../support/ports'
import { createTestDatabase } from '../support/postgres'

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
    let anvil: Anvil
    let client: PublicClient
    let dataDir: string
    let databaseUrl: string
    let indexer: IndexerProcess
    let api: ApiProcess
    let db: Client

    const chain = () => devnetChain(CHAIN_ID, anvil.url)
    const mined = async (hash: Hash) => {
        const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        expect(receipt.status, `transaction ${hash}`).to.equal('success')
        return hash
    }
    const send = async (to: Address, data: Hex) => {
        const wallet = createWalletClient({ account, chain: chain(), transport: http(anvil.url) })
        return mined(await wallet.sendTransaction({ to, data, ...ZERO_FEES }))
    }
    const { abi, bytecode, deployedBytecode } = loadArtifact('SelfDestructing')
    const initCode = encodeDeployData({ abi, bytecode, args: [account.address, false] })
    const viaCreate2 = getContractAddress({ from: CREATE2_DEPLOYER, salt: SALT, bytecode: initCode, opcode: 'CREATE2' })
    const createViaCreate2 = () => send(CREATE2_DEPLOYER, concat([SALT, initCode]))
    const indexed = async () => waitForIndexedBlock(databaseUrl, (await client.getBlock({ blockTag: 'latest' })).hash, indexer)
    const v2 = async (route: string) => {
        const res = await fetch(`${api.explorerUrl}/api/v2${route}`)
        expect(res.status, route).to.equal(200)
        return await res.json() as any
    }
    const shown = async (address: Address) => {
        const [page, contract] = await Promise.all([v2(`/addresses/${address}`), v2(`/smart-contracts/${address}`)])
        return { is_contract: page.is_contract, address: page.creation_status, contract: contract.creation_status, deployed_bytecode: contract.deployed_bytecode }
    }

    before(async () => {
        anvil = await startAnvil({ port: await freePort(), chainId: CHAIN_ID, hardfork: 'shanghai' })
        client = createPublicClient({ transport: http(anvil.url) }) as PublicClient
        dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'self-destructs-'))
        databaseUrl = await createTestDatabase('self_destructs')
        const env = { CHAIN_ID: String(CHAIN_ID), DATA_DIR: dataDir }
        indexer = startIndexer({ databaseUrl, rpcUrl: anvil.url, env: { ...env, INDEXER_FINALITY_CONFIRMATION: '2' } })
        api = await startApi({ databaseUrl, rpcUrl: anvil.url, env })
        db = new Client({ connectionString: databaseUrl })
        await db.connect()
    })

    after(async () => {
        await db?.end()
        await api?.stop()
        await indexer?.stop()
        await anvil?.stop()
        if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    })

    it('shows a contract destroyed at creation and one destroyed by a later call as selfdestructed, without deployed bytecode', async () => {
        const atCreation = await deployContract(anvil.url, CHAIN_ID, account, 'SelfDestructing', [account.address, true])
        await createViaCreate2()
        const kept = await deployContract(anvil.url, CHAIN_ID, account, 'SelfDestructing', [account.address, false])
        const wallet = createWalletClient({ account, chain: chain(), transport: http(anvil.url) })
        await mined(await wallet.writeContract({ address: viaCreate2, abi: abis.SelfDestructing, functionName: 'destroy', args: [account.address], ...ZERO_FEES }))
        // Before Cancun the later call deletes the code too.
        expect(await client.getCode({ address: viaCreate2 })).to.equal(undefined)
        await indexed()

        const destroyed = { is_contract: true, address: 'selfdestructed', contract: 'selfdestructed', deployed_bytecode: null }
        expect(await shown(atCreation.address), 'destroyed at creation').to.deep.equal(destroyed)
        expect(await shown(viaCreate2), 'destroyed later').to.deep.equal(destroyed)
        expect(await shown(kept.address), 'never destroyed').to.deep.equal({ is_contract: true, address: 'success', contract: 'success', deployed_bytecode: deployedBytecode })
    })

    it('clears it when CREATE2 makes the contract again at the same address', async () => {
        await createViaCreate2()
        expect(await client.getCode({ address: viaCreate2 })).to.equal(deployedBytecode)
        await indexed()
        expect(await shown(viaCreate2)).to.deep.equal({ is_contract: true, address: 'success', contract: 'success', deployed_bytecode: deployedBytecode })
        const { rows } = await db.query('SELECT self_destructed FROM address WHERE id = $1', [viaCreate2.toLowerCase()])
        expect(rows).to.deep.equal([{ self_destructed: false }])
    })
})
