import { Pool } from 'pg'
import { applyMigrations } from '../../db/migrate'
import { ConfigError } from '../config'
import { observePool } from './metrics'
import { Service } from './run-service'

/**
 * The database of a service process: DATABASE_URL required, pending migrations applied, and a pool
 * that the process's stop closes. Services sharing a fresh database migrate one after another (an
 * advisory lock in applyMigrations); a run that fails anyway is tried again a few times.
 */
export async function openDatabase(databaseUrl: string | undefined, { log, onStop }: Service, max = 20): Promise<{ pool: Pool; url: string }> {
    if (!databaseUrl) throw new ConfigError('DATABASE_URL is required (npm start sets it for the embedded database)')
    for (let attempt = 1; ; attempt++) {
        try {
            const applied = await applyMigrations(databaseUrl)
            if (applied.length) log.info({ applied }, 'migrations applied')
            break
        } catch (err) {
            if (attempt >= 5) throw err
            log.warn({ err, attempt }, 'migrations failed; retrying')
            await new Promise((resolve) => setTimeout(resolve, 1000 * attempt))
        }
    }
    const pool = new Pool({ connectionString: databaseUrl, max })
    pool.on('error', (err) => log.error({ err }, 'idle database connection failed'))
    observePool('main', pool)
    onStop(() => pool.end())
    return { pool, url: databaseUrl }
}
