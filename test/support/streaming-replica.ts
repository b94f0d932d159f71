import * as fs from 'fs'
import * as path from 'path'
import { Client } from 'pg'
import { EMBEDDED_PASSWORD, EMBEDDED_USER, EmbeddedPostgres, startEmbeddedPostgres } from '../../db/postgres'
import { freePort } from './ports'

/**
 * A hot standby of an embedded Postgres cluster, streaming from it, made with what the embedded
 * binaries offer (no pg_basebackup among them): the low-level backup API (pg_backup_start, a copy
 * of the data directory, pg_backup_stop's backup_label), a physical replication slot that keeps
 * the WAL from the backup's start until the standby has received it, and standby.signal with
 * primary_conninfo. The standby runs as the same OS user as the primary, on a port of its own.
 */
export interface StreamingReplica extends EmbeddedPostgres {
    /** Stops applying the primary's WAL (it is still received): the replica falls behind. */
    pauseReplay(): Promise<void>
    resumeReplay(): Promise<void>
}

/** What a base backup leaves out of the copy (the PostgreSQL manual, "Making a Base Backup Using the Low Level API"). */
const LEFT_OUT = new Set(['postmaster.pid', 'postmaster.opts', 'pg_wal', 'pg_replslot', 'pg_stat_tmp', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_subtrans'])
/** Directories copied empty: the server expects them to exist. */
const EMPTIED = ['pg_wal', 'pg_wal/archive_status', 'pg_wal/summaries', 'pg_replslot', 'pg_stat_tmp', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_subtrans']

/** Copies a live data directory; a file removed by the server meanwhile (a temporary one) is skipped, as base backups do. */
function copyLive(from: string, to: string, owner: { uid: number; gid: number }, top = true): void {
    fs.mkdirSync(to, { mode: 0o700 })
    fs.chownSync(to, owner.uid, owner.gid)
    for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
        if (top && LEFT_OUT.has(entry.name)) continue
        const source = path.join(from, entry.name)
        const target = path.join(to, entry.name)
        try {
            if (entry.isDirectory()) copyLive(source, target, owner, false)
            else if (entry.isFile()) {
                fs.copyFileSync(source, target)
                fs.chownSync(target, owner.uid, owner.gid)
            }
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        }
    }
}

function writeOwned(file: string, text: string, owner: { uid: number; gid: number }): void {
    fs.writeFileSync(file, text, { mode: 0o600 })
    fs.chownSync(file, owner.uid, owner.gid)
}

/**
 * Starts a streaming replica of the cluster at `primaryUrl` whose data directory is
 * `primaryDataDir`, in `dir` (created), serving `database` (which must exist on the primary).
 */
export async function startStreamingReplica(options: { primaryUrl: string; primaryDataDir: string; dir: string; database: string }): Promise<StreamingReplica> {
    const primary = new URL(options.primaryUrl)
    const slot = `replica_${path.basename(options.dir).replace(/[^a-z0-9_]/gi, '_').toLowerCase()}`
    const adminUrl = new URL(options.primaryUrl)
    adminUrl.pathname = '/postgres'
    const admin = new Client({ connectionString: adminUrl.toString() })
    await admin.connect()
    const owner = fs.statSync(options.primaryDataDir)
    const dataDir = path.join(options.dir, 'data')
    try {
        await admin.query('SELECT pg_create_physical_replication_slot($1, true)', [slot])
        await admin.query(`SELECT pg_backup_start('streaming replica', true)`)
        fs.mkdirSync(options.dir, { recursive: true })
        copyLive(options.primaryDataDir, dataDir, owner)
        const { rows: [stop] } = await admin.query<{ labelfile: string; spcmapfile: string }>('SELECT labelfile, spcmapfile FROM pg_backup_stop(false)')
        for (const dir of EMPTIED) {
            fs.mkdirSync(path.join(dataDir, dir), { recursive: true, mode: 0o700 })
            fs.chownSync(path.join(dataDir, dir), owner.uid, owner.gid)
        }
        writeOwned(path.join(dataDir, 'backup_label'), stop.labelfile, owner)
        if (stop.spcmapfile) writeOwned(path.join(dataDir, 'tablespace_map'), stop.spcmapfile, owner)
        writeOwned(path.join(dataDir, 'standby.signal'), '', owner)
        const conninfo = `host=${primary.hostname} port=${primary.port} user=${EMBEDDED_USER} password=${EMBEDDED_PASSWORD} application_name=${slot}`
        fs.appendFileSync(path.join(dataDir, 'postgresql.auto.conf'), `primary_conninfo = '${conninfo}'\nprimary_slot_name = '${slot}'\nhot_standby = on\n`)
    } catch (err) {
        await admin.query('SELECT pg_backup_stop(false)').catch(() => undefined)
        await admin.query('SELECT pg_drop_replication_slot($1)', [slot]).catch(() => undefined)
        throw err
    } finally {
        await admin.end()
    }

    const pg = await startEmbeddedPostgres({ dir: options.dir, port: await freePort(), database: options.database, fast: true })
    const onReplica = async (sql: string) => {
        const client = new Client({ connectionString: pg.url })
        await client.connect()
        try {
            await client.query(sql)
        } finally {
            await client.end()
        }
    }
    return {
        ...pg,
        pauseReplay: () => onReplica('SELECT pg_wal_replay_pause()'),
        resumeReplay: () => onReplica('SELECT pg_wal_replay_resume()'),
        stop: async () => {
            await pg.stop()
            // The slot would hold the primary's WAL for good (unless the primary is gone too).
            const client = new Client({ connectionString: options.primaryUrl })
            await client.connect().then(
                () => client.query('SELECT pg_drop_replication_slot($1)', [slot]).catch(() => undefined),
                () => undefined,
            )
            await client.end().catch(() => undefined)
        },
    }
}
