import * as path from 'path'
import { spawnManaged, Spawned, waitFor } from '../../common/processes'
import { freePort } from './ports'

const GRAPHQL_MAIN = path.resolve(__dirname, '../../indexer/graphql.js')

/** What the server answered: the status, the text, and the body when it is JSON. */
export interface GraphqlAnswer {
    status: number
    text: string
    body?: { data?: any; errors?: { message: string; extensions?: { code?: string } }[] }
}

/** The real GraphQL process (indexer/graphql.ts) over a database, for a test. */
export interface GraphqlProcess {
    url: string
    /** What it wrote, both streams interleaved (the last 100 kB). */
    output(): string
    /** What it wrote to each stream, whole. */
    stdout(): string
    stderr(): string
    process: Spawned
    /** POSTs a body (an object is sent as JSON, a string as it is). */
    post(body: unknown): Promise<GraphqlAnswer>
    query(query: string, variables?: Record<string, unknown>): Promise<GraphqlAnswer>
    stop(): Promise<void>
}

/** Starts the GraphQL process on a free port and waits until it answers; `env` adds or overrides its settings. */
export async function startGraphql(databaseUrl: string, env: Record<string, string> = {}): Promise<GraphqlProcess> {
    const port = await freePort()
    let output = ''
    let stdout = ''
    let stderr = ''
    const proc = spawnManaged(process.execPath, [GRAPHQL_MAIN], {
        name: 'graphql',
        env: { ...process.env, DATABASE_URL: databaseUrl, GRAPHQL_PORT: String(port), GRAPHQL_HEALTH_PORT: '0', ...env },
    })
    const collect = (d: Buffer) => { output = (output + d.toString()).slice(-100_000) }
    proc.child.stdout?.on('data', (d: Buffer) => { stdout += d.toString(); collect(d) })
    proc.child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); collect(d) })
    const url = `http://127.0.0.1:${port}/graphql`
    const post = async (body: unknown): Promise<GraphqlAnswer> => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })
        const text = await res.text()
        let parsed: GraphqlAnswer['body']
        try { parsed = JSON.parse(text) } catch { parsed = undefined }
        return { status: res.status, text, body: parsed }
    }
    const server: GraphqlProcess = {
        url,
        output: () => output,
        stdout: () => stdout,
        stderr: () => stderr,
        process: proc,
        post,
        query: (query, variables) => post({ query, variables }),
        stop: () => proc.stop(),
    }
    try {
        // A server that exited will never answer: said at once, with what it wrote, not after the wait.
        await Promise.race([
            waitFor('the GraphQL server', async () => (await post({ query: '{ __typename }' }).catch(() => undefined))?.status === 200, 60_000, 250),
            proc.exited.then((code) => { throw new Error(`the GraphQL server exited (${code}) before it answered`) }),
        ])
    } catch (err) {
        await proc.stop()
        throw new Error(`${(err as Error).message}\n${output}`, { cause: err })
    }
    return server
}
