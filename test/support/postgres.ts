import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { ensureDatabase, EmbeddedPostgres, startEmbeddedPostgres } from '../../db/postgres'
import { freePort } from './ports'

/**
 * One embedded Postgres cluster serves the whole test run (starting one takes seconds); each suite
 * gets a database of its own. The cluster is stopped by the root hook below.
 */
let cluster: Promise<{ pg: EmbeddedPostgres; dir: string }> | undefined
let counter = 0

export async function createTestDatabase(prefix = 'test'): Promise<string> {
    cluster ??= (async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-tests-'))
        const pg = await startEmbeddedPostgres({ dir, port: await freePort(), database: 'postgres', fast: true })
        return { pg, dir }
    })()
    const { pg } = await cluster
    const name = `${prefix}_${process.pid}_${++counter}`
    await ensureDatabase(pg.url, name)
    return pg.url.replace(/\/postgres$/, `/${name}`)
}

export const mochaHooks = {
    async afterAll() {
        if (!cluster) return
        const { pg, dir } = await cluster
        await pg.stop()
        fs.rmSync(dir, { recursive: true, force: true })
        cluster = undefined
    },
}
