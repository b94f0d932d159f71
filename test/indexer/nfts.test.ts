import { expect } from 'chai'
import { Address, createWalletClient, getAddress, Hash, http, zeroAddress } from 'viem'
import { z } from 'zod'
import { mnemonicToAccount } from 'viem/accounts'
import { abis, ContractName } from '../../abi'
import { waitFor } from '../../common/processes'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import * as S from '../api/chain/shapes'
import { CHAIN_ID } from '../support/chain'
import { expectNftsMatchNode } from '../support/consistency'
import { IndexedChain, startIndexedChain } from '../support/indexed-chain'
import { repoPath } from '../support/paths'

/**
 * NFT ownership (docs/indexer.md#nfts) against TestErc721 and TestErc1155: each standard told
 * apart, ERC-721 owners and ERC-1155 balances after mints, transfers, batch transfers and burns
 * (each equal to ownerOf / balanceOf), a TransferBatch flattened into one row per id, and a
 * reorganisation that drops transfers restoring the owner and balances before them; then the chain
 * API's NFT routes (docs/chain-api.md#nfts) over what was indexed, shape-checked, and their paging
 * through a TransferBatch longer than a page.
 */
describe('indexer and chain API: NFT ownership and ERC-1155 balances', function () {
    this.timeout(300_000)
    let chain: IndexedChain
    let mintBatch: Hash
    let single1155: Hash
    const alice = mnemonicToAccount(DEV_MNEMONIC)
    const bob = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 1 })
    const [a, b] = [alice.address.toLowerCase(), bob.address.toLowerCase()]
    let nft: Address
    let multi: Address
    let legacy: Address
    const lower = (x: string) => x.toLowerCase()

    const deploy = async (name: ContractName, args: unknown[]) => (await deployContract(chain.url, CHAIN_ID, alice, name, args as never)).address
    async function send(account: typeof alice, address: Address, abi: readonly unknown[], functionName: string, args: unknown[]): Promise<Hash> {
        const wallet = createWalletClient({ account, chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const hash = await wallet.writeContract({ address, abi, functionName, args, gas: 5_000_000n, ...ZERO_FEES } as never)
        const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        expect(receipt.status, `${functionName} on ${address}`).to.equal('success')
        return hash
    }
    const indexed = () => chain.indexed()
    const head = async () => Number(await chain.client.getBlockNumber({ cacheTime: 0 }))
    const owners = async () => Object.fromEntries((await chain.db.query(
        'SELECT token_id::text, owner FROM token_instance WHERE token = $1 ORDER BY token_id', [lower(nft)])).rows.map((r) => [r.token_id, r.owner]))
    const balances = async () => Object.fromEntries((await chain.db.query(
        'SELECT token_id::text, holder, value::text FROM nft_balance WHERE token = $1 ORDER BY token_id, holder', [lower(multi)])).rows.map((r) => [`${r.token_id}:${r.holder}`, r.value]))

    before(async () => {
        // The api comes with the chain API's tests below.
        chain = await startIndexedChain({ name: 'nfts', api: false })
        nft = await deploy('TestErc721', ['Test NFT', 'TNFT'])
        multi = await deploy('TestErc1155', ['https://meta.example/{id}.json'])
    })

    after(async () => {
        await chain?.stop()
    })

    it('keeps ERC-721 owners and ERC-1155 balances through mints, transfers, batch transfers and burns', async () => {
        for (const id of [1n, 2n, 3n]) await send(alice, nft, abis.TestErc721, 'mint', [alice.address, id, `data:application/json,{"name":"${id}"}`])
        await send(alice, nft, abis.TestErc721, 'safeTransferFrom', [alice.address, bob.address, 1n])
        await send(alice, nft, abis.TestErc721, 'burn', [2n])

        await send(alice, multi, abis.TestErc1155, 'mint', [alice.address, 1n, 10n])
        mintBatch = await send(alice, multi, abis.TestErc1155, 'mintBatch', [bob.address, [1n, 2n, 3n], [5n, 6n, 7n]])
        single1155 = await send(alice, multi, abis.TestErc1155, 'safeTransferFrom', [alice.address, bob.address, 1n, 4n, '0x'])
        await send(bob, multi, abis.TestErc1155, 'safeBatchTransferFrom', [bob.address, alice.address, [2n, 3n], [6n, 1n], '0x'])
        await send(alice, multi, abis.TestErc1155, 'burn', [alice.address, 1n, 6n])
        await indexed()

        const tokens = (await chain.db.query('SELECT id, type, decimals, holder_count, instance_count, transfer_count FROM token WHERE id = ANY($1) ORDER BY type', [[lower(nft), lower(multi)]])).rows
        expect(tokens).to.deep.equal([
            { id: lower(multi), type: 'ERC-1155', decimals: null, holder_count: 2, instance_count: 3, transfer_count: 8 },
            { id: lower(nft), type: 'ERC-721', decimals: null, holder_count: 2, instance_count: 3, transfer_count: 5 },
        ])
        expect(await owners()).to.deep.equal({ 1: b, 2: '0x' + '0'.repeat(40), 3: a })
        // Emptied balances (bob's id 2, alice's id 1) are deleted.
        expect(await balances()).to.deep.equal({ [`1:${b}`]: '9', [`2:${a}`]: '6', [`3:${a}`]: '1', [`3:${b}`]: '6' })

        // The batch mint: one row per id, in the log's order, ids in chain order.
        const rows = (await chain.db.query(
            'SELECT id, token_id::text, value::text, batch_index, log_index FROM token_transfer WHERE transaction_hash = $1 ORDER BY id', [mintBatch])).rows
        expect(rows.map((r) => [r.token_id, r.value, r.batch_index])).to.deep.equal([['1', '5', 0], ['2', '6', 1], ['3', '7', 2]])
        expect(rows.map((r) => r.id.slice(-7))).to.deep.equal(['-000000', '-000001', '-000002'])
        expect(new Set(rows.map((r) => r.log_index)).size, 'one log').to.equal(1)
        const [tx] = (await chain.db.query('SELECT token_transfer_count FROM transaction WHERE id = $1', [mintBatch])).rows
        expect(tx.token_transfer_count, 'a transaction counts each row').to.equal(3)
        await expectNftsMatchNode(chain.db, chain.url, await head())
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
        await expectNftsMatchNode(chain.db, chain.url, await head())

        await chain.client.request({ method: 'evm_revert' as any, params: [snapshot] as any })
        await chain.client.request({ method: 'anvil_mine' as any, params: ['0x4'] as any })
        await indexed()
        expect(await owners()).to.deep.equal(ownersBefore)
        expect(await balances()).to.deep.equal(balancesBefore)
        const [counts] = (await chain.db.query('SELECT instance_count, transfer_count FROM token WHERE id = $1', [lower(nft)])).rows
        expect(counts).to.deep.equal({ instance_count: 3, transfer_count: 5 })
        await expectNftsMatchNode(chain.db, chain.url, await head())
        expect(chain.indexer.process.child.exitCode, chain.indexer.output()).to.equal(null)
    })

    async function get(path: string, query: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
        const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))
        const res = await fetch(`${chain.api.explorerUrl}/api/v2${path}${search.size ? `?${search}` : ''}`)
        return { status: res.status, body: await res.json() }
    }
    async function getOk<T extends z.ZodTypeAny>(path: string, schema: T, query: Record<string, unknown> = {}): Promise<z.infer<T>> {
        const { status, body } = await get(path, query)
        expect(status, `${path} ${JSON.stringify(query)}: ${JSON.stringify(body)}`).to.equal(200)
        const parsed = schema.safeParse(body)
        expect(parsed.success, `shape of ${path}: ${parsed.error?.message}`).to.equal(true)
        return parsed.data as z.infer<T>
    }
    /** Every item of a list, following next_page_params as a client does. */
    async function walk<T extends z.ZodTypeAny>(path: string, item: T, query: Record<string, unknown> = {}): Promise<{ items: z.infer<T>[]; pages: Record<string, unknown>[] }> {
        const items: z.infer<T>[] = []
        const pages: Record<string, unknown>[] = []
        let params: Record<string, unknown> | null = query
        while (params) {
            const page: { items: z.infer<T>[]; next_page_params: Record<string, unknown> | null } = await getOk(path, S.page(item), params)
            items.push(...page.items)
            if (page.next_page_params) pages.push(page.next_page_params)
            params = page.next_page_params && { ...query, ...page.next_page_params }
            expect(pages.length, 'pages').to.be.below(20)
        }
        return { items, pages }
    }
    const ids = (items: { id: string }[]) => items.map((i) => i.id)

    it('an ERC-721 whose Transfer carries the id as data (the ERC-20 shape) is told apart by ERC-165', async () => {
        const carol = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 2 })
        legacy = await deploy('LegacyErc721', [])
        await send(alice, legacy, abis.LegacyErc721, 'mint', [alice.address, 7n])
        await send(alice, legacy, abis.LegacyErc721, 'transfer', [carol.address, 7n])
        await indexed()
        const [token] = (await chain.db.query('SELECT type, decimals, holder_count, instance_count FROM token WHERE id = $1', [lower(legacy)])).rows
        expect(token).to.deep.equal({ type: 'ERC-721', decimals: null, holder_count: 1, instance_count: 1 })
        const transfers = (await chain.db.query('SELECT token_type, token_id::text, value FROM token_transfer WHERE token = $1 ORDER BY id', [lower(legacy)])).rows
        expect(transfers).to.deep.equal([{ token_type: 'ERC-721', token_id: '7', value: null }, { token_type: 'ERC-721', token_id: '7', value: null }])
        const [instance] = (await chain.db.query('SELECT owner FROM token_instance WHERE token = $1 AND token_id = 7', [lower(legacy)])).rows
        expect(instance.owner).to.equal(lower(carol.address))
        await expectNftsMatchNode(chain.db, chain.url, await head())
    })

    describe('chain API', () => {
        before(async () => {
            await chain.startApi()
        })

        it('/tokens/{h}/instances: highest id first, the ERC-721 owner (the zero address once burnt), holder_address_hash', async () => {
            const erc721 = await getOk(`/tokens/${nft}/instances`, S.page(S.Instance))
            expect(ids(erc721.items)).to.deep.equal(['3', '2', '1'])
            expect(erc721.items.map((i) => i.owner!.hash)).to.deep.equal([alice.address, zeroAddress, bob.address])
            expect(erc721.next_page_params).to.equal(null)
            expect(ids((await getOk(`/tokens/${nft}/instances`, S.page(S.Instance), { holder_address_hash: b })).items)).to.deep.equal(['1'])
            const erc1155 = await getOk(`/tokens/${multi}/instances`, S.page(S.Instance))
            expect(ids(erc1155.items)).to.deep.equal(['3', '2', '1'])
            expect(ids((await getOk(`/tokens/${multi}/instances`, S.page(S.Instance), { holder_address_hash: alice.address })).items)).to.deep.equal(['3', '2'])
            expect(ids((await getOk(`/tokens/${multi}/instances`, S.page(S.Instance), { holder_address_hash: b })).items)).to.deep.equal(['3', '1'])
            expect((await get(`/tokens/${multi}/instances`, { holder_address_hash: 'nope' })).status, 'bad holder').to.equal(422)
            expect((await get(`/tokens/${multi}/instances`, { unique_token: '-1' })).status, 'bad cursor').to.equal(422)
        })

        it('/tokens/{h}/instances/{id}: the instance, 404 for an unknown id or token, 400 for an id that is no uint256, 422 for a bad hash', async () => {
            const one = await getOk(`/tokens/${nft}/instances/1`, S.Instance)
            // The indexer's metadata fetcher reads the data: URI it was minted with, in the background.
            const fetched = await waitFor('instance 1\'s metadata', async () => (await getOk(`/tokens/${nft}/instances/1`, S.Instance)).metadata)
            expect(fetched).to.deep.equal({ name: '1' })
            expect({ id: one.id, owner: one.owner!.hash, token: one.token.address_hash, is_unique: one.is_unique }).to.deep.equal({ id: '1', owner: bob.address, token: getAddress(nft), is_unique: true })
            const held = await getOk(`/tokens/${multi}/instances/3`, S.Instance)
            expect({ owner: held.owner, type: held.token.type }).to.deep.equal({ owner: null, type: 'ERC-1155' })
            expect((await get(`/tokens/${nft}/instances/999`)).status).to.equal(404)
            expect((await get(`/tokens/${'0x' + '12'.repeat(20)}/instances/1`)).status, 'unknown token').to.equal(404)
            for (const bad of ['abc', '1e5', '-1', '0x10', (2n ** 256n).toString()]) {
                for (const suffix of ['', '/transfers', '/holders', '/transfers-count']) {
                    const res = await get(`/tokens/${nft}/instances/${encodeURIComponent(bad)}${suffix}`)
                    expect([res.status, res.body], `${bad}${suffix}`).to.deep.equal([400, { message: 'Invalid parameter(s)' }])
                }
            }
            expect((await get('/tokens/0x1234/instances/1')).status, 'bad hash').to.equal(422)
        })

        it('/tokens/{h}/instances/{id}/transfers, /holders and /transfers-count', async () => {
            const transfers = await getOk(`/tokens/${nft}/instances/1/transfers`, S.page(S.TokenTransfer))
            expect(transfers.items.map((t) => [t.type, (t.total as any).token_id])).to.deep.equal([['token_transfer', '1'], ['token_minting', '1']])
            const multiTransfers = await getOk(`/tokens/${multi}/instances/1/transfers`, S.page(S.TokenTransfer))
            expect(multiTransfers.items.map((t) => [t.type, t.total])).to.deep.equal([
                ['token_burning', { token_id: '1', value: '6', decimals: null, token_instance: null }],
                ['token_transfer', { token_id: '1', value: '4', decimals: null, token_instance: null }],
                ['token_minting', { token_id: '1', value: '5', decimals: null, token_instance: null }],
                ['token_minting', { token_id: '1', value: '10', decimals: null, token_instance: null }],
            ])
            const holders = async (token: Address, id: number) =>
                (await getOk(`/tokens/${token}/instances/${id}/holders`, S.page(S.Holder))).items.map((h) => [h.address.hash, h.value, h.token_id])
            expect(await holders(nft, 1)).to.deep.equal([[bob.address, '1', '1']])
            expect(await holders(nft, 2), 'burnt').to.deep.equal([])
            expect(await holders(multi, 3)).to.deep.equal([[bob.address, '6', '3'], [alice.address, '1', '3']])
            expect(await holders(multi, 1)).to.deep.equal([[bob.address, '9', '1']])
            const count = async (token: Address, id: number) => (await getOk(`/tokens/${token}/instances/${id}/transfers-count`, S.InstanceTransfersCount)).transfers_count
            expect([await count(nft, 1), await count(nft, 2), await count(multi, 1), await count(nft, 999)]).to.deep.equal([2, 2, 4, 0])
        })

        it('/addresses/{h}/nft and /nft/collections, with the type filter', async () => {
            const held = await getOk(`/addresses/${alice.address}/nft`, S.page(S.AddressNft))
            const shown = held.items.map((n) => [n.token.address_hash, n.id, n.token_type, n.value])
            const expected = [[getAddress(nft), '3', 'ERC-721', '1'], [getAddress(multi), '3', 'ERC-1155', '1'], [getAddress(multi), '2', 'ERC-1155', '6']]
                .sort((x, y) => (x[0].toLowerCase() < y[0].toLowerCase() ? 1 : x[0].toLowerCase() > y[0].toLowerCase() ? -1 : 0))
            expect(shown).to.deep.equal(expected)
            const only1155 = await getOk(`/addresses/${alice.address}/nft`, S.page(S.AddressNft), { type: 'ERC-1155' })
            expect(only1155.items.map((n) => n.id)).to.deep.equal(['3', '2'])
            expect((await get(`/addresses/${alice.address}/nft`, { type: 'ERC-20' })).status, 'not an NFT type').to.equal(422)
            const collections = await getOk(`/addresses/${alice.address}/nft/collections`, S.page(S.AddressNftCollection))
            const byToken = Object.fromEntries(collections.items.map((c) => [c.token.address_hash, [c.amount, c.token_instances.map((i) => i.id)]]))
            expect(byToken).to.deep.equal({ [getAddress(nft)]: ['1', ['3']], [getAddress(multi)]: ['7', ['3', '2']] })
            const only721 = await getOk(`/addresses/${bob.address}/nft/collections`, S.page(S.AddressNftCollection), { type: 'ERC-721' })
            expect(only721.items.map((c) => c.token.address_hash)).to.deep.equal([getAddress(nft)])
            expect((await getOk(`/addresses/${'0x' + '34'.repeat(20)}/nft`, S.page(S.AddressNft))).items, 'an unknown address').to.deep.equal([])
        })

        it('/tokens?type=ERC-721,ERC-1155, the counters and the transfers of an ERC-1155', async () => {
            const tokens = await getOk('/tokens', S.page(S.Token), { type: 'ERC-721,ERC-1155' })
            expect(tokens.items.map((t) => t.address_hash).sort()).to.deep.equal([getAddress(nft), getAddress(multi), getAddress(legacy)].sort())
            expect((await getOk('/tokens', S.page(S.Token), { type: 'ERC-1155' })).items.map((t) => t.type)).to.deep.equal(['ERC-1155'])
            const holders = (await getOk(`/tokens/${multi}/holders`, S.page(S.Holder))).items.map((h) => [h.address.hash, h.value, h.token_id])
            const [first] = [alice.address, bob.address].sort((x, y) => (x.toLowerCase() > y.toLowerCase() ? -1 : 1))
            expect(holders, 'per holder and token id').to.deep.equal([
                [bob.address, '9', '1'],
                ...(first === alice.address ? [[alice.address, '6', '2'], [bob.address, '6', '3']] : [[bob.address, '6', '3'], [alice.address, '6', '2']]),
                [alice.address, '1', '3'],
            ])
            expect(await getOk(`/tokens/${multi}/counters`, S.TokenCounters)).to.deep.equal({ token_holders_count: '2', transfers_count: '8' })
            expect(await getOk(`/tokens/${nft}/counters`, S.TokenCounters)).to.deep.equal({ token_holders_count: '2', transfers_count: '5' })
            const batch = await getOk(`/transactions/${mintBatch}/token-transfers`, S.page(S.TokenTransfer))
            expect(batch.items.map((t) => [(t.total as any).token_id, (t.total as any).value])).to.deep.equal([['1', '5'], ['2', '6'], ['3', '7']])
            expect(new Set(batch.items.map((t) => t.log_index)).size, 'one log').to.equal(1)
        })

        it('/transactions/{h}/state-changes of an ERC-1155 transfer: per holder and token id, balances from the node', async () => {
            const changes = await getOk(`/transactions/${single1155}/state-changes`, S.page(S.StateChange))
            const tokens = changes.items.filter((i) => i.type === 'token')
                .map((i) => [i.address.hash, i.token_id, i.balance_before, i.balance_after, i.change])
            expect(tokens).to.have.deep.members([[alice.address, '1', '10', '6', '-4'], [bob.address, '1', '5', '9', '4']])
        })

        it('pages through a TransferBatch longer than a page: every list resumes inside the batch', async () => {
            const batchIds = Array.from({ length: 61 }, (_, i) => BigInt(100 + i))
            const hash = await send(alice, multi, abis.TestErc1155, 'mintBatch', [bob.address, batchIds, batchIds.map(() => 2n)])
            await indexed()
            const stored = (await chain.db.query('SELECT token_id::text FROM token_transfer WHERE token = $1 ORDER BY id DESC', [lower(multi)])).rows.map((r) => r.token_id)
            const transfers = await walk(`/tokens/${multi}/transfers`, S.TokenTransfer)
            expect(transfers.items.map((t) => (t.total as any).token_id), 'token transfers').to.deep.equal(stored)
            expect(transfers.pages[0], 'a cursor inside the batch').to.include({ index_in_batch: 11, batch_transaction_hash: hash })
            const ofBob = await walk(`/addresses/${bob.address}/token-transfers`, S.TokenTransfer, { type: 'ERC-1155' })
            const bobStored = (await chain.db.query(`SELECT token_id::text FROM token_transfer WHERE token = $1 AND $2 IN ("from", "to") ORDER BY id DESC`, [lower(multi), b])).rows.map((r) => r.token_id)
            expect(ofBob.items.map((t) => (t.total as any).token_id), 'address token transfers').to.deep.equal(bobStored)
            const ofTx = await walk(`/transactions/${hash}/token-transfers`, S.TokenTransfer)
            expect(ofTx.items.map((t) => (t.total as any).token_id), 'transaction token transfers').to.deep.equal(batchIds.map(String))
            const all = await walk('/token-transfers', S.TokenTransfer, { type: 'ERC-1155' })
            expect(all.items.map((t) => (t.total as any).token_id), 'chain token transfers').to.deep.equal(stored)
            const instances = await walk(`/tokens/${multi}/instances`, S.Instance)
            expect(ids(instances.items)).to.deep.equal([...batchIds.map(String).reverse(), '3', '2', '1'])
            expect(instances.pages[0]).to.deep.equal({ unique_token: 111 })
            const holders = await walk(`/tokens/${multi}/holders`, S.Holder)
            const storedHolders = (await chain.db.query(
                'SELECT holder, value::text, token_id::text FROM nft_balance WHERE token = $1 ORDER BY value DESC, holder DESC, token_id DESC', [lower(multi)])).rows
            expect(holders.items.map((h) => [h.address.hash.toLowerCase(), h.value, h.token_id]), 'holders per token id')
                .to.deep.equal(storedHolders.map((h) => [h.holder, h.value, h.token_id]))
            expect(holders.pages[0]).to.include({ items_count: 50 }).and.to.have.property('token_id')
            const bobs = await walk(`/addresses/${bob.address}/nft`, S.AddressNft, { type: 'ERC-1155' })
            expect(ids(bobs.items)).to.deep.equal([...batchIds.map(String).reverse(), '3', '1'])
            await expectNftsMatchNode(chain.db, chain.url, await head())
        })
    })

    describe('migration', () => {
        it('fills the ERC-721 instances of a database indexed before it from the stored transfers', async () => {
            const erc721 = `SELECT i.id, i.owner, i.transfer_count, i.first_block, k.instance_count FROM token_instance i
                JOIN token k ON k.id = i.token AND k.type = 'ERC-721' ORDER BY i.id`
            const indexed = (await chain.db.query(erc721)).rows
            expect(indexed.length).to.equal(4)
            // eslint-disable-next-line @typescript-eslint/no-require-imports -- a migration is plain CommonJS
            const Migration = require(repoPath('db', 'migrations', '1795435300000-Nfts.js'))
            const migration = new Migration()
            await chain.db.query('BEGIN')
            try {
                await migration.down(chain.db)
                await migration.up(chain.db)
                expect((await chain.db.query(erc721)).rows).to.deep.equal(indexed)
                expect((await chain.db.query('SELECT count(*)::int AS n FROM nft_balance')).rows[0].n, 'ERC-1155 came with the migration').to.equal(0)
            } finally {
                await chain.db.query('ROLLBACK')
            }
        })
    })
})
