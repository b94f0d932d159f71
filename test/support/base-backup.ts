import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { waitFor } from '../../common/processes'
import { EmbeddedPostgres, postgresUserIds, startEmbeddedPostgres } from '../../db/postgres'
import { freePort } from './ports'

/**
 * A physical backup of an embedded Postgres cluster with WAL archiving, and its restore into a
 * fresh cluster, with only the binaries the embedded package ships (postgres, initdb, pg_ctl: no
 * pg_basebackup, and Debian's pg_dump 15 refuses a 17 server). The base backup uses Postgres' own
 * low-level API (pg_backup_start, a copy of the data directory, pg_backup_stop), which is what
 * pg_basebackup does over the replication protocol; the restore is Postgres' archive recovery
 * (recovery.signal, restore_command, an optional recovery target), as docs/production.md#backup-and-restore
 * tells an operator to do it.
 */

/** A cluster whose finished WAL segments are copied into `archiveDir`: what point-in-time recovery replays. */
export interface ArchivingCluster {
    pg: EmbeddedPostgres
    /** The cluster's directory: its data directory is `data/` inside. */
    dir: string
    archiveDir: string
}

/** Gives a tree to the user the cluster runs as (as root; otherwise the files are already ours). */
export function chownTree(dir: string, ids: { uid: number; gid: number } | undefined): void {
    if (!ids) return
    fs.chownSync(dir, ids.uid, ids.gid)
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, entry.name)
        if (entry.isDirectory()) chownTree(p, ids)
        else fs.chownSync(p, ids.uid, ids.gid)
    }
}

/** Starts a cluster (durable settings, as production runs) that archives every finished WAL segment. */
export async function startArchivingCluster(database: string): Promise<ArchivingCluster> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-primary-'))
    const archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-archive-'))
    // Started once to create the user the cluster runs as, who must own the archive.
    const pg = await startEmbeddedPostgres({
        dir, port: await freePort(), database,
        settings: {
            wal_level: 'replica',
            archive_mode: 'on',
            // Never overwrite a segment already archived (Postgres' documented form of the command).
            archive_command: `test ! -f ${archiveDir}/%f && cp %p ${archiveDir}/%f`,
        },
    })
    chownTree(archiveDir, postgresUserIds())
    return { pg, dir, archiveDir }
}

/**
 * The directories and files of a data directory a base backup leaves out (Postgres' "Making a
 * Base Backup Using the Low Level API"): WAL comes from the archive, the rest is rebuilt at start.
 */
const EMPTIED = new Set(['pg_wal', 'pg_replslot', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans'])
const LEFT_OUT = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map', 'recovery.signal', 'standby.signal'])

/** Copies a live data directory; a file that disappears while copied (a dropped relation, a temp file) is no loss: WAL replay accounts for it. */
export function copyLive(from: string, to: string, top: boolean): void {
    fs.mkdirSync(to, { recursive: true, mode: 0o700 })
    let entries: fs.Dirent[]
    try {
        entries = fs.readdirSync(from, { withFileTypes: true })
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
        throw err
    }
    for (const entry of entries) {
        if (entry.name.startsWith('pgsql_tmp') || entry.name === 'pg_internal.init') continue
        if (top && LEFT_OUT.has(entry.name)) continue
        const source = path.join(from, entry.name)
        const target = path.join(to, entry.name)
        if (entry.isDirectory()) {
            if (top && EMPTIED.has(entry.name)) fs.mkdirSync(target, { mode: 0o700 })
            else copyLive(source, target, false)
            continue
        }
        try {
            fs.copyFileSync(source, target)
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        }
    }
}

/**
 * A base backup of the running cluster into `target` (a data directory): pg_backup_start, a copy
 * of the files while the cluster keeps writing, pg_backup_stop, whose backup label goes with the
 * copy. pg_backup_stop waits until the WAL the backup needs is archived. The backup's end LSN.
 */
export async function takeBaseBackup(cluster: ArchivingCluster, target: string): Promise<string> {
    const client = new Client({ connectionString: cluster.pg.url })
    await client.connect()
    try {
        // Non-exclusive: the backup lives as long as this session.
        await client.query(`SELECT pg_backup_start('backup-restore test', true)`)
        copyLive(path.join(cluster.dir, 'data'), target, true)
        const { rows: [stop] } = await client.query('SELECT lsn::text, labelfile, spcmapfile FROM pg_backup_stop(true)')
        fs.writeFileSync(path.join(target, 'backup_label'), stop.labelfile)
        if (stop.spcmapfile) fs.writeFileSync(path.join(target, 'tablespace_map'), stop.spcmapfile)
        return stop.lsn
    } finally {
        await client.end()
    }
}

/** Closes the current WAL segment and waits until the archive holds it: everything committed so far can be replayed. */
export async function archiveCurrentWal(cluster: ArchivingCluster): Promise<void> {
    const client = new Client({ connectionString: cluster.pg.url })
    await client.connect()
    try {
        const { rows: [{ segment }] } = await client.query('SELECT pg_walfile_name(pg_switch_wal()) AS segment')
        await waitFor(`WAL segment ${segment} archived`, async () => fs.existsSync(path.join(cluster.archiveDir, segment)), 60_000, 100)
    } finally {
        await client.end()
    }
}

/**
 * A fresh cluster from a base backup and the WAL archive: archive recovery up to `target` (a
 * restore point's name), or to the end of the archive without one, then promoted to a primary of
 * its own on a new port. Resolves once it accepts writes.
 */
export async function restoreCluster(backup: string, archiveDir: string, database: string, target?: { name: string }): Promise<{ pg: EmbeddedPostgres; dir: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-restored-'))
    const dataDir = path.join(dir, 'data')
    fs.cpSync(backup, dataDir, { recursive: true })
    fs.writeFileSync(path.join(dataDir, 'recovery.signal'), '')
    fs.chmodSync(dataDir, 0o700)
    chownTree(dir, postgresUserIds())
    const pg = await startEmbeddedPostgres({
        dir, port: await freePort(), database,
        settings: {
            restore_command: `cp ${archiveDir}/%f %p`,
            ...(target ? { recovery_target_name: target.name, recovery_target_action: 'promote' } : {}),
        },
    })
    await waitFor('the restored cluster to finish recovery and accept writes', async () => {
        const client = new Client({ connectionString: pg.url })
        await client.connect()
        try {
            return !(await client.query('SELECT pg_is_in_recovery() AS r')).rows[0].r
        } finally {
            await client.end()
        }
    }, 120_000, 200)
    return { pg, dir }
}
