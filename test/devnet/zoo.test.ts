import { expect } from 'chai'
import * as fs from 'fs'
import { Address, getAddress, getContractAddress, Hash, parseTransaction } from 'viem'
import { z } from 'zod'
import { abis, loadArtifact } from '../../abi'
import { waitFor } from '../../common/processes'
import { DEVNET_HARDFORK } from '../../devnet'
import { Loopback } from '../../devnet/loopback'
import { startMetadataServer } from '../../devnet/metadata-server'
import { seedZoo, Zoo } from '../../devnet/zoo'
import * as S from '../api/chain/shapes'
import { getShaped } from '../support/api'
import { CHAIN_ID } from '../support/chain'
import { expectDatabaseMatchesChain } from '../support/consistency'
import { IndexedChain, startIndexedChain } from '../support/indexed-chain'
import { repoPath } from '../support/paths'

/**
 * The devnet zoo (docs/devnet.md#the-zoo) seeded on an anvil with the devnet's hardfork, indexed by
 * the real indexer and read back through the chain API as the explorer shows it: each proxy kind,
 * the odd tokens, the failures, the self-destructs and every transaction type; plus the metadata
 * server the zoo's NFTs point at.
 */
const E18 = 10n ** 18n

describe('devnet zoo: seeded, indexed and shown by the chain API', function () {
    this.timeout(300_000)
    let chain: IndexedChain
    let metadata: Loopback
    let zoo: Zoo

    const get = <T extends z.ZodTypeAny>(path: string, schema: T) => getShaped(chain.api, path, schema)
    const transaction = (hash: Hash) => get(`/transactions/${hash}`, S.TransactionSingle)
    const address = (hash: Address) => get(`/addresses/${hash}`, S.Address)
    const ContractPage = S.SmartContractVerified.or(S.SmartContractUnverified)

    before(async () => {
        metadata = await startMetadataServer()
        chain = await startIndexedChain({
            name: 'zoo',
            chain: { hardfork: DEVNET_HARDFORK },
            seed: async ({ url }) => {
                zoo = await seedZoo({ rpcUrl: url, chainId: CHAIN_ID, metadataUrl: metadata.url, setCode: DEVNET_HARDFORK === 'prague' })
            },
            // As npm start does: the metadata server is on loopback, which the fetcher refuses unless named.
            indexerEnv: { NFT_METADATA_ALLOW_HOSTS: new URL(metadata.url).host },
        })
    })

    after(async () => {
        await chain?.stop()
        await metadata?.close()
    })

    it('shows each proxy kind with its proxy_type and implementation, the EIP-1967 proxy after its upgrade', async () => {
        const p = zoo.proxies
        const expected: [Address, string, Address][] = [
            [p.eip1967, 'eip1967', p.logicV2],
            [p.eip1822, 'eip1822', p.logicV1],
            [p.beaconProxy, 'eip1967_beacon', p.logicV1],
            [p.safe, 'master_copy', p.logicV1],
            [p.clone, 'eip1167', p.logicV1],
        ]
        for (const [proxy, type, implementation] of expected) {
            const shown = await address(proxy)
            expect(shown.proxy_type, `proxy_type of ${proxy}`).to.equal(type)
            expect(shown.implementations.map((i) => i.address_hash), `implementation of ${type}`).to.deep.equal([implementation])
        }
        const upgrade = await transaction(p.eip1967Upgrade)
        expect(upgrade).to.include({ status: 'ok', method: 'upgradeProxyTo' })
    })

    it('gives each odd token a page: bytes32 metadata decoded, missing and reverting metadata null', async () => {
        const t = zoo.tokens
        const expected: [Address, string | null, string | null, string | null][] = [
            [t.bytes32Metadata, 'Bytes Token', 'BYT', '18'],
            [t.noDecimals, 'No Decimals', 'NODEC', null],
            [t.noMetadata, null, null, null],
            [t.revertingMetadata, null, 'RVT', null],
        ]
        for (const [token, name, symbol, decimals] of expected) {
            const shown = await get(`/tokens/${token}`, S.Token)
            expect(shown, `token ${token}`).to.include({ name, symbol, decimals, type: 'ERC-20', holders_count: '2' })
            const transfers = await get(`/tokens/${token}/transfers`, S.page(S.TokenTransfer))
            expect(transfers.items, `transfers of ${token}`).to.have.length(2)
        }
    })

    it('shows the failed creation and the refused call as failed transactions', async () => {
        const creation = await transaction(zoo.failures.creation)
        expect(creation).to.include({ status: 'error', to: null })
        expect(creation.from.hash).to.equal(zoo.account)
        // As Blockscout shows it: the address the creation would have made, with its creation failed.
        const { nonce } = await chain.client.getTransaction({ hash: zoo.failures.creation })
        const wouldBe = getContractAddress({ from: zoo.account, nonce: BigInt(nonce) })
        expect(creation.created_contract?.hash).to.equal(wouldBe)
        expect(await chain.client.getCode({ address: wouldBe })).to.equal(undefined)
        expect(await address(wouldBe)).to.include({ creation_status: 'failed', creation_transaction_hash: zoo.failures.creation })
        const refused = await transaction(zoo.failures.requireRevert)
        expect(refused).to.include({ status: 'error', method: 'upgradeProxyTo' })
        expect(refused.to?.hash).to.equal(zoo.proxies.eip1967)
    })

    it('self-destructs: the contract destroyed at creation is gone, the one destroyed later keeps its code and gave its balance away (EIP-6780)', async () => {
        const { atCreation, later } = zoo.selfDestructs
        expect(await chain.client.getCode({ address: atCreation.address })).to.equal(undefined)
        expect(await chain.client.getCode({ address: later.address })).to.equal(loadArtifact('SelfDestructing').deployedBytecode)
        expect(await chain.client.getBalance({ address: later.address })).to.equal(0n)
        // Its page answers, with the transaction that created and destroyed it, as Blockscout shows a destroyed contract.
        const gone = await address(atCreation.address)
        expect(gone).to.include({ coin_balance: '0', creation_transaction_hash: atCreation.transaction, is_contract: true, creation_status: 'selfdestructed' })
        const goneContract = await get(`/smart-contracts/${atCreation.address}`, ContractPage)
        expect(goneContract).to.include({ creation_status: 'selfdestructed', deployed_bytecode: null })
        expect(goneContract.creation_bytecode).to.be.a('string')
        const kept = await address(later.address)
        expect(kept).to.include({ is_contract: true, coin_balance: '0', creation_status: 'success' })
        expect(await get(`/smart-contracts/${later.address}`, ContractPage)).to.include({
            creation_status: 'success', deployed_bytecode: loadArtifact('SelfDestructing').deployedBytecode,
        })
        expect(await transaction(later.transaction)).to.include({ status: 'ok', method: 'destroy' })
        // Each sent its 1 coin back to the zoo's account by a selfdestruct frame.
        for (const hash of [atCreation.transaction, later.transaction]) {
            const { items } = await get(`/transactions/${hash}/internal-transactions`, S.page(S.InternalTransaction))
            const frames = items.filter((i) => i.type === 'selfdestruct').map((i) => [i.from.hash, i.to?.hash, i.value])
            expect(frames, `selfdestruct of ${hash}`).to.deep.equal([[hash === later.transaction ? later.address : atCreation.address, zoo.account, E18.toString()]])
        }
    })

    it('serves each transaction type with its fields: legacy without a chain id, an access list, a blob, a 7702 delegation', async () => {
        const { legacyUnprotected, accessList, blob, setCode } = zoo.transactions
        const raw = await chain.client.request({ method: 'eth_getRawTransactionByHash' as any, params: [legacyUnprotected] as any }) as `0x${string}`
        expect(parseTransaction(raw).chainId, 'the legacy transaction carries no EIP-155 chain id').to.equal(undefined)
        expect(await transaction(legacyUnprotected)).to.include({ type: 0, status: 'ok', max_fee_per_gas: null })

        const listed = await transaction(accessList)
        expect(listed).to.include({ type: 1, status: 'ok', method: 'store' })
        expect(listed.to?.hash).to.equal(zoo.proxies.eip1967)

        const blobTx = await transaction(blob)
        expect(blobTx).to.include({ type: 3, status: 'ok', max_fee_per_blob_gas: '10' })
        expect(blobTx.blob_versioned_hashes).to.have.length(1)
        expect(blobTx.transaction_types).to.include('blob_transaction')

        if (DEVNET_HARDFORK !== 'prague') return
        const delegating = await transaction(setCode!)
        expect(delegating).to.include({ type: 4, status: 'ok' })
        expect(delegating.transaction_types).to.include('set_code_transaction')
        expect(delegating.authorization_list.map((a) => [a.address_hash, a.authority, a.status])).to.deep.equal([
            [zoo.proxies.logicV1, zoo.delegation!.authority, 'ok'],
        ])
        const authority = await address(zoo.delegation!.authority)
        expect(authority).to.deep.include({ is_contract: false, proxy_type: 'eip7702' })
        expect(authority.implementations.map((i) => i.address_hash)).to.deep.equal([zoo.proxies.logicV1])
        // The delegate's code ran as the authority: store(7) wrote the authority's own storage.
        expect(await chain.client.readContract({ address: zoo.delegation!.authority, abi: abis.ProxyLogicV1, functionName: 'stored' })).to.equal(7n)
    })

    it('shows the NFT collections: owners, a burnt id, ERC-1155 holders after a batch transfer, metadata from a data: URI and from the metadata server', async () => {
        const { erc721, erc1155, recipient } = zoo.nftCollections
        const inventory = await get(`/tokens/${erc721}/instances`, S.page(S.Instance))
        expect(inventory.items.map((i) => [i.id, i.owner?.hash])).to.deep.equal([
            ['3', '0x0000000000000000000000000000000000000000'], ['2', recipient], ['1', zoo.account],
        ])
        const metadataOf = (token: Address, id: string) => waitFor(`metadata of ${token} #${id}`, async () => {
            const instance = await get(`/tokens/${token}/instances/${id}`, S.Instance)
            return instance.metadata ? instance : undefined
        }, 60_000, 250)
        const inline = await metadataOf(erc721, '1')
        expect(inline.metadata).to.deep.include({ name: 'Zoo NFT #1' })
        expect(inline.image_url).to.equal(`${zoo.metadataUrl}/nft/1.svg`)
        const served = await metadataOf(erc721, '2')
        expect(served.metadata).to.deep.include({ name: 'Devnet NFT #2' })
        expect(served.image_url).to.equal(`${zoo.metadataUrl}/nft/2.svg`)

        const semi = await metadataOf(erc1155, '1')
        expect(semi.token.type).to.equal('ERC-1155')
        expect(semi.image_url).to.match(/\/erc1155\/0{63}1\.svg$/)
        const holders = await get(`/tokens/${erc1155}/instances/2/holders`, S.page(S.Holder))
        expect(holders.items.map((h) => [h.address.hash, h.value])).to.deep.equal([[zoo.account, '15'], [recipient, '5']])
        const nfts = await get(`/addresses/${recipient}/nft?type=ERC-1155`, S.page(S.AddressNft))
        expect(nfts.items.map((n) => [n.id, n.value])).to.deep.equal([['3', '1'], ['2', '5'], ['1', '4']])
        const collections = await get(`/addresses/${recipient}/nft/collections`, S.page(S.AddressNftCollection))
        expect(collections.items.map((c) => c.token.address_hash).sort()).to.deep.equal([erc721, erc1155].sort())
    })

    it('has the addresses docs/devnet.md lists: the zoo\'s accounts start fresh, so every devnet gets the same ones', async () => {
        const doc = fs.readFileSync(repoPath('docs', 'devnet.md'), 'utf8')
        const listed = new Map([...doc.matchAll(/^\| `([a-zA-Z.0-9]+)` \| (0x[0-9a-fA-F]{40}) \|/gm)].map((m) => [m[1], m[2]]))
        const seeded = new Map<string, string>()
        const collect = (prefix: string, value: unknown) => {
            if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) seeded.set(prefix, value)
            else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) collect(prefix ? `${prefix}.${k}` : k, v)
        }
        collect('', { account: zoo.account, proxies: zoo.proxies, tokens: zoo.tokens, selfDestructs: zoo.selfDestructs, delegation: zoo.delegation, nftCollections: zoo.nftCollections })
        expect(Object.fromEntries(listed)).to.deep.equal(Object.fromEntries([...seeded].map(([k, v]) => [k, getAddress(v)])))
    })

    it('holds what the node holds (the consistency check the sync and reorg suites run)', async () => {
        await chain.indexed()
        await expectDatabaseMatchesChain(chain.databaseUrl, chain.url)
    })
})

