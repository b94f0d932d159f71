import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { mnemonicToAccount } from 'viem/accounts'
import { DEV_MNEMONIC } from '../../../devnet/anvil'
import { startTestChain, TestChain } from '../../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../../support/indexer'
import { createTestDatabase } from '../../support/postgres'
import { expectError, ExplorerStack, startExplorerStack, verifiedAccount } from './harness'
import { expectedPools, expectedVolume, Replay, replaySwaps } from './swap-replay'

const HOUR = 3_600_000
const DAY = 86_400_000

/**
 * Fetches while the time window stays put: a request that straddles the turn of an hour (or day)
 * could be answered for either window, so it is asked again.
 */
async function inOneWindow<T>(windowMs: number, get: () => Promise<T>): Promise<{ reply: T; now: number }> {
    for (;;) {
        const before = Date.now()
        const reply = await get()
        const after = Date.now()
        if (Math.floor(before / windowMs) === Math.floor(after / windowMs)) return { reply, now: before }
    }
}

describe('explorer services API: DeFi routes over a seeded, indexed devnet', function () {
    let chain: TestChain
    let indexer: IndexerProcess | undefined
    let stack: ExplorerStack | undefined
    let replay: Replay

    before(async function () {
        chain = await startTestChain({ seedDays: 2 })
        const databaseUrl = await createTestDatabase('defi')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        const head = await chain.client.getBlock({ blockTag: 'latest' })
        await waitForIndexedBlock(databaseUrl, head.hash, indexer)
        stack = await startExplorerStack({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        replay = await replaySwaps(chain.client, chain.contracts, head.number)
    })

    after(async function () {
        await stack?.stop()
        await indexer?.stop()
        await chain?.stop()
    })

    it('lists every pool with the figures recomputed from the raw Swap logs, busiest first', async function () {
        const { reply, now } = await inOneWindow(HOUR, () => stack!.client().get('/defi/pools'))
        expect(reply.status, reply.text).to.equal(200)
        const expected = expectedPools(replay, Math.floor(now / HOUR) * HOUR - 23 * HOUR)
        expect(expected).to.have.length(5)
        expect(expected.some((p) => p.swaps_24h > 0), 'the seed traded in the last 24 hours').to.equal(true)
        expect(expected.some((p) => p.swaps_total > p.swaps_24h), 'and before').to.equal(true)

        expect(reply.body.quote_symbol).to.equal('STABLE')
        const pools = reply.body.pools as typeof expected
        const volumes = pools.map((p) => p.volume_24h)
        expect(volumes, 'busiest first').to.deep.equal([...volumes].sort((a, b) => b - a))
        const byAddress = new Map(expected.map((p) => [p.address, p]))
        expect(pools.map((p) => p.address).sort()).to.deep.equal([...byAddress.keys()].sort())
        for (const pool of pools) expect(pool, pool.name).to.deep.equal(byAddress.get(pool.address))

        for (const pool of pools) {
            for (const field of ['liquidity_quote', 'volume_24h', 'swaps_24h', 'volume_total', 'swaps_total'] as const) {
                expect(pool[field], `${pool.name} ${field}`).to.be.a('number')
            }
            expect(pool.reserve0).to.match(/^\d+(\.\d+)?$/)
        }
        expect(pools.map((p) => p.name).sort()).to.deep.equal(
            [...replay.pairs.values()].map((p) => `${replay.tokens.get(p.token0)!.symbol}/${replay.tokens.get(p.token1)!.symbol}`).sort())
    })

    it('pages the pools with limit and offset, in the same order, and refuses a bad limit', async function () {
        const { reply: all } = await inOneWindow(HOUR, () => stack!.client().get('/defi/pools'))
        expect(all.body.total).to.equal(5)
        expect(all.body.next_offset).to.equal(null)
        const first = await stack!.client().get('/defi/pools?limit=2')
        const last = await stack!.client().get('/defi/pools?limit=2&offset=4')
        expect(first.body.pools.map((p: { address: string }) => p.address)).to.deep.equal(all.body.pools.slice(0, 2).map((p: { address: string }) => p.address))
        expect(first.body.next_offset).to.equal(2)
        expect(last.body.pools).to.have.length(1)
        expect(last.body.next_offset).to.equal(null)
        expectError(await stack!.client().get('/defi/pools?limit=0'), 400, 'invalid_request')
        expectError(await stack!.client().get('/defi/pools?limit=1001'), 400, 'invalid_request')
    })

    it('gives daily volume buckets, oldest first, every day present', async function () {
        const client = stack!.client()
        for (const days of [undefined, 1, 3, 365]) {
            const { reply, now } = await inOneWindow(DAY, () => client.get(`/defi/volume${days === undefined ? '' : `?days=${days}`}`))
            expect(reply.status, reply.text).to.equal(200)
            const expected = expectedVolume(replay, days ?? 30, now)
            expect(reply.body, `days=${days}`).to.deep.equal(expected)
        }
        const { reply } = await inOneWindow(DAY, () => client.get('/defi/volume'))
        const buckets = reply.body as { date: string; volume: number; swaps: number }[]
        expect(buckets).to.have.length(30)
        expect(buckets.filter((b) => b.swaps === 0 && b.volume === 0).length, 'empty days kept as zeros').to.be.greaterThan(20)
        const totalSwaps = [...replay.pairs.values()].reduce((sum, p) => sum + p.swapsTotal, 0)
        expect(buckets.reduce((sum, b) => sum + b.swaps, 0), 'every swap of the seed in the last 30 days').to.equal(totalSwaps)
        for (let i = 1; i < buckets.length; i++) {
            expect(Date.parse(buckets[i].date) - Date.parse(buckets[i - 1].date)).to.equal(DAY)
        }
    })

    it('answers with an ETag, and 304 when the client holds that version', async function () {
        const client = stack!.client()
        for (const path of ['/defi/pools', '/defi/volume?days=7']) {
            let etag: string | null = null
            const { reply: [exact, listed] } = await inOneWindow(path.includes('pools') ? HOUR : DAY, async () => {
                const first = await client.get(path)
                expect(first.status).to.equal(200)
                expect(first.headers.get('cache-control')).to.equal('public, max-age=15')
                etag = first.headers.get('etag')
                expect(etag, path).to.match(/^"[A-Za-z0-9_-]+"$/)
                const exact = await client.request('GET', path, { headers: { 'If-None-Match': etag! } })
                // A list of tags, and the weak form of ours, match too (RFC 9110 weak comparison).
                const listed = await client.request('GET', path, { headers: { 'If-None-Match': `"other", W/${etag}` } })
                return [exact, listed] as const
            })
            expect(exact.status, path).to.equal(304)
            expect(exact.text).to.equal('')
            expect(exact.headers.get('etag')).to.equal(etag)
            expect(listed.status, path).to.equal(304)
            const other = await client.request('GET', path, { headers: { 'If-None-Match': '"something-else"' } })
            expect(other.status).to.equal(200)
            expect(other.body).to.not.equal(undefined)
        }
        // The tag follows the figures: another window is another body and another tag.
        const week = await client.get('/defi/volume?days=7')
        const month = await client.get('/defi/volume?days=30')
        expect(week.headers.get('etag')).to.not.equal(month.headers.get('etag'))
    })

    it('shows watched addresses with the native balance the indexer holds', async function () {
        const { token } = await verifiedAccount(stack!)
        const client = stack!.client()
        const trader = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 10 }).address
        const unseen = '0x' + '5e'.repeat(20)
        expect((await client.post('/watchlist', { address: trader, name: 'trader' }, token)).status).to.equal(201)
        expect((await client.post('/watchlist', { address: unseen }, token)).status).to.equal(201)
        const list = await client.get('/watchlist', token)
        const [watched, other] = list.body.items
        const onChain = await chain.client.getBalance({ address: trader })
        expect(onChain > 0n).to.equal(true)
        expect(watched).to.include({ address: trader.toLowerCase(), name: 'trader', balance: onChain.toString() })
        expect(watched.balance_block).to.be.a('number')
        expect(other).to.include({ address: unseen, balance: null })
    })

    it('answers 503 for the DeFi routes when no contract addresses are configured', async function () {
        // An empty data directory: no deployment file, and no addresses in the environment.
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'explorer-no-contracts-'))
        const bare = await startExplorerStack({ env: { DATA_DIR: dataDir } })
        try {
            const error = expectError(await bare.client().get('/defi/pools'), 503, 'not_configured')
            // The configuration error names a path of the host: it goes to the log, the answer is ours.
            expect(error.message).to.not.include(dataDir)
            expectError(await bare.client().get('/defi/volume'), 503, 'not_configured')
        } finally {
            await bare.stop()
            fs.rmSync(dataDir, { recursive: true, force: true })
        }
    })
})
