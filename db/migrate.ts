import { createOrmConfig } from '@subsquid/typeorm-config'
import * as path from 'path'
import { Client } from 'pg'
import { DataSource } from 'typeorm'

/** The repository root (compiled code runs from lib/), where db/migrations and lib/model live. */
export const PROJECT_DIR = path.resolve(__dirname, '../..')

/**
 * Subsquid's typeorm-config reads the connection from DB_URL; every process that uses it gets the
 * project's DATABASE_URL there, so one variable configures everything.
 */
export function useDatabaseUrl(databaseUrl: string): void {
    process.env.DB_URL = databaseUrl
}

/** Key of the advisory lock that serialises migration runs (any constant shared by every service). */
const MIGRATION_LOCK = 0x6d696772

/**
 * Applies pending migrations of db/migrations, in one transaction. Every service runs this at
 * start, often at the same moment: an advisory lock makes them take turns, so the second finds
 * nothing left to do instead of racing on TypeORM's migrations table.
 */
export async function applyMigrations(databaseUrl: string): Promise<string[]> {
    useDatabaseUrl(databaseUrl)
    const lock = new Client({ connectionString: databaseUrl })
    await lock.connect()
    try {
        await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
        const source = new DataSource({ ...createOrmConfig({ projectDir: PROJECT_DIR }), migrationsTransactionMode: 'all' })
        await source.initialize()
        try {
            const applied = await source.runMigrations()
            return applied.map((m) => m.name)
        } finally {
            await source.destroy()
        }
    } finally {
        // Closing the session releases the lock too, should the unlock itself fail.
        await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined)
        await lock.end()
    }
}
