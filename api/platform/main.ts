import { Pool } from 'pg'
import { loadSecrets } from '../../common/secrets'
import { listen } from '../../common/service/listen'
import { runService, Service } from '../../common/service/run-service'
import { applyMigrations } from '../../db/migrate'
import { createPlatformApp } from './app'
import { parsePlatformEnv } from './config'

/**
 * The wallet platform process (`npm run platform`), on PLATFORM_PORT: the one API process that
 * holds MASTER_KEY and signs for wallets, apart from the process serving anonymous explorer traffic.
 */
async function main({ log, onStop }: Service): Promise<void> {
    const env = parsePlatformEnv()
    if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required (npm start sets it for the embedded database)')
    await applyMigrations(env.DATABASE_URL)
    const pool = new Pool({ connectionString: env.DATABASE_URL, max: 20 })
    pool.on('error', (err) => log.error({ err }, 'idle database connection failed'))
    onStop(() => pool.end())
    const { masterKey } = loadSecrets(env, ['masterKey'], log)
    const server = await listen(createPlatformApp({ env, masterKey, pool, log }), env.PLATFORM_PORT)
    onStop(() => server.close())
    log.info({ port: server.port }, 'platform listening')
}

runService('platform', main)
