import { expect } from 'chai'
import { Client } from 'pg'
import { Address, createWalletClient, Hash, http } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis, ContractName } from '../../abi'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { CHAIN_ID, headHash, startTestChain, TestChain } from '../support/chain'
import { expectNftsMatchNode } from '../support/consistency'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { createTestDatabase } from '../support/postgres'

/**
 * NFT ownership (docs/indexer.md#nfts) against TestErc721 and TestErc1155: each standard told
 * apart, ERC-721 owners and ERC-1155 balances after mints, transfers, batch transfers and burns
 * (each equal to ownerOf / balanceOf), a TransferBatch flattened into one row per id, and a
 * reorganisation that drops transfers restoring the owner and balances before them.
 */
describe('indexer: NFT ownership and ERC-1155 balances', function () {
    this.timeout(300_000)
    let chain: TestChain
    let databaseUrl: string
    let indexer: IndexerProcess
    let db: Client
    const alice = mnemonicToAccount(DEV_MNEMONIC)
    const bob = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 1 })
    const [a, b] = [alice.address.toLowerCase(), bob.address.toLowerCase()]
    let nft: Address
    let multi: Address
    const lower = (x: string) => x.toLowerCase()

    const deploy = async (name: ContractName, args: unknown[]) => (await deployContract(chain.url, CHAIN_ID, alice, name, args as never)).address
    async function send(account: typeof alice, address: Address, abi: readonly unknown[], functionName: string, args: unknown[]): Promise<Hash> {
        const wallet = createWalletClient({ account, chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const hash = await wallet.writeContract({ address, abi, functionName, args, gas: 1_000_000n, ...ZERO_FEES } as never)
        const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        expect(receipt.status, `${functionName} on ${address}`).to.equal('success')
        return hash
    }
    const indexed = async () => waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer)
    const head = async () => Number(await chain.client.getBlockNumber({ cacheTime: 0 }))
    const owners = async () => Object.fromEntries((await db.query(
        'SELECT token_id::text, owner FROM token_instance WHERE token = $1 ORDER BY token_id', [lower(nft)])).rows.map((r) => [r.token_id, r.owner]))
    const balances = async () => Object.fromEntries((await db.query(
        'SELECT token_id::text, holder, value::text FROM nft_balance WHERE token = $1 ORDER BY token_id, holder', [lower(multi)])).rows.map((r) => [`${r.token_id}:${r.holder}`, r.value]))

    before(async () => {
        chain = await startTestChain()
        databaseUrl = await createTestDatabase('nfts')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        nft = await deploy('TestErc721', ['Test NFT', 'TNFT'])
        multi = await deploy('TestErc1155', ['https://meta.example/{id}.json'])
        db = new Client({ connectionString: databaseUrl })
        await db.connect()
    })

    after(async () => {
        await db?.end()
        await indexer?.stop()
        await chain?.stop()
    })

    it('keeps ERC-721 owners and ERC-1155 balances through mints, transfers, batch transfers and burns', async () => {
        for (const id of [1n, 2n, 3n]) await send(alice, nft, abis.TestErc721, 'mint', [alice.address, id, `data:application/json,{"name":"${id}"}`])
        await send(alice, nft, abis.TestErc721, 'safeTransferFrom', [alice.address, bob.address, 1n])
        await send(alice, nft, abis.TestErc721, 'burn', [2n])

        await send(alice, multi, abis.TestErc1155, 'mint', [alice.address, 1n, 10n])
        const mintBatch = await send(alice, multi, abis.TestErc1155, 'mintBatch', [bob.address, [1n, 2n, 3n], [5n, 6n, 7n]])
        await send(alice, multi, abis.TestErc1155, 'safeTransferFrom', [alice.address, bob.address, 1n, 4n, '0x'])
        await send(bob, multi, abis.TestErc1155, 'safeBatchTransferFrom', [bob.address, alice.address, [2n, 3n], [6n, 1n], '0x'])
        await send(alice, multi, abis.TestErc1155, 'burn', [alice.address, 1n, 6n])
        await indexed()

        const tokens = (await db.query('SELECT id, type, decimals, holder_count, instance_count, transfer_count FROM token WHERE id = ANY($1) ORDER BY type', [[lower(nft), lower(multi)]])).rows
        expect(tokens).to.deep.equal([
            { id: lower(multi), type: 'ERC-1155', decimals: null, holder_count: 2, instance_count: 3, transfer_count: 8 },
            { id: lower(nft), type: 'ERC-721', decimals: null, holder_count: 2, instance_count: 3, transfer_count: 5 },
        ])
        expect(await owners()).to.deep.equal({ 1: b, 2: '0x' + '0'.repeat(40), 3: a })
        // Emptied balances (bob's id 2, alice's id 1) are deleted.
        expect(await balances()).to.deep.equal({ [`1:${b}`]: '9', [`2:${a}`]: '6', [`3:${a}`]: '1', [`3:${b}`]: '6' })

        // The batch mint: one row per id, in the log's order, ids in chain order.
        const rows = (await db.query(
            'SELECT id, token_id::text, value::text, batch_index, log_index FROM token_transfer WHERE transaction_hash = $1 ORDER BY id', [mintBatch])).rows
        expect(rows.map((r) => [r.token_id, r.value, r.batch_index])).to.deep.equal([['1', '5', 0], ['2', '6', 1], ['3', '7', 2]])
        expect(rows.map((r) => r.id.slice(-7))).to.deep.equal(['-000000', '-000001', '-000002'])
        expect(new Set(rows.map((r) => r.log_index)).size, 'one log').to.equal(1)
        const [tx] = (await db.query('SELECT token_transfer_count FROM transaction WHERE id = $1', [mintBatch])).rows
        expect(tx.token_transfer_count, 'a transaction counts each row').to.equal(3)
        await expectNftsMatchNode(db, chain.url, await head())
    })

    it('a reorganisation that drops transfers restores the owner and the balances before them', async () => {
        const ownersBefore = await owners()
        const balancesBefore = await balances()
        const snapshot = await chain.client.request({ method: 'evm_snapshot' as any, params: [] as any })
        await send(bob, nft, abis.TestErc721, 'transferFrom', [bob.address, alice.address, 1n])
        await send(alice, nft, abis.TestErc721, 'mint', [bob.address, 4n, 'ipfs://x'])
        // Empties bob's id 1: its row is deleted on the branch, and must come back.
        await send(bob, multi, abis.TestErc1155, 'safeTransferFrom', [bob.address, alice.address, 1n, 9n, '0x'])
        await indexed()
        expect((await owners())['1'], 'on the branch').to.equal(a)
        expect((await balances())[`1:${b}`], 'on the branch').to.equal(undefined)
        await expectNftsMatchNode(db, chain.url, await head())

        await chain.client.request({ method: 'evm_revert' as any, params: [snapshot] as any })
        await chain.client.request({ method: 'anvil_mine' as any, params: ['0x4'] as any })
        await indexed()
        expect(await owners()).to.deep.equal(ownersBefore)
        expect(await balances()).to.deep.equal(balancesBefore)
        const [counts] = (await db.query('SELECT instance_count, transfer_count FROM token WHERE id = $1', [lower(nft)])).rows
        expect(counts).to.deep.equal({ instance_count: 3, transfer_count: 5 })
        await expectNftsMatchNode(db, chain.url, await head())
        expect(indexer.process.child.exitCode, indexer.output()).to.equal(null)
    })
})
