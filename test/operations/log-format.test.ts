import { expect } from 'chai'
import { Spawned } from '../../common/processes'
import { headHash, mineEmptyBlocks, startTestChain, TestChain } from '../support/chain'
import { startIndexer, waitForIndexedBlock } from '../support/indexer'
import { GraphqlProcess, startGraphql } from '../support/graphql'
import { createTestDatabase } from '../support/postgres'

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const PINO_LEVELS = [10, 20, 30, 40, 50, 60]

interface LogLine {
    level: number
    time: string
    pid: number
    service: string
    component: string
    msg: string
    [field: string]: unknown
}

interface Captured {
    stdout(): string
    stderr(): string
}

/** Everything a process writes, stdout and stderr apart. */
function capture(proc: Spawned): Captured {
    let stdout = ''
    let stderr = ''
    proc.child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
    proc.child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    return { stdout: () => stdout, stderr: () => stderr }
}

/** Every line of stdout is one of our JSON lines, naming this service and process; stderr holds nothing. */
function expectOneFormat(output: Captured, service: string, pid: number): LogLine[] {
    expect(output.stderr(), `${service}'s stderr`).to.equal('')
    const lines = output.stdout().split('\n').filter((line) => line !== '')
    return lines.map((line) => {
        let entry: LogLine
        try {
            entry = JSON.parse(line)
        } catch {
            throw new Error(`${service} wrote a line that is not JSON: ${line}`)
        }
        expect(PINO_LEVELS, line).to.include(entry.level)
        expect(entry.time, line).to.match(ISO_TIME)
        expect(entry.pid, line).to.equal(pid)
        expect(entry.service, line).to.equal(service)
        expect(entry.component, line).to.be.a('string').and.not.equal('')
        expect(entry.msg, line).to.be.a('string')
        expect(entry, line).to.not.have.any.keys('ns')
        return entry
    })
}

describe('one log format: the indexer and the GraphQL server, Subsquid\'s lines included', function () {
    this.timeout(300_000)
    let chain: TestChain

    before(async () => {
        chain = await startTestChain()
        // Past INDEXER_FINALITY_CONFIRMATION, so that the indexer has both final and hot blocks.
        await mineEmptyBlocks(chain.client, 30)
    })

    after(async () => {
        await chain?.stop()
    })

    /**
     * Indexes the chain, then, while the indexer follows the head, asks the GraphQL server a query
     * with a variable named `password` and one with a variable of the wrong type (an answer with errors).
     */
    async function runAt(level: string): Promise<{ indexer: LogLine[]; graphql: LogLine[] }> {
        const databaseUrl = await createTestDatabase(`logs-${level}`)
        const indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts, env: { LOG_LEVEL: level } })
        const indexerOutput = capture(indexer.process)
        let graphql: GraphqlProcess | undefined
        try {
            await waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer)
            graphql = await startGraphql(databaseUrl, { LOG_LEVEL: level })
            const ask = (body: unknown) => graphql!.post(body).catch(() => undefined)
            const found = await ask({ query: 'query ($password: String!) { blocks(where: { id_eq: $password }, limit: 1) { id } }', variables: { password: 'hunter2-in-a-variable' } })
            expect(found?.status).to.equal(200)
            const refused = await ask({ query: 'query ($n: Int!) { blocks(limit: $n) { id } }', variables: { n: 'many' } })
            expect(refused?.status).to.equal(400)
            await mineEmptyBlocks(chain.client, 2)
            await waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer)
            const graphqlPid = graphql.process.child.pid!
            await graphql.process.stop(10_000)
            const indexerPid = indexer.process.child.pid!
            await indexer.stop()
            return { indexer: expectOneFormat(indexerOutput, 'indexer', indexerPid), graphql: expectOneFormat(graphql, 'graphql', graphqlPid) }
        } finally {
            await graphql?.stop()
            await indexer.stop()
        }
    }

    it('at LOG_LEVEL=debug: every line is pino JSON with service and component, Subsquid\'s debug lines among them, its variables redacted', async () => {
        const { indexer, graphql } = await runAt('debug')
        expect(indexer.filter((line) => line.level === 30), 'the indexer\'s info lines').to.not.be.empty
        const subsquid = indexer.filter((line) => line.component.startsWith('sqd:'))
        expect(subsquid.map((line) => line.component), 'the indexer\'s Subsquid lines').to.include('sqd:processor')
        expect(indexer.filter((line) => line.level === 20 && !line.component.startsWith('sqd:')), 'our own debug lines').to.not.be.empty
        // The RPC client's traffic stays at info unless SQD_DEBUG names it.
        expect(indexer.filter((line) => /:(rpc|rpc-client|http-client)(:|$)/.test(line.component) && line.level < 30).map((line) => line.component)).to.deep.equal([])

        const queries = graphql.filter((line) => line.component.startsWith('sqd:graphql-server') && line.msg === 'graphql query')
        expect(queries, 'Subsquid\'s debug lines of the GraphQL server').to.not.be.empty
        expect(new Set(queries.map((line) => line.level))).to.deep.equal(new Set([20]))
        const withSecret = queries.find((line) => String(line.graphqlDocument).includes('$password'))
        expect(withSecret?.graphqlVariables, 'the query\'s variables').to.deep.equal({ password: '[redacted]' })
    })

    it('at LOG_LEVEL=warn: nothing below warn, from us or from Subsquid, and Subsquid\'s warnings still come', async () => {
        const { indexer, graphql } = await runAt('warn')
        for (const line of [...indexer, ...graphql]) expect(line.level, JSON.stringify(line)).to.be.at.least(40)
        const refused = graphql.find((line) => line.msg === 'graphql query ended with errors')
        expect(refused, 'Subsquid\'s warning of the refused query').to.include({ level: 40, component: 'sqd:graphql-server:gql', service: 'graphql' })
    })
})
