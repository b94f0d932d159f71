import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { startEmbeddedPostgres } from '../../db/postgres'
import { freePort } from '../support/ports'

describe('embedded Postgres', () => {
    it('initialises a cluster, serves the database, and reuses the cluster after a restart', async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-test-'))
        try {
            let pg = await startEmbeddedPostgres({ dir, port: await freePort(), database: 'chain', fast: true })
            let client = new Client({ connectionString: pg.url })
            await client.connect()
            await client.query('CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)')
            await client.end()
            await pg.stop()

            pg = await startEmbeddedPostgres({ dir, port: await freePort(), database: 'chain', fast: true })
            client = new Client({ connectionString: pg.url })
            await client.connect()
            const { rows } = await client.query('SELECT v FROM kept')
            await client.end()
            await pg.stop()
            expect(rows).to.deep.equal([{ v: 42 }])
        } finally {
            fs.rmSync(dir, { recursive: true, force: true })
        }
    })
})
