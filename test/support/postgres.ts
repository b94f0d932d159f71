import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { ensureDatabase, EmbeddedPostgres, startEmbeddedPostgres } from '../../db/postgres'
import { freePort } from './ports'

/**
 * One embedded Postgres cluster serves the whole test run (starting one takes seconds); each test
 * file gets databases of its own. The run's cluster is started by mocha's global setup below, in
 * the main process, and its URL handed to the test processes (mocha's parallel workers inherit the
 * environment) in TEST_POSTGRES_URL. A process that runs tests without that setup (mocha without
 * this file's require) starts a cluster of its own on first use and stops it after its tests.
 */
const URL_VARIABLE = 'TEST_POSTGRES_URL'

interface Cluster {
    pg: EmbeddedPostgres
    dir: string
}

let run: Cluster | undefined
let local: Promise<Cluster> | undefined
let counter = 0

async function startCluster(): Promise<Cluster> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-tests-'))
    const pg = await startEmbeddedPostgres({ dir, port: await freePort(), database: 'postgres', fast: true })
    return { pg, dir }
}

async function stopCluster({ pg, dir }: Cluster): Promise<void> {
    await pg.stop()
    fs.rmSync(dir, { recursive: true, force: true })
}

async function clusterUrl(): Promise<string> {
    const given = process.env[URL_VARIABLE]
    if (given) return given
    local ??= startCluster()
    return (await local).pg.url
}

/** A fresh database on the run's cluster, named for the test file that asks (`prefix`) and unique across workers. */
export async function createTestDatabase(prefix = 'test'): Promise<string> {
    const url = await clusterUrl()
    const name = `${prefix}_${process.pid}_${++counter}`
    await ensureDatabase(url, name)
    return url.replace(/\/postgres$/, `/${name}`)
}

export async function mochaGlobalSetup(): Promise<void> {
    if (process.env[URL_VARIABLE]) return
    run = await startCluster()
    process.env[URL_VARIABLE] = run.pg.url
}

export async function mochaGlobalTeardown(): Promise<void> {
    if (!run) return
    await stopCluster(run)
    delete process.env[URL_VARIABLE]
    run = undefined
}

export const mochaHooks = {
    async afterAll() {
        if (!local) return
        const cluster = await local
        local = undefined
        await stopCluster(cluster)
    },
}
