import { expect } from 'chai'
import { Client } from 'pg'
import { Address, createWalletClient, Hash, http, parseEventLogs } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis, ContractName } from '../../../abi'
import { DEV_MNEMONIC } from '../../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../../devnet/deploy'
import { NativeContracts } from '../../../common/config'
import { ApiProcess, getShaped } from '../../support/api'
import { CHAIN_ID } from '../../support/chain'
import { IndexedChain, startIndexedChain } from '../../support/indexed-chain'
import { etherscanClient } from './etherscan-client'
import { unknownAddress } from './helpers'
import * as S from './shapes'

/** Etherscan's fields of each list, in its order, then the ones this API adds (docs/etherscan-api.md). */
const EXTRAS = ['logIndex', 'methodId', 'functionName']
const NFT_FIELDS = ['blockNumber', 'timeStamp', 'hash', 'nonce', 'blockHash', 'from', 'contractAddress', 'to', 'tokenID', 'tokenName', 'tokenSymbol',
    'tokenDecimal', 'transactionIndex', 'gas', 'gasPrice', 'gasUsed', 'cumulativeGasUsed', 'input', 'confirmations', ...EXTRAS]
const ERC1155_FIELDS = ['blockNumber', 'timeStamp', 'hash', 'nonce', 'blockHash', 'transactionIndex', 'gas', 'gasPrice', 'gasUsed', 'cumulativeGasUsed',
    'input', 'contractAddress', 'from', 'to', 'tokenID', 'tokenValue', 'tokenName', 'tokenSymbol', 'confirmations', ...EXTRAS]

const account = (index: number) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index })

/** One transfer as the node's logs tell it: a TransferBatch gives one per id, in the batch's order. */
interface NodeTransfer {
    hash: string
    logIndex: number
    from: string
    to: string
    tokenId: string
    value: string
}

/**
 * account&action=tokennfttx (ERC-721) and token1155tx (ERC-1155) on a chain of their own (the
 * shared stack mints no ERC-1155, and a TransferBatch there would change the other files' lists):
 * mints, transfers, a burn, single and batch ERC-1155 transfers and an ERC-20 mint, each answer
 * compared with the node's logs and receipts, the token_transfer rows and the v2 routes; filters,
 * page/offset walks whose pages end inside a batch, and the envelope for malformed requests.
 */
