import { expect } from 'chai'
import * as http from 'http'
import { AddressInfo } from 'net'
import { Pool } from 'pg'
import { Address, createWalletClient, http as viemHttp } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis } from '../../abi'
import { nftMetadataKey, nftMetadataOf } from '../../api/chain/queries/nft-metadata'
import { renderInstanceMetadata } from '../../api/chain/render/nft-metadata'
import * as S from '../../api/chain/schemas'
import { createLogger } from '../../common/logger'
import { waitFor } from '../../common/processes'
import { logId } from '../../db/row-ids'
import { applyMigrations } from '../../db/migrate'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { NftMetadataSettingsSchema } from '../../indexer/nft-metadata/config'
import { NftMetadataFetcher } from '../../indexer/nft-metadata/fetcher'
import { createRpcClient } from '../../indexer/rpc'
import { CHAIN_ID, headHash, startTestChain, TestChain } from '../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { createTestDatabase } from '../support/postgres'

/**
 * The NFT metadata fetcher (docs/nft-metadata.md) against real parts: loopback HTTP servers that
 * stall, answer 10 MB, redirect to private addresses, answer bad JSON or a good document; a
 * loopback IPFS gateway; token URIs read from a real contract on anvil; the cache in Postgres. Then
 * the fetcher inside the real indexer process, stalled by a server, while the indexer goes on.
 */

interface Seen {
    paths: string[]
    open: number
    mostOpen: number
}

/** A loopback server answering by path; stalled requests are held until close(). */
async function startServer(answer: (path: string, res: http.ServerResponse) => void): Promise<{ url: string; host: string; seen: Seen; close(): Promise<void> }> {
    const seen: Seen = { paths: [], open: 0, mostOpen: 0 }
    const server = http.createServer((req, res) => {
        seen.paths.push(req.url ?? '')
        seen.open++
        seen.mostOpen = Math.max(seen.mostOpen, seen.open)
        res.on('close', () => seen.open--)
        answer(req.url ?? '', res)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`
    return {
        url: `http://${host}`,
        host,
        seen,
        close: () => new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
        }),
    }
}

const json = (res: http.ServerResponse, body: unknown) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(body))
}

const NO_CODE = '0x000000000000000000000000000000000000dead'

const GOOD = { name: 'Good #1', description: 'a good document', image: 'ipfs://QmImage/1.png', animation_url: 'https://media.example/1.mp4', external_url: 'https://app.example/1', attributes: [{ trait_type: 'Kind', value: 'good' }] }