describe('devnet metadata server', function () {
    let server: Loopback
    before(async () => {
        server = await startMetadataServer()
    })
    after(async () => {
        await server?.close()
    })

    it('serves ERC-721 style JSON at /nft/{id}.json with an image it also serves', async () => {
        const res = await fetch(`${server.url}/nft/42.json`)
        expect(res.status).to.equal(200)
        expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8')
        const body = await res.json()
        expect(body).to.include({ name: 'Devnet NFT #42', image: `${server.url}/nft/42.svg` })
        expect(body.description).to.be.a('string').that.is.not.empty
        expect(body.attributes).to.deep.include({ trait_type: 'Colour', value: 'gold' })
        expect(body.attributes.map((a: { trait_type: string }) => a.trait_type)).to.deep.equal(['Colour', 'Shape', 'Level'])
        const image = await fetch(body.image)
        expect(image.status).to.equal(200)
        expect(image.headers.get('content-type')).to.equal('image/svg+xml')
        expect(await image.text()).to.match(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*>.*#42.*<\/svg>$/)
        // The same id, the same answer.
        expect(await (await fetch(`${server.url}/nft/42.json`)).json()).to.deep.equal(body)
    })

    it('serves ERC-1155 style JSON at /erc1155/{id}.json, the id as 64 lowercase hex digits as ERC-1155 substitutes it', async () => {
        const id = 255n
        const hexId = id.toString(16).padStart(64, '0')
        const res = await fetch(`${server.url}/erc1155/${hexId}.json`)
        expect(res.status).to.equal(200)
        const body = await res.json()
        expect(body).to.include({ name: 'Devnet multi-token 255', image: `${server.url}/erc1155/${hexId}.svg`, decimals: 0 })
        expect(body.properties).to.have.keys('colour', 'shape')
        expect((await fetch(body.image)).status).to.equal(200)
        const largest = 'f'.repeat(64)
        expect((await fetch(`${server.url}/erc1155/${largest}.json`)).status).to.equal(200)
    })

    it('answers 404 with the paths it serves for anything else, and 405 to a write', async () => {
        for (const path of ['/nft/abc.json', '/nft/1.txt', `/nft/${(1n << 256n).toString()}.json`, `/erc1155/${'A'.repeat(64)}.json`, '/erc1155/ff.json', '/']) {
            const res = await fetch(`${server.url}${path}`)
            expect(res.status, path).to.equal(404)
            expect((await res.json()).error, path).to.include('/nft/{id}.json')
        }
        const post = await fetch(`${server.url}/nft/1.json`, { method: 'POST', body: '{}' })
        expect(post.status).to.equal(405)
        expect(post.headers.get('allow')).to.equal('GET, HEAD')
    })
})
