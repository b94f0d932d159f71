import { expect } from 'chai'
import * as path from 'path'
import { Client } from 'pg'
import { headHash, startTestChain, TestChain } from '../support/chain'
import { GraphqlAnswer, GraphqlProcess, startGraphql } from '../support/graphql'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { createTestDatabase } from '../support/postgres'
import { waitForOutput } from '../support/output'

const PROJECT_ROOT = path.resolve(__dirname, '../../..')

type Answer = GraphqlAnswer

/** What no answer may hold: a stack trace, a server path, a source position, SQL. */
function expectNoInternals(answer: Answer): void {
    for (const leak of ['stacktrace', '/work/', PROJECT_ROOT, 'node_modules', '.js:', 'postgres.c', '    at ']) {
        expect(answer.text, `leaks ${leak}`).not.to.include(leak)
    }
    expect(answer.text).not.to.match(/\bSELECT\b|\bFROM "|\bLIMIT \d/)
}

describe('GraphQL for analysts: limits that fit and fail politely', function () {
    this.timeout(300_000)
    let chain: TestChain
    let databaseUrl: string
    let indexer: IndexerProcess
    let db: Client
    const servers: GraphqlProcess[] = []
    let defaults: GraphqlProcess
    let tight: GraphqlProcess

    async function startServer(env: Record<string, string> = {}): Promise<GraphqlProcess> {
        const server = await startGraphql(databaseUrl, env)
        servers.push(server)
        return server
    }

    const post = (server: GraphqlProcess, body: unknown) => server.post(body)
    const query = (server: GraphqlProcess, q: string) => server.query(q)

    function expectData(answer: Answer): any {
        expect(answer.body?.errors, answer.text).to.equal(undefined)
        expect(answer.status).to.equal(200)
        return answer.body!.data
    }

    function expectError(answer: Answer, code: string, message: RegExp): void {
        expect(answer.body?.errors, answer.text).to.have.length(1)
        expect(answer.body!.errors![0].extensions).to.deep.equal({ code })
        expect(answer.body!.errors![0].message).to.match(message)
        expectNoInternals(answer)
    }

    /** Holds an exclusive lock on the pair table, so that any query of it waits, until release(). */
    async function lockPairs(): Promise<() => Promise<void>> {
        const locker = new Client({ connectionString: databaseUrl })
        await locker.connect()
        await locker.query('BEGIN')
        await locker.query('LOCK TABLE pair IN ACCESS EXCLUSIVE MODE')
        return async () => {
            await locker.query('ROLLBACK')
            await locker.end()
        }
    }

    const manyRootFields = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `p${i}: pairs(limit: 1) { id }`).join(' ')} }`
    const paddedBody = (bytes: number) => JSON.stringify({ query: '{ pairs(limit: 1) { id } }' + ' '.repeat(bytes) })

    before(async () => {
        chain = await startTestChain({ seedDays: 2 })
        databaseUrl = await createTestDatabase('graphql')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        await waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer)
        // Indexed: the tables stay as they are while the servers are asked.
        await indexer.stop()
        db = new Client({ connectionString: databaseUrl })
        await db.connect()
        defaults = await startServer()
        tight = await startServer({
            GRAPHQL_MAX_ROOT_FIELDS: '2', GRAPHQL_MAX_RESPONSE_NODES: '10', GRAPHQL_STATEMENT_TIMEOUT_MS: '300', GRAPHQL_MAX_REQUEST_KB: '1',
        })
    })

    after(async () => {
        for (const server of servers) await server.stop()
        await db?.end()
        await indexer?.stop()
        await chain?.stop()
    })

    it('answers every pair and every token without limit, and a day of swaps', async () => {
        const pairs = expectData(await query(defaults, '{ pairs { id reserve0 reserve1 } }')).pairs
        const stored = await db.query('SELECT id, reserve0::text, reserve1::text FROM pair ORDER BY id')
        expect(stored.rowCount).to.be.greaterThan(0)
        expect([...pairs].sort((a: any, b: any) => a.id.localeCompare(b.id))).to.deep.equal(stored.rows)

        const tokens = expectData(await query(defaults, '{ tokens { id symbol decimals } }')).tokens
        const tokenCount = await db.query('SELECT count(*)::int AS n FROM token')
        expect(tokens).to.have.length(tokenCount.rows[0].n)

        // The busiest UTC day of the seeded history, every field of every swap.
        const day = await db.query(`SELECT date_trunc('day', timestamp) AS start, count(*)::int AS n FROM swap GROUP BY 1 ORDER BY 2 DESC LIMIT 1`)
        const start: Date = day.rows[0].start
        const end = new Date(start.getTime() + 86_400_000)
        const swaps = expectData(await query(defaults, `{ swaps(where: { timestamp_gte: "${start.toISOString()}", timestamp_lt: "${end.toISOString()}" }, orderBy: id_ASC) {
            id pair { id } trade { id } blockNumber timestamp logIndex transactionHash trader sender to amount0In amount1In amount0Out amount1Out volume
        } }`)).swaps
        expect(day.rows[0].n).to.be.greaterThan(10)
        expect(swaps).to.have.length(day.rows[0].n)
        const first = await db.query('SELECT id, amount0_in::text FROM swap WHERE timestamp >= $1 ORDER BY id LIMIT 1', [start])
        expect(swaps[0]).to.include({ id: first.rows[0].id, amount0In: first.rows[0].amount0_in })
    })

    it('pages a pair\'s swaps by keyset, as the docs show', async () => {
        const pair = (await db.query('SELECT pair_id FROM swap GROUP BY pair_id ORDER BY count(*) DESC LIMIT 1')).rows[0].pair_id
        const stored = (await db.query('SELECT id FROM swap WHERE pair_id = $1 ORDER BY id', [pair])).rows.map((r) => r.id)
        expect(stored.length).to.be.greaterThan(10)
        const paged: string[] = []
        for (let last = ''; ;) {
            const page = expectData(await query(defaults, `{ swaps(where: { pair: { id_eq: "${pair}" }, id_gt: "${last}" }, orderBy: id_ASC, limit: 10) { id volume } }`)).swaps
            if (!page.length) break
            expect(page.length).to.be.at.most(10)
            paged.push(...page.map((s: { id: string }) => s.id))
            last = page[page.length - 1].id
        }
        expect(paged).to.deep.equal(stored)
    })

    it('answers a syntax error and an unknown field with the parser\'s message and nothing of the server', async () => {
        expectError(await query(defaults, '{ pairs { id '), 'GRAPHQL_PARSE_FAILED', /^Syntax Error: Expected Name, found <EOF>\.$/)
        expectError(await query(defaults, '{ pairs(limit: 1) { reserve } }'), 'GRAPHQL_VALIDATION_FAILED', /^Cannot query field "reserve" on type "Pair"\./)
        const badJson = await post(defaults, '{"query": ')
        expect(badJson.status).to.equal(400)
        expectError(badJson, 'BAD_REQUEST', /^the request body is not valid JSON$/)
        const elsewhere = await fetch(defaults.url.replace(/\/graphql$/, '/nothing-here'))
        expect(elsewhere.status).to.equal(404)
        expectError({ status: 404, text: await elsewhere.clone().text(), body: await elsewhere.json() } as Answer, 'NOT_FOUND', /^not found: GraphQL answers at \/graphql$/)
    })

    it('answers introspection, which GraphiQL and analysts\' tools read the schema from', async () => {
        const data = expectData(await query(defaults, '{ __schema { queryType { name } } __type(name: "Pair") { fields { name } } }'))
        expect(data.__schema.queryType.name).to.equal('Query')
        expect(data.__type.fields.map((f: { name: string }) => f.name)).to.include.members(['id', 'reserve0', 'reserve1'])
    })

    it('answers a query past each limit with the documented message, never a stack trace', async () => {
        expectError(await query(tight, '{ pairs { id reserve0 reserve1 } }'), 'RESPONSE_SIZE_LIMIT',
            /^response might exceed the size limit of 10 nodes \(fields × rows\): give lists a limit/)
        expectError(await query(tight, manyRootFields(3)), 'ROOT_FIELDS_LIMIT', /^only 2 root fields allowed, but got 3: split the query$/)
        expectError(await query(defaults, manyRootFields(21)), 'ROOT_FIELDS_LIMIT', /^only 20 root fields allowed, but got 21: split the query$/)

        const tooLarge = await post(tight, paddedBody(2048))
        expect(tooLarge.status).to.equal(413)
        expectError(tooLarge, 'REQUEST_TOO_LARGE', /^the request body is over the limit of 1 KB: split the query$/)

        const release = await lockPairs()
        try {
            expectError(await query(tight, '{ pairs(limit: 1) { id } }'), 'STATEMENT_TIMEOUT',
                /^the query ran longer than the statement timeout of 300 ms and was cancelled: narrow it with where or limit$/)
        } finally {
            await release()
        }
        // The log keeps what the answers leave out.
        await waitForOutput(tight, 'canceling statement due to statement timeout')
        await waitForOutput(tight, 'graphql query ended with errors')
    })

    it('moves each limit with its setting: what the tight server refuses, the defaults answer', async () => {
        expect(expectData(await query(defaults, '{ pairs { id reserve0 reserve1 } }')).pairs.length).to.be.greaterThan(3)
        expect(Object.keys(expectData(await query(defaults, manyRootFields(3))))).to.have.length(3)
        expect(expectData(await post(defaults, paddedBody(2048))).pairs).to.have.length(1)

        // One lock: the tight server gives up after 300 ms, the default one waits for the lock's release.
        const release = await lockPairs()
        const patient = query(defaults, '{ pairs(limit: 1) { id } }')
        try {
            expectError(await query(tight, '{ pairs(limit: 1) { id } }'), 'STATEMENT_TIMEOUT', /300 ms/)
        } finally {
            await release()
        }
        expect(expectData(await patient).pairs).to.have.length(1)
    })
})