describe('NFT metadata fetcher: bounded, recorded, retried', function () {
    this.timeout(300_000)
    let chain: TestChain
    let pool: Pool
    let origin: Awaited<ReturnType<typeof startServer>>
    let elsewhere: Awaited<ReturnType<typeof startServer>>
    let gateway: Awaited<ReturnType<typeof startServer>>
    let nft: Address
    let fetcher: NftMetadataFetcher
    const deployer = mnemonicToAccount(DEV_MNEMONIC)
    const wallet = () => createWalletClient({ account: deployer, chain: devnetChain(CHAIN_ID, chain.url), transport: viemHttp(chain.url) })
    async function send(functionName: 'mint' | 'setTokenURI' | 'setUri', args: unknown[]): Promise<void> {
        const hash = await wallet().writeContract({ address: nft, abi: abis.MetadataTestNft, functionName, args, gas: 1_000_000n, ...ZERO_FEES } as never)
        expect((await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).to.equal('success')
    }
    let logIndex = 0
    /** A transfer row as the indexer writes it (item 1 writes ERC-1155 ones; the fetcher reads only token_transfer). */
    async function transfer(tokenId: number, type: 'ERC-721' | 'ERC-1155', block = 1, token: string = nft): Promise<void> {
        const index = logIndex++
        await pool.query(
            `INSERT INTO token_transfer (id, block_number, block_hash, timestamp, log_index, transaction_hash, token, token_type, "from", "to", value, token_id)
             VALUES ($1, $2, '0x' || repeat('b', 64), now(), $3, '0x' || repeat('a', 64), $4, $5, '0x' || repeat('0', 40), $6, $7, $8)`,
            [logId(block, index), block, index, token.toLowerCase(), type, deployer.address.toLowerCase(), type === 'ERC-1155' ? '5' : null, tokenId]
        )
    }
    const row = async (tokenId: number) => (await pool.query(
        `SELECT status, token_uri, metadata, image_url, animation_url, external_app_url, error, attempts,
                extract(epoch FROM next_attempt_at - attempted_at)::float8 AS wait, fetched_at IS NOT NULL AS fetched
           FROM nft_metadata WHERE token = $1 AND token_id = $2`, [nft.toLowerCase(), tokenId])).rows[0]
    /** Passes until nothing is due now and every fetch ended. */
    async function drain(): Promise<void> {
        for (let i = 0; i < 20; i++) {
            await fetcher.pass()
            await fetcher.settled()
            if (await fetcher.dueCount(1000) === 0) return
        }
        throw new Error('instances still due after 20 passes')
    }
    const makeDue = (tokenId: number) => pool.query('UPDATE nft_metadata SET next_attempt_at = now() WHERE token = $1 AND token_id = $2', [nft.toLowerCase(), tokenId])

    before(async () => {
        chain = await startTestChain()
        const databaseUrl = await createTestDatabase('nft_metadata')
        await applyMigrations(databaseUrl)
        pool = new Pool({ connectionString: databaseUrl, max: 4 })
        elsewhere = await startServer((_path, res) => json(res, { reached: true }))
        origin = await startServer((path, res) => {
            if (path.startsWith('/stall')) return // never answered
            if (path === '/big') {
                res.writeHead(200, { 'Content-Type': 'application/json' })
                const chunk = Buffer.alloc(64 * 1024, 0x20)
                let left = 10 * 1024 * 1024
                const more = () => {
                    while (left > 0) {
                        left -= chunk.length
                        if (!res.write(chunk)) return void res.once('drain', more)
                    }
                    res.end()
                }
                res.on('error', () => undefined)
                return more()
            }
            if (path === '/to-metadata-service') return void res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end()
            if (path === '/to-loopback') return void res.writeHead(307, { Location: `${elsewhere.url}/secret.json` }).end()
            if (path === '/to-good') return void res.writeHead(301, { Location: '/good.json' }).end()
            if (path === '/loop') return void res.writeHead(302, { Location: '/loop' }).end()
            if (path === '/bad.json') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"name": "broken",')
            if (path === '/good.json') return json(res, GOOD)
            const erc1155 = /^\/erc1155\/([0-9a-f]{64})\.json$/.exec(path)
            if (erc1155) return json(res, { name: `multi ${BigInt('0x' + erc1155[1])}`, image_url: 'https://img.example/m.png' })
            res.writeHead(404).end()
        })
        gateway = await startServer((path, res) => (path === '/ipfs/QmMeta/7.json' ? json(res, { name: 'from ipfs', image: 'ipfs://ipfs/QmPic' }) : void res.writeHead(404).end()))
        nft = (await deployContract(chain.url, CHAIN_ID, deployer, 'MetadataTestNft', [])).address
        const uris: [number, string][] = [
            [1, `${origin.url}/good.json`],
            [2, `${origin.url}/stall/2`],
            [3, `${origin.url}/big`],
            [4, `${origin.url}/to-metadata-service`],
            [5, `${origin.url}/to-loopback`],
            [6, `${origin.url}/bad.json`],
            [7, 'ipfs://QmMeta/7.json'],
            [8, `data:application/json;base64,${Buffer.from(JSON.stringify({ name: 'base64', image: 'data:image/svg+xml;base64,PHN2Zy8+' })).toString('base64')}`],
            [9, `data:application/json,${encodeURIComponent(JSON.stringify({ name: 'percent', external_url: 'https://app.example/9' }))}`],
            [10, `${origin.url}/to-good`],
            [11, `${origin.url}/loop`],
            [12, `${origin.url}/stall/12`],
            [13, `${origin.url}/stall/13`],
            [14, `${origin.url}/stall/14`],
        ]
        for (const [id, uri] of uris) await send('mint', [deployer.address, BigInt(id), uri])
        await send('setUri', [`${origin.url}/erc1155/{id}.json`])
        for (const [id] of uris) await transfer(id, 'ERC-721')
        await transfer(1155, 'ERC-1155')
        // id 99 is never minted: tokenURI reverts, and uri(id) is asked instead.
        await transfer(99, 'ERC-721')
        // A "token" without code answers neither.
        await transfer(1, 'ERC-721', 1, NO_CODE)
        const settings = NftMetadataSettingsSchema.parse({
            NFT_METADATA_CONCURRENCY: '6',
            NFT_METADATA_PER_HOST: '2',
            NFT_METADATA_TIMEOUT_MS: '1500',
            NFT_METADATA_MAX_KB: '256',
            NFT_METADATA_IPFS_GATEWAY: `${gateway.url}/ipfs/`,
            NFT_METADATA_ALLOW_HOSTS: origin.host,
        })
        fetcher = new NftMetadataFetcher(pool, createRpcClient(chain.url, createLogger('test')), createLogger('test'), { settings, marginBlocks: 10 })
        await drain()
    })

    after(async () => {
        await fetcher?.stop()
        await pool?.end()
        await Promise.all([origin?.close(), elsewhere?.close(), gateway?.close()])
        await chain?.stop()
    })

    it('stores a good document with the media fields, ipfs:// links through the gateway', async function () {
        const good = await row(1)
        expect(good).to.deep.include({ status: 'fetched', token_uri: `${origin.url}/good.json`, metadata: GOOD, error: null, attempts: 1, wait: null, fetched: true })
        expect(good).to.deep.include({ image_url: `${gateway.url}/ipfs/QmImage/1.png`, animation_url: 'https://media.example/1.mp4', external_app_url: 'https://app.example/1' })
        // A redirect within the allowed host is followed.
        expect(await row(10)).to.deep.include({ status: 'fetched', metadata: GOOD })
    })

    it('records a stalled server as a timeout, a 10 MB answer as too large, bad JSON and a redirect loop as such', async function () {
        expect(await row(2)).to.deep.include({ status: 'failed', metadata: null, attempts: 1, wait: 60 })
        expect((await row(2)).error).to.match(/^timeout: no complete answer within 1500 ms/)
        expect(await row(3)).to.deep.include({ status: 'failed', metadata: null, error: `too large: more than ${256 * 1024} bytes`, attempts: 1 })
        expect((await row(6)).error).to.match(/^invalid JSON: /)
        expect(await row(11)).to.deep.include({ status: 'failed', error: 'redirect: more than 5 redirects' })
        expect(origin.seen.paths.filter((p) => p === '/loop')).to.have.length(6)
    })

    it("refuses redirects to private addresses by the webhooks' rule, the allowed host notwithstanding", async function () {
        const metadataService = await row(4)
        expect(metadataService).to.deep.include({ status: 'failed', metadata: null })
        expect(metadataService.error).to.equal('blocked_address: 169.254.169.254 is not a public address (link-local); only public destinations are allowed')
        const loopback = await row(5)
        expect(loopback.error).to.equal('blocked_address: 127.0.0.1 is not a public address (loopback); only public destinations are allowed')
        expect(elsewhere.seen.paths, 'the other loopback server was never reached').to.deep.equal([])
    })

    it('decodes data: URIs without any network, reads ipfs:// through the gateway, substitutes {id} for ERC-1155', async function () {
        expect(await row(8)).to.deep.include({ status: 'fetched', metadata: { name: 'base64', image: 'data:image/svg+xml;base64,PHN2Zy8+' }, image_url: 'data:image/svg+xml;base64,PHN2Zy8+' })
        expect(await row(9)).to.deep.include({ status: 'fetched', metadata: { name: 'percent', external_url: 'https://app.example/9' }, external_app_url: 'https://app.example/9' })
        expect(await row(7)).to.deep.include({ status: 'fetched', metadata: { name: 'from ipfs', image: 'ipfs://ipfs/QmPic' }, image_url: `${gateway.url}/ipfs/QmPic` })
        expect(gateway.seen.paths).to.deep.equal(['/ipfs/QmMeta/7.json'])
        const hexId = (1155).toString(16).padStart(64, '0')
        expect(origin.seen.paths).to.include(`/erc1155/${hexId}.json`)
        expect(await row(1155)).to.deep.include({ status: 'fetched', token_uri: `${origin.url}/erc1155/${hexId}.json`, metadata: { name: 'multi 1155', image_url: 'https://img.example/m.png' }, image_url: 'https://img.example/m.png' })
    })

    it('asks an ERC-721 whose tokenURI reverts for uri(id); records an instance answering neither as failed', async function () {
        expect(await row(99)).to.deep.include({ status: 'fetched', metadata: { name: 'multi 99', image_url: 'https://img.example/m.png' } })
        const { rows: [missing] } = await pool.query('SELECT status, error, attempts FROM nft_metadata WHERE token = $1', [NO_CODE])
        expect(missing).to.deep.equal({ status: 'failed', error: 'chain: neither tokenURI(id) nor uri(id) answered a string', attempts: 1 })
    })

    it('fetches at most PER_HOST documents from one host at once', async function () {
        // Four stalling URLs and the rest on one host, with 6 fetches allowed overall.
        expect(origin.seen.mostOpen).to.equal(2)
    })

    it('counts a redirect against the host it leads to: URIs on four hosts that redirect to one stalling host put at most PER_HOST fetches on it', async function () {
        const sink = await startServer(() => undefined) // never answers
        const fans = await Promise.all([0, 1, 2, 3].map(() => startServer((_path, res) => void res.writeHead(302, { Location: `${sink.url}/held.json` }).end())))
        const ids = [30, 31, 32, 33]
        const settings = NftMetadataSettingsSchema.parse({
            NFT_METADATA_CONCURRENCY: '6',
            NFT_METADATA_PER_HOST: '2',
            NFT_METADATA_TIMEOUT_MS: '1500',
            NFT_METADATA_ALLOW_HOSTS: [origin.host, sink.host, ...fans.map((f) => f.host)].join(','),
        })
        const funnel = new NftMetadataFetcher(pool, createRpcClient(chain.url, createLogger('test')), createLogger('test'), { settings, marginBlocks: 10 })
        try {
            for (const [i, id] of ids.entries()) {
                await send('mint', [deployer.address, BigInt(id), `${fans[i].url}/meta.json`])
                await transfer(id, 'ERC-721')
            }
            await funnel.pass()
            await funnel.settled()
            expect(sink.seen.mostOpen, 'fetches held open on the host the redirects lead to').to.equal(2)
            // Each document asked of it once: the two that met it busy waited, unrecorded, then went again from their first URL.
            expect(sink.seen.paths).to.have.length(4)
            expect(fans.map((f) => f.seen.paths.length).reduce((a, b) => a + b)).to.equal(6)
            for (const id of ids) expect(await row(id), `id ${id}`).to.deep.include({ status: 'failed', error: 'timeout: no complete answer within 1500 ms', attempts: 1 })
        } finally {
            await funnel.stop()
            await Promise.all([sink.close(), ...fans.map((f) => f.close())])
        }
    })

    it('retries a failure when due, with the pause doubled, and stores the document once it is good', async function () {
        await makeDue(6)
        await drain()
        expect(await row(6)).to.deep.include({ status: 'failed', attempts: 2, wait: 120 })
        await send('setTokenURI', [2n, `${origin.url}/good.json`])
        await makeDue(2)
        await drain()
        expect(await row(2)).to.deep.include({ status: 'fetched', metadata: GOOD, error: null, attempts: 2, wait: null })
        // After the last attempt an instance is left failed, not due again.
        await pool.query('UPDATE nft_metadata SET attempts = 19, next_attempt_at = now() WHERE token = $1 AND token_id = 6', [nft.toLowerCase()])
        await drain()
        expect(await row(6)).to.deep.include({ status: 'failed', attempts: 20, wait: null })
    })

    it('discovers from a cursor: known instances once, new ones after it, replaced ones within the margin behind it', async function () {
        const count = async () => Number((await pool.query('SELECT count(*) FROM nft_metadata')).rows[0].count)
        const before = await count()
        const cursor = (await pool.query('SELECT block_number, log_index FROM nft_metadata_cursor')).rows
        expect(cursor).to.deep.equal([{ block_number: 1, log_index: logIndex - 1 }])
        await transfer(1, 'ERC-721', 2) // a known instance again
        await transfer(500, 'ERC-721', 3) // a new one
        await drain()
        expect(await count()).to.equal(before + 1)
        expect(await row(500)).to.deep.include({ status: 'fetched', attempts: 1 })
        // A reorganisation replaced block 2's transfers under the cursor with another instance's.
        await pool.query('DELETE FROM token_transfer WHERE block_number = 2')
        await transfer(501, 'ERC-721', 2)
        await drain()
        expect(await count()).to.equal(before + 2)
        expect(await row(501)).to.not.equal(undefined)
    })

    it('serves the API plug: the rows of many instances in one statement, rendered as Blockscout instance fields', async function () {
        const token = nft.toLowerCase()
        const rows = await nftMetadataOf(pool, [{ token: nft, tokenId: '1' }, { token, tokenId: '3' }, { token, tokenId: '424242' }, { token, tokenId: 'not a number' }])
        expect([...rows.keys()].sort()).to.deep.equal([nftMetadataKey(token, '1'), nftMetadataKey(token, '3')])
        const good = renderInstanceMetadata(rows.get(nftMetadataKey(token, '1')))
        expect(good).to.deep.equal({ metadata: GOOD, image_url: `${gateway.url}/ipfs/QmImage/1.png`, animation_url: 'https://media.example/1.mp4', external_app_url: 'https://app.example/1' })
        expect(renderInstanceMetadata(rows.get(nftMetadataKey(token, '3')))).to.deep.equal({ metadata: null, image_url: null, animation_url: null, external_app_url: null })
        const instance = { id: '1', owner: null, token: null, is_unique: true, thumbnails: null, media_type: null, media_url: null, ...good }
        expect(S.TokenInstance.safeParse(instance).success).to.equal(true)
    })
})

describe('NFT metadata fetcher in the indexer process: never blocks indexing', function () {
    this.timeout(300_000)
    let chain: TestChain
    let databaseUrl: string
    let indexer: IndexerProcess
    let pool: Pool
    let stalling: Awaited<ReturnType<typeof startServer>>
    let serving: Awaited<ReturnType<typeof startServer>>
    const deployer = mnemonicToAccount(DEV_MNEMONIC)

    before(async () => {
        chain = await startTestChain()
        databaseUrl = await createTestDatabase('nft_metadata_indexer')
        stalling = await startServer(() => undefined)
        serving = await startServer((_path, res) => json(res, GOOD))
        indexer = startIndexer({
            databaseUrl,
            rpcUrl: chain.url,
            contracts: chain.contracts,
            env: {
                NFT_METADATA_ALLOW_HOSTS: `${stalling.host},${serving.host}`,
                // Longer than the test: the stalled fetch is still open at its end.
                NFT_METADATA_TIMEOUT_MS: '120000',
            },
        })
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
    })

    after(async () => {
        await indexer?.stop()
        await pool?.end()
        await Promise.all([stalling?.close(), serving?.close()])
        await chain?.stop()
    })

    it('indexes later blocks while a metadata server holds a fetch', async function () {
        const nft = (await deployContract(chain.url, CHAIN_ID, deployer, 'MetadataTestNft', [])).address
        const wallet = createWalletClient({ account: deployer, chain: devnetChain(CHAIN_ID, chain.url), transport: viemHttp(chain.url) })
        const mint = async (id: bigint, uri: string) => {
            const hash = await wallet.writeContract({ address: nft, abi: abis.MetadataTestNft, functionName: 'mint', args: [deployer.address, id, uri], gas: 1_000_000n, ...ZERO_FEES })
            await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        }
        await mint(1n, `${stalling.url}/stall.json`)
        await mint(2n, `${serving.url}/good.json`)
        await waitFor('the stalling server to hold a fetch', async () => stalling.seen.open === 1, 60_000, 100)
        await waitFor('the good document to be stored', async () =>
            (await pool.query("SELECT 1 FROM nft_metadata WHERE token = $1 AND token_id = 2 AND status = 'fetched'", [nft.toLowerCase()])).rowCount === 1, 60_000, 100)

        // Blocks after the stall are indexed while the fetch is still held.
        for (let id = 3n; id < 8n; id++) await mint(id, `${serving.url}/good.json`)
        await waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer)
        expect(stalling.seen.open, 'the fetch is still held').to.equal(1)
        // The fetcher goes on too: the later instances are found and fetched beside the held one.
        const statuses = async () => (await pool.query('SELECT status FROM nft_metadata WHERE token = $1 ORDER BY token_id', [nft.toLowerCase()])).rows.map((r) => r.status)
        await waitFor('the later instances to be fetched', async () => (await statuses()).filter((s) => s === 'fetched').length === 6, 60_000, 100)
        expect(await statuses(), 'the held instance is not recorded yet').to.deep.equal(['pending', 'fetched', 'fetched', 'fetched', 'fetched', 'fetched', 'fetched'])
        expect(stalling.seen.open, 'the fetch is still held').to.equal(1)
        expect(indexer.process.child.exitCode, indexer.output()).to.equal(null)
    })

    it('stops cleanly at SIGTERM though a fetch is held, leaving the instance due', async function () {
        await indexer.stop()
        // 0: every closer ran within the grace period (SIGKILL or the stop timeout would give another answer).
        expect(await indexer.process.exited, indexer.output()).to.equal(0)
        // The server sees the socket close once the process is gone.
        await waitFor('the held fetch to be ended', async () => stalling.seen.open === 0, 10_000, 50)
        const { rows } = await pool.query("SELECT status, attempts, next_attempt_at <= now() AS due FROM nft_metadata WHERE status = 'pending'")
        expect(rows).to.deep.equal([{ status: 'pending', attempts: 0, due: true }])
    })
})
