import { ourContracts } from '../../common/config'
import { loadSecrets } from '../../common/secrets'
import { openDatabase } from '../../common/service/database'
import { listen } from '../../common/service/listen'
import { runService, Service } from '../../common/service/run-service'
import { createPlatformApp } from './app'
import { parsePlatformEnv } from './config'

/**
 * The wallet platform process (`npm run platform`), on PLATFORM_PORT: the one API process that
 * holds MASTER_KEY and signs for wallets, apart from the process serving anonymous explorer traffic.
 */
async function main(service: Service): Promise<void> {
    const { log, onStop } = service
    const env = parsePlatformEnv()
    // A partial set of our contracts stops the start here; none leaves the chain routes off (chain.ts).
    ourContracts(env)
    const { pool } = await openDatabase(env.DATABASE_URL, service)
    const { masterKey } = loadSecrets(env, ['masterKey'], log)
    const { app, stop } = createPlatformApp({ env, masterKey, pool, log })
    onStop(stop)
    const server = await listen(app, env.PLATFORM_PORT)
    onStop(() => server.close())
    log.info({ port: server.port }, 'platform listening')
}

runService('platform', main)
