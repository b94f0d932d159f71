import { expect } from 'chai'
import * as http from 'http'
import { Client } from 'pg'
import { waitFor } from '../../common/processes'
import { ApiProcess, PlatformProcess, startApi, startPlatformProcess } from '../support/api'
import { mineEmptyBlocks, startTestChain, TestChain } from '../support/chain'
import { IndexerProcess, startIndexer } from '../support/indexer'
import { freePort } from '../support/ports'
import { createTestDatabase } from '../support/postgres'
import { TcpGate } from '../support/tcp-gate'

/** GET /health, /ready and /metrics of each process, run for real (docs/operations.md). */

const getJson = async (url: string) => {
    const res = await fetch(url)
    return { status: res.status, body: await res.json() as any }
}
const getText = async (url: string) => (await fetch(url)).text()

/** A JSON-RPC node whose head the test sets: all the api's readiness asks of a node. */
async function stubNode(): Promise<{ url: string; head: { number: number }; close(): Promise<void> }> {
    const head = { number: 100 }
    const server = http.createServer((req, res) => {
        let body = ''
        req.on('data', (d) => (body += d))
        req.on('end', () => {
            const { id, method } = JSON.parse(body)
            const answer = method === 'eth_blockNumber'
                ? { jsonrpc: '2.0', id, result: `0x${head.number.toString(16)}` }
                : { jsonrpc: '2.0', id, error: { code: -32601, message: 'not served by this stub' } }
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
        })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    return { url, head, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

async function setIndexedHead(databaseUrl: string, block: number): Promise<void> {
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        await db.query(
            `INSERT INTO chain_counters (id, blocks, transactions, addresses, token_transfers, last_block, last_block_timestamp, average_block_time, coin_supply)
             VALUES ('chain', $1, 0, 0, 0, $1, now(), 0, 0) ON CONFLICT (id) DO UPDATE SET last_block = EXCLUDED.last_block`,
            [block]
        )
    } finally {
        await db.end()
    }
}

/** The sample lines of one metric in Prometheus text. */
const samples = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))

describe('operations endpoints', function () {
    this.timeout(300_000)

    describe('api process', function () {
        let databaseUrl: string
        let gate: TcpGate
        let node: Awaited<ReturnType<typeof stubNode>>
        let api: ApiProcess

        before(async () => {
            databaseUrl = await createTestDatabase('ops_api')
            const gated = await TcpGate.before(databaseUrl)
            gate = gated.gate
            node = await stubNode()
            api = await startApi({ databaseUrl: gated.url, rpcUrl: node.url, env: { INDEXER_READY_MAX_LAG: '5' } })
        })

        after(async () => {
            await api?.stop()
            await node?.close()
            await gate?.close()
        })

        it('GET /health answers 200 from memory', async () => {
            const { status, body } = await getJson(`${api.explorerUrl}/health`)
            expect(status).to.equal(200)
            expect(body.status).to.equal('ok')
        })

        it('GET /ready answers 503 while the indexer is further behind the node than INDEXER_READY_MAX_LAG, 200 once within it', async () => {
            // Nothing indexed yet: the indexed head is -1.
            const behind = await getJson(`${api.explorerUrl}/ready`)
            expect(behind.status).to.equal(503)
            expect(behind.body).to.deep.equal({ ready: false, checks: { database: 'ok', indexer: 'indexer behind by 101 blocks' } })
            await setIndexedHead(databaseUrl, 96)
            const ready = await waitFor('the api to be ready', async () => {
                const answer = await getJson(`${api.explorerUrl}/ready`)
                return answer.status === 200 ? answer : undefined
            }, 20_000, 100)
            expect(ready.body).to.deep.equal({ ready: true, checks: { database: 'ok', indexer: 'ok' } })
        })

        it('GET /metrics labels requests by route template, never the raw URL', async () => {
            await fetch(`${api.explorerUrl}/api/v2/blocks/424242`)
            await fetch(`${api.explorerUrl}/no-such-route-31337`)
            const text = await getText(`${api.explorerUrl}/metrics`)
            const requests = samples(text, 'http_request_duration_seconds_count')
            expect(requests.some((l) => l.includes('route="/api/v2/blocks/:block"') && l.includes('method="GET"') && l.includes('service="api"'))).to.equal(true)
            expect(requests.some((l) => l.includes('route="unmatched"') && l.includes('status="404"'))).to.equal(true)
            expect(text).to.not.include('424242')
            expect(text).to.not.include('31337')
            expect(samples(text, 'db_pool_connections').some((l) => l.includes('pool="main"'))).to.equal(true)
            expect(samples(text, 'process_cpu_user_seconds_total')).to.have.length(1)
        })

        it('GET /ready answers 503 naming the database once it is unreachable; /health still 200', async () => {
            await gate.close()
            const { status, body } = await getJson(`${api.explorerUrl}/ready`)
            expect(status).to.equal(503)
            expect(body.ready).to.equal(false)
            expect(body.checks.database).to.equal('database unreachable')
            expect((await fetch(`${api.explorerUrl}/health`)).status).to.equal(200)
        })
    })

    describe('platform process', function () {
        let gate: TcpGate
        let platform: PlatformProcess

        before(async () => {
            const gated = await TcpGate.before(await createTestDatabase('ops_platform'))
            gate = gated.gate
            platform = await startPlatformProcess({ databaseUrl: gated.url })
        })

        after(async () => {
            await platform?.stop()
            await gate?.close()
        })

        it('GET /health keeps its body; /ready is 200; /metrics counts /health under its template', async () => {
            const health = await getJson(`${platform.platformUrl}/health`)
            expect(health.status).to.equal(200)
            expect(health.body).to.include({ status: 'ok', rpcConfigured: false })
            const ready = await getJson(`${platform.platformUrl}/ready`)
            expect(ready).to.deep.equal({ status: 200, body: { ready: true, checks: { database: 'ok' } } })
            const text = await getText(`${platform.platformUrl}/metrics`)
            expect(samples(text, 'http_request_duration_seconds_count').some((l) => l.includes('route="/health"') && l.includes('service="platform"'))).to.equal(true)
        })

        it('GET /ready answers 503 naming the database once it is unreachable', async () => {
            await gate.close()
            const { status, body } = await getJson(`${platform.platformUrl}/ready`)
            expect(status).to.equal(503)
            expect(body).to.deep.equal({ ready: false, checks: { database: 'database unreachable' } })
        })
    })

    describe('indexer process (health port)', function () {
        let chain: TestChain
        let indexer: IndexerProcess
        let healthUrl: string

        before(async () => {
            chain = await startTestChain()
            await mineEmptyBlocks(chain.client, 20)
            const port = await freePort()
            healthUrl = `http://127.0.0.1:${port}`
            indexer = startIndexer({
                databaseUrl: await createTestDatabase('ops_indexer'), rpcUrl: chain.url, contracts: chain.contracts,
                env: { INDEXER_HEALTH_PORT: String(port), INDEXER_TRACING: 'none' },
            })
        })

        after(async () => {
            await indexer?.stop()
            await chain?.stop()
        })

        it('GET /metrics reports heights, lag, rows written per table and batch durations once it follows', async () => {
            await waitFor('the indexer to follow', async () => (await fetch(`${healthUrl}/ready`).catch(() => undefined))?.status === 200, 120_000, 200)
            expect((await fetch(`${healthUrl}/health`)).status).to.equal(200)
            const head = Number(await chain.client.getBlockNumber({ cacheTime: 0 }))
            const text = await getText(`${healthUrl}/metrics`)
            const value = (name: string) => Number(samples(text, name)[0]?.split(' ').pop())
            expect(value('indexer_head_height')).to.equal(head)
            expect(value('indexer_indexed_height')).to.be.within(head - 5, head)
            expect(value('indexer_lag_blocks')).to.equal(head - value('indexer_indexed_height'))
            expect(samples(text, 'indexer_lag_seconds')).to.have.length(1)
            const blockRows = samples(text, 'indexer_rows_written_total').find((l) => l.includes('table="block"'))
            expect(Number(blockRows?.split(' ').pop())).to.be.at.least(value('indexer_indexed_height'))
            expect(samples(text, 'indexer_batch_duration_seconds_count').length).to.be.greaterThan(0)
            expect(text).to.include('service="indexer"')
        })
    })
})
