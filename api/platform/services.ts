import { Pool } from 'pg'
import { Logger } from '../../common/logger'
import { ApiContext } from '../context'
import { Auth } from './auth'
import { ChainService } from './chain'
import { PlatformEnv } from './config'
import { Keystore } from './keystore'
import { NonceManager } from './nonce-manager'
import { ReceiptWatcher } from './receipts'
import { TxSender } from './sender'

/** What the platform's routes are built from; one instance per process. */
export interface PlatformServices {
    env: PlatformEnv
    pool: Pool
    log: Logger
    keystore: Keystore
    auth: Auth
    chain: ChainService
    sender: TxSender
}

export function createServices(ctx: ApiContext): PlatformServices {
    const log = ctx.log.child({ surface: 'platform' })
    const keystore = new Keystore(ctx.secrets.masterKey)
    const chain = new ChainService(ctx.env)
    // Nonce locks hold a connection while a wallet's queue drains; their own small pool keeps
    // them from starving request queries, and bounds how long a lock may be waited for.
    const lockPool = new Pool({
        connectionString: ctx.env.DATABASE_URL,
        max: 8,
        idleTimeoutMillis: 10_000,
        allowExitOnIdle: true,
        lock_timeout: 15_000,
        statement_timeout: 15_000,
    } as ConstructorParameters<typeof Pool>[0])
    lockPool.on('error', (err) => log.error({ err }, 'idle nonce-lock connection failed'))
    const nonces = new NonceManager(chain.client, lockPool, log)
    const receipts = new ReceiptWatcher(chain.client, log)
    const sender = new TxSender(chain, nonces, receipts, ctx.env.PLATFORM_TX_TIMEOUT_SECONDS * 1000, log)
    return { env: ctx.env, pool: ctx.pool, log, keystore, auth: new Auth(ctx.pool, keystore, ctx.env, log), chain, sender }
}
