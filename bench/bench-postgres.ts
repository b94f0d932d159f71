import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { startEmbeddedPostgres } from '../db/postgres'
import { freePort } from '../test/support/ports'
import { postmasterPid } from './cpu'

/** One benchmark run on an embedded Postgres of its own, removed when the run ends however it ends: docs/testing.md#benchmarks */

export interface BenchPostgresOptions {
    /** Prefix of the temporary data directory. */
    name: string
    /** fsync and synchronous commit off (faster loads); leave unset to measure as in production. */
    fast?: boolean
}

/**
 * Runs `run` as the process's main: starts the cluster (listening on a Unix socket too), hands over
 * its URL and postmaster pid, and exits 1 with the error's stack when the run fails.
 */
export function runOnBenchPostgres(options: BenchPostgresOptions, run: (databaseUrl: string, postgresPid: number) => Promise<void>): void {
    main(options, run).catch((err) => {
        process.stderr.write(`${err.stack ?? err}\n`)
        process.exit(1)
    })
}

async function main(options: BenchPostgresOptions, run: (databaseUrl: string, postgresPid: number) => Promise<void>): Promise<void> {
    // On Ctrl-C or SIGTERM, exit through process.exit so the exit hook of common/processes stops Postgres and the services.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))
    const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), `${options.name}-pg-`))
    const removeDir = () => fs.rmSync(pgDir, { recursive: true, force: true })
    try {
        const pg = await startEmbeddedPostgres({ dir: pgDir, port: await freePort(), database: 'bench', fast: options.fast, unixSocket: true })
        // Registered after the exit hook that kills Postgres, so the directory goes after the cluster.
        process.on('exit', removeDir)
        try {
            await run(pg.url, postmasterPid(pgDir))
        } finally {
            await pg.stop()
        }
    } finally {
        removeDir()
    }
}

/**
 * Runs `run` on a cluster kept in `dir` between runs, for a dataset too large to load every time
 * (bench:api's 10M mode). The first run loads it with `load` on a cluster with fsync off and
 * writes `meta` (what `load` answered) into the directory last, so a load cut short leaves no meta
 * and is started over; every run, the first included, then measures on the cluster restarted with
 * fsync on, as production runs.
 */
export function runOnKeptPostgres<T>(
    dir: string,
    load: (databaseUrl: string) => Promise<T>,
    run: (databaseUrl: string, postgresPid: number, loaded: T) => Promise<void>,
): void {
    const start = async (fast: boolean) => startEmbeddedPostgres({ dir, port: await freePort(), database: 'bench', fast, unixSocket: true })
    const metaFile = path.join(dir, 'dataset.json')
    const kept = async () => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))
        if (!fs.existsSync(metaFile)) {
            fs.rmSync(dir, { recursive: true, force: true })
            const pg = await start(true)
            try {
                fs.writeFileSync(metaFile + '.partial', JSON.stringify(await load(pg.url)))
            } finally {
                await pg.stop()
            }
            fs.renameSync(metaFile + '.partial', metaFile)
        }
        const loaded = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as T
        const pg = await start(false)
        try {
            await run(pg.url, postmasterPid(path.join(dir, 'data')), loaded)
        } finally {
            await pg.stop()
        }
    }
    kept().catch((err) => {
        process.stderr.write(`${err.stack ?? err}\n`)
        process.exit(1)
    })
}

/** A new empty database on the server of `serverUrl`; its URL. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
    const db = new Client({ connectionString: serverUrl })
    await db.connect()
    try {
        await db.query(`CREATE DATABASE ${name}`)
    } finally {
        await db.end()
    }
    const url = new URL(serverUrl)
    url.pathname = `/${name}`
    return url.toString()
}
