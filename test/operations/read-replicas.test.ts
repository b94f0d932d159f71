import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { numberToHex } from 'viem'
import { waitFor } from '../../common/processes'
import { EmbeddedPostgres, startEmbeddedPostgres } from '../../db/postgres'
import { ApiProcess, startApi } from '../support/api'
import { headHash, mineEmptyBlocks, startTestChain, TestChain } from '../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { PhoenixClient } from '../support/phoenix-client'
import { freePort } from '../support/ports'
import { startStreamingReplica, StreamingReplica } from '../support/streaming-replica'

/**
 * The chain data API reading streaming replicas (CHAIN_API_READ_DATABASE_URL), as
 * docs/production.md#read-replicas-for-the-chain-data-api describes it: a primary and two hot
 * standbys of it, each made from a base backup with the embedded binaries
 * (test/support/streaming-replica.ts), one indexer writing the primary, and the real api process
 * reading both replicas. A replica is made to fall behind by pausing its WAL replay, which it then
 * catches up on.
 */

/** Most blocks the replica may be behind before /ready answers 503. */
const MAX_LAG = 3

async function one<R>(url: string, sql: string, values: unknown[] = []): Promise<R[]> {
    const client = new Client({ connectionString: url })
    await client.connect()
    try {
        return (await client.query(sql, values)).rows
    } finally {
        await client.end()
    }
}

/** The indexed head committed in a database (its counters row). */
async function committedHead(url: string): Promise<number> {
    const [row] = await one<{ last_block: number }>(url, `SELECT last_block FROM chain_counters WHERE id = 'chain'`)
    return row.last_block
}