describe('chain API: Etherscan-style tokennfttx and token1155tx', function () {
    this.timeout(300_000)
    let indexed: IndexedChain
    /** the chain, while the history is made and after */
    let chain: Pick<IndexedChain, 'url' | 'client'> & { contracts: NativeContracts }
    let api: ApiProcess
    let db: Client
    let nft: Address
    let multi: Address
    let batchTransfer: Hash
    let head: number
    const [alice, bob, carol] = [account(0), account(1), account(2)]
    const [a, b, c] = [alice, bob, carol].map((x) => x.address.toLowerCase())
    const { es, result, expectError, walkPages } = etherscanClient(async () => api.explorerUrl)

    async function send(from: typeof alice, address: Address, abi: readonly unknown[], functionName: string, args: unknown[]): Promise<Hash> {
        const wallet = createWalletClient({ account: from, chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const hash = await wallet.writeContract({ address, abi, functionName, args, gas: 5_000_000n, ...ZERO_FEES } as never)
        const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        expect(receipt.status, `${functionName} on ${address}`).to.equal('success')
        return hash
    }
    const deploy = async (name: ContractName, args: unknown[]) => (await deployContract(chain.url, CHAIN_ID, alice, name, args as never)).address

    /** The history every test reads, made before the indexer starts. */
    async function seed(): Promise<void> {
        nft = await deploy('TestErc721', ['Test NFT', 'TNFT'])
        multi = await deploy('TestErc1155', ['https://meta.example/{id}.json'])
        const E721 = abis.TestErc721
        const E1155 = abis.TestErc1155
        for (const id of [1n, 2n, 3n]) await send(alice, nft, E721, 'mint', [alice.address, id, `data:application/json,{"name":"${id}"}`])
        await send(alice, nft, E721, 'safeTransferFrom', [alice.address, bob.address, 1n])
        await send(bob, nft, E721, 'transferFrom', [bob.address, carol.address, 1n])
        await send(alice, nft, E721, 'burn', [2n])
        await send(alice, multi, E1155, 'mint', [alice.address, 7n, 3n])
        await send(alice, multi, E1155, 'mintBatch', [alice.address, [1n, 2n, 3n], [10n, 20n, 1n]])
        batchTransfer = await send(alice, multi, E1155, 'safeBatchTransferFrom', [alice.address, bob.address, [1n, 2n, 3n], [4n, 5n, 1n], '0x'])
        await send(alice, multi, E1155, 'safeTransferFrom', [alice.address, bob.address, 7n, 2n, '0x'])
        await send(bob, multi, E1155, 'safeBatchTransferFrom', [bob.address, carol.address, [2n, 1n], [1n, 1n], '0x'])
        // An ERC-20 transfer to bob: listed by tokentx alone.
        await send(alice, chain.contracts.stable, abis.Stable, 'mint', [bob.address, 1_000_000n])
    }

    before(async () => {
        indexed = await startIndexedChain({
            name: 'etherscan_nfts',
            seed: async (started) => {
                chain = { url: started.url, client: started.client, contracts: started.contracts! }
                await seed()
            },
        })
        api = indexed.api
        db = indexed.db
        head = (await db.query('SELECT max(number)::int AS n FROM block')).rows[0].n
    })

    after(async () => {
        await indexed?.stop()
    })

    /** Every ERC-721 Transfer and ERC-1155 TransferSingle/TransferBatch the token emitted, a batch flattened, in chain order. */
    async function nodeTransfers(token: Address, abi: readonly unknown[]): Promise<NodeTransfer[]> {
        const logs = await chain.client.getLogs({ address: token, fromBlock: 0n, toBlock: 'latest' })
        const events = parseEventLogs({ abi: abi as never, logs }) as any[]
        return events.filter((e) => ['Transfer', 'TransferSingle', 'TransferBatch'].includes(e.eventName)).flatMap((e) => {
            const at = { hash: e.transactionHash, logIndex: e.logIndex, from: e.args.from.toLowerCase(), to: e.args.to.toLowerCase() }
            if (e.eventName === 'Transfer') return [{ ...at, tokenId: String(e.args.tokenId), value: '1' }]
            if (e.eventName === 'TransferSingle') return [{ ...at, tokenId: String(e.args.id), value: String(e.args.value) }]
            return (e.args.ids as bigint[]).map((id, i) => ({ ...at, tokenId: String(id), value: String(e.args.values[i]) }))
        })
    }

    const key = (t: { hash: string; logIndex: string | number; tokenID?: string; tokenId?: string }) => `${t.hash}/${t.logIndex}/${t.tokenID ?? t.tokenId}`
    const touches = (address: string) => (t: NodeTransfer) => t.from === address || t.to === address

    /** The transaction fields of a row, from the node's transaction, receipt and block. */
    async function expectTransactionFields(row: any, what: string): Promise<void> {
        const [tx, receipt] = await Promise.all([chain.client.getTransaction({ hash: row.hash }), chain.client.getTransactionReceipt({ hash: row.hash })])
        const block = await chain.client.getBlock({ blockNumber: tx.blockNumber! })
        expect(row.blockNumber, what).to.equal(String(tx.blockNumber))
        expect(row.timeStamp, what).to.equal(String(block.timestamp))
        expect(row.blockHash, what).to.equal(tx.blockHash)
        expect(row.nonce, what).to.equal(String(tx.nonce))
        expect(row.transactionIndex, what).to.equal(String(tx.transactionIndex))
        expect(row.gas, what).to.equal(String(tx.gas))
        expect(row.gasPrice, what).to.equal(String(receipt.effectiveGasPrice))
        expect(row.gasUsed, what).to.equal(String(receipt.gasUsed))
        expect(row.cumulativeGasUsed, what).to.equal(String(receipt.cumulativeGasUsed))
        expect(row.input, what).to.equal('deprecated')
        expect(row.methodId, what).to.equal(tx.input.slice(0, 10))
        expect(row.confirmations, what).to.equal(String(head - Number(tx.blockNumber)))
    }

    it('tokennfttx: an address\'s ERC-721 transfers (mint, transfer, burn), field by field with the node and the token row', async () => {
        const { rows: [token] } = await db.query('SELECT name, symbol FROM token WHERE id = $1', [nft.toLowerCase()])
        expect(token).to.deep.equal({ name: 'Test NFT', symbol: 'TNFT' })
        const onChain = (await nodeTransfers(nft, abis.TestErc721)).filter(touches(a))
        expect(onChain, 'three mints, a transfer and a burn of alice').to.have.length(5)
        const got = await result({ module: 'account', action: 'tokennfttx', address: alice.address, sort: 'asc' })
        expect(got.map(key)).to.deep.equal(onChain.map(key))
        for (const [i, t] of got.entries()) {
            const what = `tokennfttx[${i}] ${t.hash}`
            expect(Object.keys(t), what).to.deep.equal(NFT_FIELDS)
            expect(t.from, what).to.equal(onChain[i].from)
            expect(t.to, what).to.equal(onChain[i].to)
            expect(t.contractAddress, what).to.equal(nft.toLowerCase())
            expect(t.tokenName, what).to.equal('Test NFT')
            expect(t.tokenSymbol, what).to.equal('TNFT')
            expect(t.tokenDecimal, what).to.equal('0')
            await expectTransactionFields(t, what)
        }
        // Newest first without sort; the contract alone lists every holder's, carol's received one among them.
        const desc = await result({ module: 'account', action: 'tokennfttx', address: alice.address })
        expect(desc.map(key)).to.deep.equal(onChain.map(key).reverse())
        const all = await result({ module: 'account', action: 'tokennfttx', contractaddress: nft, sort: 'asc' })
        expect(all.map(key)).to.deep.equal((await nodeTransfers(nft, abis.TestErc721)).map(key))
        const carols = await result({ module: 'account', action: 'tokennfttx', address: carol.address })
        expect(carols.map((t: any) => [t.from, t.to, t.tokenID])).to.deep.equal([[b, c, '1']])
    })

    it('token1155tx: single transfers and one row per id of a TransferBatch, equal to the node\'s logs, the rows and /tokens/{h}/transfers', async () => {
        const onChain = await nodeTransfers(multi, abis.TestErc1155)
        expect(onChain, 'two single transfers and three batches (3 + 3 + 2 ids)').to.have.length(10)
        const got = await result({ module: 'account', action: 'token1155tx', contractaddress: multi, sort: 'asc' })
        expect(got.map(key)).to.deep.equal(onChain.map(key))
        const { rows: [token] } = await db.query('SELECT name, symbol FROM token WHERE id = $1', [multi.toLowerCase()])
        for (const [i, t] of got.entries()) {
            const what = `token1155tx[${i}] ${t.hash}/${t.logIndex}`
            expect(Object.keys(t), what).to.deep.equal(ERC1155_FIELDS)
            expect(t.from, what).to.equal(onChain[i].from)
            expect(t.to, what).to.equal(onChain[i].to)
            expect(t.tokenValue, what).to.equal(onChain[i].value)
            expect(t.contractAddress, what).to.equal(multi.toLowerCase())
            expect(t.tokenName, what).to.equal(token.name)
            expect(t.tokenSymbol, what).to.equal(token.symbol)
            await expectTransactionFields(t, what)
        }
        // The batch alice → bob: three rows of one log, in the batch's order.
        const batch = got.filter((t: any) => t.hash === batchTransfer)
        expect(batch.map((t: any) => [t.tokenID, t.tokenValue])).to.deep.equal([['1', '4'], ['2', '5'], ['3', '1']])
        expect(new Set(batch.map((t: any) => t.logIndex)).size).to.equal(1)

        // The v2 list of the token (newest first) says the same, transfer by transfer.
        const v2 = await getShaped(api, `/tokens/${multi}/transfers`, S.page(S.TokenTransfer))
        expect(v2.items.map((tt: any) => [tt.transaction_hash, String(tt.log_index), tt.total.token_id, tt.total.value, tt.from.hash.toLowerCase(), tt.to.hash.toLowerCase()]))
            .to.deep.equal(got.map((t: any) => [t.hash, t.logIndex, t.tokenID, t.tokenValue, t.from, t.to]).reverse())

        // Newest first without sort: a batch's rows last position first.
        const desc = await result({ module: 'account', action: 'token1155tx', contractaddress: multi })
        expect(desc.map(key)).to.deep.equal(onChain.map(key).reverse())
    })

    it('a TransferBatch\'s rows are listed by their position in the batch whatever order they were stored in', async () => {
        // The indexer writes a batch in its order, so an index scan returns it so by chance; rewritten as positions 2, 0, 1
        // (the same rows), only the position in the ORDER BY keeps the batch's order.
        await db.query('BEGIN')
        try {
            const { rows } = await db.query('DELETE FROM token_transfer WHERE transaction_hash = $1 RETURNING *', [batchTransfer])
            expect(rows.map((r) => r.batch_index).sort()).to.deep.equal([0, 1, 2])
            for (const position of [2, 0, 1]) {
                const row = rows.find((r) => r.batch_index === position)
                const columns = Object.keys(row)
                await db.query(`INSERT INTO token_transfer (${columns.map((k) => `"${k}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
                    columns.map((k) => row[k]))
            }
            await db.query('COMMIT')
        } catch (err) {
            await db.query('ROLLBACK')
            throw err
        }
        for (const query of [{ contractaddress: multi }, { address: b }, { address: a, contractaddress: multi }]) {
            const asc = await result({ module: 'account', action: 'token1155tx', ...query, sort: 'asc' })
            const what = JSON.stringify(query)
            expect(asc.filter((t: any) => t.hash === batchTransfer).map((t: any) => t.tokenID), what).to.deep.equal(['1', '2', '3'])
            const desc = await result({ module: 'account', action: 'token1155tx', ...query, sort: 'desc' })
            expect(desc.filter((t: any) => t.hash === batchTransfer).map((t: any) => t.tokenID), what).to.deep.equal(['3', '2', '1'])
            // A page of one row at each position of the batch.
            const walked = await walkPages({ module: 'account', action: 'token1155tx', ...query, sort: 'asc' }, 1, 'No token transfers found')
            expect(walked.map(key), what).to.deep.equal(asc.map(key))
        }
    })

    it('address, contractaddress and the block range filter both lists; each lists its standard alone', async () => {
        const erc1155 = await nodeTransfers(multi, abis.TestErc1155)
        for (const address of [a, b, c]) {
            const mine = await result({ module: 'account', action: 'token1155tx', address, sort: 'asc' })
            expect(mine.map(key), address).to.deep.equal(erc1155.filter(touches(address)).map(key))
            const withToken = await result({ module: 'account', action: 'token1155tx', address, contractaddress: multi, sort: 'asc' })
            expect(withToken.map(key), address).to.deep.equal(mine.map(key))
        }
        // Bob's rows equal the token_transfer rows of either side of him.
        const { rows } = await db.query(
            `SELECT transaction_hash, log_index, token_id::text FROM token_transfer WHERE token_type = 'ERC-1155' AND ("from" = $1 OR "to" = $1)
              ORDER BY block_number, log_index, batch_index`, [b])
        const bobs = await result({ module: 'account', action: 'token1155tx', address: b, sort: 'asc' })
        expect(bobs.map(key)).to.deep.equal(rows.map((r) => `${r.transaction_hash}/${r.log_index}/${r.token_id}`))

        // startblock = endblock = the batch's block: its three rows only.
        const blockNumber = Number((await chain.client.getTransactionReceipt({ hash: batchTransfer })).blockNumber)
        const inBlock = await result({ module: 'account', action: 'token1155tx', address: b, startblock: blockNumber, endblock: blockNumber, sort: 'asc' })
        expect(inBlock.map((t: any) => t.tokenID)).to.deep.equal(['1', '2', '3'])
        const after = await result({ module: 'account', action: 'token1155tx', address: b, startblock: blockNumber + 1, endblock: '99999999999', sort: 'asc' })
        expect(after.map(key)).to.deep.equal(bobs.filter((t: any) => Number(t.blockNumber) > blockNumber).map(key))
        await expectError({ module: 'account', action: 'token1155tx', address: b, startblock: head + 1 }, 'No token transfers found', { result: [] })

        // Each standard in its own list: bob's STABLE mint in tokentx alone, the NFTs never there.
        const bobErc20 = await result({ module: 'account', action: 'tokentx', address: b })
        expect(bobErc20.map((t: any) => [t.contractAddress, t.value])).to.deep.equal([[chain.contracts.stable.toLowerCase(), '1000000']])
        const bobNfts = await result({ module: 'account', action: 'tokennfttx', address: b, sort: 'asc' })
        expect(bobNfts.every((t: any) => t.contractAddress === nft.toLowerCase())).to.equal(true)
        for (const [action, contractaddress] of [['tokentx', nft], ['tokentx', multi], ['tokennfttx', multi], ['tokennfttx', chain.contracts.stable],
            ['token1155tx', nft], ['token1155tx', chain.contracts.stable]]) {
            await expectError({ module: 'account', action, contractaddress }, 'No token transfers found', { result: [] })
        }
        await expectError({ module: 'account', action: 'tokennfttx', address: unknownAddress() }, 'No token transfers found', { result: [] })
        await expectError({ module: 'account', action: 'token1155tx', address: unknownAddress() }, 'No token transfers found', { result: [] })
        // Action names are case-insensitive, as every other.
        expect((await result({ module: 'account', action: 'TokenNftTx', address: c })).map(key)).to.deep.equal(
            (await result({ module: 'account', action: 'tokennfttx', address: c })).map(key))
    })

    it('page/offset walked to the end equals the whole list in both orders, with pages that end inside a batch', async () => {
        for (const sort of ['asc', 'desc'] as const) {
            const whole = (await result({ module: 'account', action: 'token1155tx', contractaddress: multi, sort })).map(key)
            for (const offset of [1, 2, 4]) {
                const walked = await walkPages({ module: 'account', action: 'token1155tx', contractaddress: multi, sort }, offset, 'No token transfers found')
                expect(walked.map(key), `${sort}, offset ${offset}`).to.deep.equal(whole)
            }
            const nfts = (await result({ module: 'account', action: 'tokennfttx', address: a, sort })).map(key)
            const walked = await walkPages({ module: 'account', action: 'tokennfttx', address: a, sort }, 2, 'No token transfers found')
            expect(walked.map(key), `tokennfttx ${sort}`).to.deep.equal(nfts)
        }
    })

    it('malformed parameters answer the envelope with HTTP 200 and Blockscout\'s messages, never a 500', async () => {
        for (const action of ['tokennfttx', 'token1155tx']) {
            await expectError({ module: 'account', action }, 'Query parameter address or contractaddress is required')
            await expectError({ module: 'account', action, address: '0x12' }, 'Invalid address format')
            await expectError({ module: 'account', action, contractaddress: 'TNFT' }, 'Invalid contract address format')
            await expectError({ module: 'account', action, address: a, contractaddress: `${multi}00` }, 'Invalid contract address format')
            for (const [k, value] of [['page', 'x'], ['page', '0'], ['offset', '1.5'], ['offset', '-1'], ['sort', 'up'], ['startblock', 'latest'], ['endblock', '-5']]) {
                await expectError({ module: 'account', action, address: a, [k]: value }, `Invalid \`${k}\` param`)
            }
            await expectError({ module: 'account', action, address: a, page: 2, offset: 10_000 },
                'Result window is too large, PageNo x Offset size must be less than or equal to 10000')
            await expectError(`/api?module=account&action=${action}&address=${a}&address=${b}`, 'Invalid address format')
            await expectError(`/api?module=account&action=${action}&contractaddress=${multi}&contractaddress=${nft}`, 'Invalid contract address format')
            const res = await es(`/api?module=account&action=${action}&address[x]=${a}`)
            expect(res.status, res.text).to.equal(200)
            expect(res.body.status, res.text).to.equal('0')
        }
    })
})
