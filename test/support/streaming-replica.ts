import * as fs from 'fs'
import * as path from 'path'
import { Client } from 'pg'
import { EMBEDDED_PASSWORD, EMBEDDED_USER, EmbeddedPostgres, postgresUserIds, startEmbeddedPostgres } from '../../db/postgres'
import { chownTree, copyLive } from './base-backup'
import { freePort } from './ports'

/**
 * A hot standby of an embedded Postgres cluster, streaming from it, made with what the embedded
 * binaries offer (no pg_basebackup among them): the low-level backup API (pg_backup_start, a copy
 * of the data directory as base-backup.ts makes it, pg_backup_stop's backup_label), a physical replication slot that keeps
 * the WAL from the backup's start until the standby has received it, and standby.signal with
 * primary_conninfo. The standby runs as the same OS user as the primary, on a port of its own.
 */
export interface StreamingReplica extends EmbeddedPostgres {
    /** Stops applying the primary's WAL (it is still received): the replica falls behind. */
    pauseReplay(): Promise<void>
    resumeReplay(): Promise<void>
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
    const dataDir = path.join(options.dir, 'data')
    try {
        await admin.query('SELECT pg_create_physical_replication_slot($1, true)', [slot])
        // Non-exclusive: the backup lives as long as this session.
        await admin.query(`SELECT pg_backup_start('streaming replica', true)`)
        copyLive(options.primaryDataDir, dataDir, true)
        const { rows: [stop] } = await admin.query<{ labelfile: string; spcmapfile: string }>('SELECT labelfile, spcmapfile FROM pg_backup_stop(false)')
        fs.writeFileSync(path.join(dataDir, 'backup_label'), stop.labelfile)
        if (stop.spcmapfile) fs.writeFileSync(path.join(dataDir, 'tablespace_map'), stop.spcmapfile)
        fs.writeFileSync(path.join(dataDir, 'standby.signal'), '')
        fs.chmodSync(dataDir, 0o700)
        chownTree(options.dir, postgresUserIds())
    } catch (err) {
        await admin.query('SELECT pg_backup_stop(false)').catch(() => undefined)
        await admin.query('SELECT pg_drop_replication_slot($1)', [slot]).catch(() => undefined)
        throw err
    } finally {
        await admin.end()
    }

    const pg = await startEmbeddedPostgres({
        dir: options.dir, port: await freePort(), database: options.database, fast: true,
        settings: {
            primary_conninfo: `host=${primary.hostname} port=${primary.port} user=${EMBEDDED_USER} password=${EMBEDDED_PASSWORD} application_name=${slot}`,
            primary_slot_name: slot,
            hot_standby: 'on',
        },
    })
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