describe('chain API on a streaming replica (CHAIN_API_READ_DATABASE_URL)', function () {
    this.timeout(600_000)
    let dir: string
    let chain: TestChain
    let primary: EmbeddedPostgres
    let replicas: StreamingReplica[]
    let indexer: IndexerProcess
    let api: ApiProcess
    let socket: PhoenixClient
    /** The replica's head while its replay is paused. */
    let held: number
    /** The primary's head by then. */
    let top: number

    /** Paused replica 1's head, replica 2's (the primary's), and the transaction only replica 2 holds, in its newest block. */
    let lagging: number
    let newest: number
    let sent: `0x${string}`

    /** An answer, with the replica that served it (the X-Read-Replica header). */
    const get = async (route: string) => {
        const res = await fetch(`${api.explorerUrl}${route}`)
        return { status: res.status, replica: res.headers.get('x-read-replica'), body: await res.json() as any }
    }
    const lags = (heads: number[], primaryHead: number) => heads.map((head, i) => ({ replica: i + 1, head, lag_blocks: primaryHead - head }))
    const newBlocksAbove = (height: number) => socket.received((f) => f[3] === 'new_block' && f[4].block.height > height)

    /**
     * With replica 1 paused at `lagging` and replica 2 at `newest`: the answer is its replica's
     * alone, at its head, with that replica's rows (transactions one confirmation deep at block
     * `newest`, the transaction `sent` from replica 2 only).
     */
    const expectOwnReplicas = (route: string, a: Awaited<ReturnType<typeof get>>) => {
        const why = `${route} from replica ${a.replica}: ${a.status} ${JSON.stringify(a.body).slice(0, 600)}`
        expect(a.replica, why).to.be.oneOf(['1', '2'])
        const head = a.replica === '1' ? lagging : newest
        if (route === `/api/v2/blocks/${newest}/transactions`) {
            expect(a.status, why).to.equal(a.replica === '1' ? 404 : 200)
            if (a.replica === '2') expect(a.body.items.map((t: any) => [t.hash, t.confirmations]), why).to.deep.equal([[sent, 1]])
            return
        }
        expect(a.status, why).to.equal(200)
        const items: any[] = Array.isArray(a.body) ? a.body : a.body.items
        expect(items.length, why).to.be.greaterThan(0)
        if (route.endsWith('/blocks')) {
            expect(items[0].height, why).to.equal(head)
            return
        }
        // Transactions: the newest one is `sent` on replica 2 only; each counts its confirmations from its replica's head.
        expect(items[0].hash === sent, why).to.equal(a.replica === '2')
        for (const t of items) expect(t.confirmations, why).to.equal(head - t.block_number + 1)
    }

    before(async function () {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-replicas-'))
        chain = await startTestChain()
        primary = await startEmbeddedPostgres({ dir: path.join(dir, 'primary'), port: await freePort(), database: 'chain', fast: true })
        indexer = startIndexer({ databaseUrl: primary.url, rpcUrl: chain.url, contracts: chain.contracts })
        await waitForIndexedBlock(primary.url, await headHash(chain.client), indexer)
        replicas = []
        for (const name of ['replica-1', 'replica-2']) {
            replicas.push(await startStreamingReplica({
                primaryUrl: primary.url, primaryDataDir: path.join(dir, 'primary', 'data'), dir: path.join(dir, name), database: 'chain',
            }))
        }
        api = await startApi({
            databaseUrl: primary.url, rpcUrl: chain.url, contracts: chain.contracts,
            env: { CHAIN_API_READ_DATABASE_URL: replicas.map((r) => r.url).join(','), CHAIN_API_MAX_REPLICA_LAG_BLOCKS: String(MAX_LAG) },
        })
        await waitFor('the replicas to hold the primary\'s head', async () => (await get('/ready')).status === 200, 60_000, 200)
        socket = await PhoenixClient.connect(`${api.explorerUrl.replace(/^http/, 'ws')}/socket/v2/websocket?vsn=2.0.0`)
        await socket.join('blocks:new_block')
    })

    after(async function () {
        socket?.close()
        await api?.stop()
        await indexer?.stop()
        for (const replica of replicas ?? []) await replica.stop()
        await primary?.stop()
        await chain?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    it('reads from both replicas and reports their lag on /ready', async function () {
        const head = await committedHead(primary.url)
        for (const replica of replicas) expect(await committedHead(replica.url)).to.equal(head)
        const ready = await get('/ready')
        expect(ready.status).to.equal(200)
        expect(ready.body.checks).to.deep.equal({ database: 'ok', indexer: 'ok', replicas: 'ok' })
        expect(ready.body.details).to.deep.equal({ replicas: lags([head, head], head) })

        const blocks = await get('/api/v2/main-page/blocks')
        expect(blocks.status).to.equal(200)
        expect(blocks.body[0].height).to.equal(head)
        const byTime = await get(`/api?module=block&action=getblocknobytime&timestamp=${Math.floor(Date.now() / 1000) + 86_400}&closest=before`)
        expect(byTime.body).to.include({ status: '1', result: String(head) })
        for (let i = 0; i < 4; i++) expect((await get(`/api/v2/blocks/${head}`)).status).to.equal(200)
        // The API's statements ran on each replica's sessions (a standby's pg_stat_activity shows its own clients only).
        for (const replica of replicas) {
            const sessions = await one<{ query: string }>(replica.url,
                `SELECT query FROM pg_stat_activity WHERE datname = 'chain' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
            expect(sessions.some((s) => /\b(block|chain_counters|internal_transaction)\b/.test(s.query)), JSON.stringify(sessions)).to.equal(true)
        }
    })

    it('behind the primary, serves the replicas\' own head, never a block they lack; /ready answers 503 past the limit', async function () {
        for (const replica of replicas) await replica.pauseReplay()
        held = await committedHead(replicas[0].url)
        expect(await committedHead(replicas[1].url)).to.equal(held)

        await mineEmptyBlocks(chain.client, 1)
        await waitForIndexedBlock(primary.url, await headHash(chain.client), indexer)
        expect(await committedHead(primary.url)).to.equal(held + 1)
        // One block behind, within the limit: ready, the lag reported.
        const within = await get('/ready')
        expect(within.status).to.equal(200)
        expect(within.body.details.replicas).to.deep.equal(lags([held, held], held + 1))
        // The primary holds block held + 1; the API answers as the replica it reads does.
        expect((await get(`/api/v2/blocks/${held + 1}`)).status).to.equal(404)
        expect((await get(`/api/v2/blocks/${held}`)).status).to.equal(200)
        expect((await get('/api/v2/main-page/blocks')).body[0].height).to.equal(held)
        expect((await get('/api/v2/blocks')).body.items[0].height).to.equal(held)
        const countdown = await get(`/api?module=block&action=getblockcountdown&blockno=${held + 1}`)
        expect(countdown.body.result).to.include({ CurrentBlock: String(held), RemainingBlock: '1' })

        await mineEmptyBlocks(chain.client, MAX_LAG + 1)
        await waitForIndexedBlock(primary.url, await headHash(chain.client), indexer)
        top = await committedHead(primary.url)
        expect(top).to.equal(held + MAX_LAG + 2)
        const past = await get('/ready')
        expect(past.status).to.equal(503)
        const behind = `behind by ${MAX_LAG + 2} blocks`
        expect(past.body.checks).to.deep.equal({ database: 'ok', indexer: 'ok', replicas: `replica 1 ${behind}, replica 2 ${behind}` })
        expect(past.body.details.replicas).to.deep.equal(lags([held, held], top))
        expect((await get(`/api/v2/blocks/${top}`)).status).to.equal(404)
        // The primary announced every new head; the socket pushes none of them before a replica holds them.
        expect(newBlocksAbove(held)).to.deep.equal([])
    })

    it('catches up when replay resumes: ready again, every block served and pushed once', async function () {
        for (const replica of replicas) await replica.resumeReplay()
        await waitFor('/ready to answer 200 again', async () => (await get('/ready')).status === 200, 60_000, 200)
        expect((await get('/ready')).body.details.replicas).to.deep.equal(lags([top, top], top))
        for (let height = held + 1; height <= top; height++) {
            const block = await chain.client.getBlock({ blockNumber: BigInt(height) })
            const served = await get(`/api/v2/blocks/${height}`)
            expect(served.status).to.equal(200)
            expect(served.body.hash).to.equal(block.hash)
            const pushed = await socket.next(`new_block ${height}`, (f) => f[3] === 'new_block' && f[4].block.height === height)
            expect(pushed[4].block.hash).to.equal(block.hash)
        }
        expect(newBlocksAbove(held)).to.deep.equal([])
        expect((await get('/api/v2/main-page/blocks')).body[0].height).to.equal(top)
    })

    it('one replica behind, the other not: each request reads one of them throughout, its head with its rows', async function () {
        await replicas[0].pauseReplay()
        lagging = await committedHead(replicas[0].url)
        const [from, to] = await chain.client.request({ method: 'eth_accounts' } as any) as string[]
        const gasPrice = numberToHex(2n * await chain.client.getGasPrice())
        sent = await chain.client.request({ method: 'eth_sendTransaction', params: [{ from, to, value: '0x1', gasPrice }] } as any) as `0x${string}`
        // Anvil answers eth_sendTransaction before it mines the block (its miner runs apart), so
        // 'latest' may still be the block before: the transaction's own block is its receipt's.
        const receipt = await chain.client.waitForTransactionReceipt({ hash: sent, pollingInterval: 50 })
        newest = Number(receipt.blockNumber)
        await waitForIndexedBlock(primary.url, receipt.blockHash, indexer)
        expect(await committedHead(primary.url)).to.equal(newest)
        expect(newest).to.equal(lagging + 1)
        await waitFor('replica 2 to hold the new head', async () => (await committedHead(replicas[1].url)) === newest, 60_000, 100)
        const ready = await get('/ready')
        expect(ready.status).to.equal(200)
        expect(ready.body.details.replicas).to.deep.equal(lags([lagging, newest], newest))

        // The block's transactions need the block (one statement), its transactions (another) and the
        // head (a third): from replica 1, 404; from replica 2, the transaction one block deep. A head
        // from one replica with rows from the other would show 0 confirmations.
        const answers = []
        for (let i = 0; i < 20; i++) answers.push(await get(`/api/v2/blocks/${newest}/transactions`))
        for (const a of answers) expectOwnReplicas(`/api/v2/blocks/${newest}/transactions`, a)
        expect(new Set(answers.map((a) => a.replica))).to.deep.equal(new Set(['1', '2']))
        for (let i = 0; i < 6; i++) expectOwnReplicas('/api/v2/main-page/blocks', await get('/api/v2/main-page/blocks'))
    })

    it('concurrent requests on both replicas: nothing kept from one (head, list keys, rendered items) reaches an answer of the other', async function () {
        // The lists' caches (rendered items, key pages, whole first pages) follow the head they
        // were read at; with the replicas a block apart, requests on both interleave in the process.
        const routes = ['/api/v2/blocks', '/api/v2/transactions', `/api/v2/blocks/${newest}/transactions`, '/api/v2/main-page/blocks', '/api/v2/main-page/transactions']
        const seen = new Set<string | null>()
        for (let round = 0; round < 6; round++) {
            const answers = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
                const route = routes[i % routes.length]
                return { route, answer: await get(route) }
            }))
            for (const { route, answer } of answers) {
                expectOwnReplicas(route, answer)
                seen.add(answer.replica)
            }
        }
        expect([...seen].sort()).to.deep.equal(['1', '2'])

        await replicas[0].resumeReplay()
        await waitFor('replica 1 to catch up', async () => (await committedHead(replicas[0].url)) === newest, 60_000, 100)
    })
})
