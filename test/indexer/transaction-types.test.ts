import { expect } from 'chai'
import { Client } from 'pg'
import { Hex, keccak256, parseTransaction, stringToHex, toBlobs, TransactionSerializable, zeroAddress } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { kzg } from '../../devnet/kzg'
import { BlockSingle, TransactionListItem, TransactionSingle, page } from '../api/chain/shapes'
import { startApi, ApiProcess } from '../support/api'
import { CHAIN_ID, headHash, startTestChain, TestChain } from '../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { expectDatabaseMatchesChain } from '../support/consistency'
import { createTestDatabase } from '../support/postgres'
import { AddressDetails } from '../../api/chain/schemas'

describe('indexer and chain API: every transaction type (legacy with and without EIP-155, 2930, 1559, 4844, 7702)', function () {
    this.timeout(600_000)
    let chain: TestChain
    let indexer: IndexerProcess
    let api: ApiProcess
    let db: Client
    let databaseUrl: string
    const sender = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 1 })
    const authority = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 2 })
    const hashes: Record<string, Hex> = {}
    let delegate: Hex

    const send = async (name: string, tx: TransactionSerializable) => {
        const raw = await sender.signTransaction(tx)
        hashes[name] = await chain.client.request({ method: 'eth_sendRawTransaction', params: [raw] })
        const receipt = await chain.client.waitForTransactionReceipt({ hash: hashes[name] })
        expect(receipt.status, name).to.equal('success')
    }
    const nonceOf = async (address: Hex) => chain.client.getTransactionCount({ address, blockTag: 'pending' })
    const v2 = async (path: string) => {
        const res = await fetch(`${api.explorerUrl}/api/v2${path}`)
        expect(res.status, path).to.equal(200)
        return res.json()
    }
    const indexHead = async () => waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer, 300_000)

    before(async () => {
        chain = await startTestChain({ hardfork: 'prague' })
        delegate = chain.contracts.wnative as Hex
        const to = authority.address
        const common = { to, value: 1n, gas: 100_000n }
        await send('legacyUnprotected', { ...common, type: 'legacy', gasPrice: 0n, nonce: await nonceOf(sender.address) })
        await send('legacy', { ...common, type: 'legacy', gasPrice: 0n, chainId: CHAIN_ID, nonce: await nonceOf(sender.address) })
        const accessList = [{ address: delegate, storageKeys: [keccak256(stringToHex('slot'))] }]
        await send('eip2930', { ...common, type: 'eip2930', gasPrice: 0n, chainId: CHAIN_ID, accessList, nonce: await nonceOf(sender.address) })
        await send('eip1559', { ...common, type: 'eip1559', maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, chainId: CHAIN_ID, accessList, nonce: await nonceOf(sender.address) })
        await send('eip4844', {
            ...common, type: 'eip4844', maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, chainId: CHAIN_ID,
            blobs: toBlobs({ data: stringToHex('a blob on the devnet') }), kzg: kzg(), maxFeePerBlobGas: 10n,
            nonce: await nonceOf(sender.address),
        })
        // The authority delegates to WNATIVE's code; a second authorization signed for another
        // chain and a third with a stale nonce are carried but not applied.
        const authNonce = await nonceOf(authority.address)
        const good = await authority.signAuthorization!({ contractAddress: delegate, chainId: CHAIN_ID, nonce: authNonce })
        const otherChain = await authority.signAuthorization!({ contractAddress: zeroAddress, chainId: 1, nonce: authNonce + 1 })
        const stale = await authority.signAuthorization!({ contractAddress: zeroAddress, chainId: CHAIN_ID, nonce: authNonce })
        await send('eip7702', {
            to, value: 0n, gas: 300_000n, type: 'eip7702', maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, chainId: CHAIN_ID,
            authorizationList: [good, otherChain, stale], nonce: await nonceOf(sender.address),
        })
        databaseUrl = await createTestDatabase('transaction_types')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        await indexHead()
        db = new Client({ connectionString: databaseUrl })
        await db.connect()
        api = await startApi({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
    })
    after(async () => {
        await db?.end().catch(() => undefined)
        await api?.stop()
        await indexer?.stop()
        await chain?.stop()
    })

    const row = async (name: string) => (await db.query('SELECT * FROM transaction WHERE id = $1', [hashes[name]])).rows[0]

    it('stores each type with its chain id and access list, as the node reports them', async () => {
        for (const name of Object.keys(hashes)) {
            const tx = await chain.client.getTransaction({ hash: hashes[name] })
            const stored = await row(name)
            expect(stored.type, name).to.equal({ legacy: 0, eip2930: 1, eip1559: 2, eip4844: 3, eip7702: 4 }[tx.type])
            expect(stored.access_list, name).to.deep.equal(tx.type === 'legacy' ? null : (tx.accessList ?? []).map((e) => ({
                address: e.address.toLowerCase(), storageKeys: e.storageKeys.map((k) => k.toLowerCase()),
            })))
        }
        // EIP-155 is told apart by the chain id the signature carries (v = 27/28 carries none).
        expect((await row('legacyUnprotected')).chain_id).to.equal(null)
        expect(parseTransaction(await rawOf(hashes.legacyUnprotected)).chainId).to.equal(undefined)
        expect((await row('legacy')).chain_id).to.equal(String(CHAIN_ID))
        expect((await row('eip2930')).access_list).to.have.length(1)
    })

    async function rawOf(hash: Hex): Promise<Hex> {
        return chain.client.request({ method: 'eth_getRawTransactionByHash' as any, params: [hash] as any }) as Promise<Hex>
    }

    it('stores the blob fields of the 4844 transaction and the blob gas of its block', async () => {
        const tx = await chain.client.getTransaction({ hash: hashes.eip4844 })
        const receipt = await chain.client.getTransactionReceipt({ hash: hashes.eip4844 })
        const stored = await row('eip4844')
        expect(stored.max_fee_per_blob_gas).to.equal('10')
        expect(stored.blob_versioned_hashes).to.deep.equal(tx.blobVersionedHashes)
        expect(stored.blob_gas_used).to.equal(String(receipt.blobGasUsed))
        expect(stored.blob_gas_price).to.equal(String(receipt.blobGasPrice))
        const block = await chain.client.getBlock({ blockNumber: receipt.blockNumber })
        const [b] = (await db.query('SELECT blob_gas_used, excess_blob_gas, blob_gas_price FROM block WHERE number = $1', [Number(receipt.blockNumber)])).rows
        expect(b).to.deep.equal({ blob_gas_used: String(block.blobGasUsed), excess_blob_gas: String(block.excessBlobGas), blob_gas_price: String(receipt.blobGasPrice) })
        expect(BigInt(b.blob_gas_used) > 0n).to.equal(true)
        for (const name of ['legacy', 'eip1559']) expect((await row(name)).blob_versioned_hashes, name).to.equal(null)
    })

    it('recovers each authority of the 7702 transaction, checks each authorization, and keeps the delegation the chain shows', async () => {
        const list = (await row('eip7702')).authorization_list
        expect(list.map((a: any) => [a.authority, a.status])).to.deep.equal([
            [authority.address.toLowerCase(), 'ok'],
            [authority.address.toLowerCase(), 'invalid_chain_id'],
            [authority.address.toLowerCase(), 'invalid_nonce'],
        ])
        expect(list[0]).to.include({ address: delegate.toLowerCase(), chainId: String(CHAIN_ID) })
        const code = await chain.client.getCode({ address: authority.address })
        expect(code).to.equal(`0xef0100${delegate.slice(2).toLowerCase()}`)
        const [address] = (await db.query('SELECT is_contract, delegated_to FROM address WHERE id = $1', [authority.address.toLowerCase()])).rows
        expect(address).to.deep.equal({ is_contract: false, delegated_to: delegate.toLowerCase() })
    })

    it('serves Blockscout\'s fields: type, blob fields, authorization_list, blob gas on the block, the delegation on the address', async () => {
        for (const name of Object.keys(hashes)) {
            const tx = TransactionSingle.parse(await v2(`/transactions/${hashes[name]}`))
            expect(tx.type, name).to.equal((await row(name)).type)
        }
        const blob = TransactionSingle.parse(await v2(`/transactions/${hashes.eip4844}`))
        const stored = await row('eip4844')
        expect(blob).to.include({ max_fee_per_blob_gas: '10', blob_gas_used: stored.blob_gas_used, blob_gas_price: stored.blob_gas_price })
        expect(blob.burnt_blob_fee).to.equal(String(BigInt(stored.blob_gas_used) * BigInt(stored.blob_gas_price)))
        expect(blob.blob_versioned_hashes).to.deep.equal(stored.blob_versioned_hashes)
        expect(blob.transaction_types).to.include('blob_transaction')
        const legacy = TransactionSingle.parse(await v2(`/transactions/${hashes.legacy}`))
        expect(legacy).to.not.have.property('blob_versioned_hashes')

        const setCode = TransactionSingle.parse(await v2(`/transactions/${hashes.eip7702}`))
        expect(setCode.transaction_types).to.include('set_code_transaction')
        expect(setCode.authorization_list.map((a) => [a.address_hash, a.chain_id, a.authority, a.status])).to.deep.equal([
            [delegate, CHAIN_ID, authority.address, 'ok'],
            [zeroAddress, 1, authority.address, 'invalid_chain_id'],
            [zeroAddress, CHAIN_ID, authority.address, 'invalid_nonce'],
        ])

        const blobs = page(TransactionListItem).parse(await v2('/transactions?type=blob_transaction'))
        expect(blobs.items.map((t) => t.hash)).to.deep.equal([hashes.eip4844])

        const block = BlockSingle.parse(await v2(`/blocks/${stored.block_number}`))
        expect(block).to.include({ blob_transactions_count: 1, blob_gas_used: (await db.query('SELECT blob_gas_used FROM block WHERE number = $1', [stored.block_number])).rows[0].blob_gas_used })
        expect(block.burnt_blob_fees).to.equal(blob.burnt_blob_fee)

        const [{ name }] = (await db.query('SELECT name FROM verified_contract WHERE id = $1', [delegate.toLowerCase()])).rows
        const address = AddressDetails.parse(await v2(`/addresses/${authority.address}`))
        expect(address).to.deep.include({ is_contract: false, proxy_type: 'eip7702', implementations: [{ address_hash: delegate, name }] })
    })

    it('clears the delegation when a later authorization points at the zero address', async () => {
        const cleared = await authority.signAuthorization!({ contractAddress: zeroAddress, chainId: CHAIN_ID, nonce: await nonceOf(authority.address) })
        await send('clear', {
            to: authority.address, value: 0n, gas: 300_000n, type: 'eip7702', maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, chainId: CHAIN_ID,
            authorizationList: [cleared], nonce: await nonceOf(sender.address),
        })
        await indexHead()
        expect(await chain.client.getCode({ address: authority.address })).to.equal(undefined)
        const [address] = (await db.query('SELECT delegated_to FROM address WHERE id = $1', [authority.address.toLowerCase()])).rows
        expect(address.delegated_to).to.equal(null)
        const shown = AddressDetails.parse(await v2(`/addresses/${authority.address}`))
        expect(shown).to.deep.include({ proxy_type: null, implementations: [] })
    })

    it('holds what the node holds, every type included (the consistency check the sync and reorg suites run)', async () => {
        await indexHead()
        await expectDatabaseMatchesChain(databaseUrl, chain.url)
    })
})
