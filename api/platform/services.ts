import { Pool } from 'pg'
import { WorkPool } from '../../common/work-pool'
import { Logger } from '../../common/logger'
import { RateLimit } from '../../common/service/rate-limit'
import { LockManager } from '../../db/advisory-locks'
import { Idempotency } from '../../common/service/idempotency'
import { Auth } from './auth'
import { ChainService } from './chain'
import { PlatformEnv } from './config'
import { claimOnAuthentication, IdempotentWalletTransactions, platformIdempotency } from './idempotency'
import { Keystore } from './keystore'
import { ReceiptWatcher } from './receipts'
import { TxSender } from './sender'

/** How often stored transactions no request waits on are followed (rebroadcast, or noted landed or dead). */
const RESUME_INTERVAL_MS = 5_000
/** How often idempotency keys past their 24 h are deleted. */
const IDEMPOTENCY_SWEEP_MS = 3_600_000

/** What the platform process starts from (api/platform/main.ts). */
export interface PlatformContext {
    env: PlatformEnv
    /** Wallet keys are sealed under it (keystore.ts). */
    masterKey: string
    pool: Pool
    log: Logger
}

/** What the platform's routes are built from; one instance per process. */
export interface PlatformServices {
    env: PlatformEnv
    pool: Pool
    log: Logger
    keystore: Keystore
    auth: Auth
    /** Per client IP, on register and register_random: each may create a user, which costs an argon2id run. */
    registrations: RateLimit
    chain: ChainService
    sender: TxSender
    /** Idempotency-Key on the signing routes (idempotency.ts). */
    idempotency: Idempotency
    /** Ends the background work: following stored transactions, and the advisory locks' connection. */
    stop(): Promise<void>
}

export function createServices(ctx: PlatformContext): PlatformServices {
    const log = ctx.log.child({ surface: 'platform' })
    const hashes = new WorkPool({ concurrency: ctx.env.PLATFORM_HASH_CONCURRENCY, queue: ctx.env.PLATFORM_HASH_QUEUE })
    const keystore = new Keystore(ctx.masterKey, hashes)
    const registrations = new RateLimit(
        ctx.pool,
        'platform_rate_limit',
        { name: 'register', points: ctx.env.PLATFORM_REGISTER_PER_IP, windowSeconds: ctx.env.PLATFORM_REGISTER_WINDOW_SECONDS },
        (seconds) => `Too many registrations from this address; retry in ${seconds} seconds`
    )
    const chain = new ChainService(ctx.env)
    // Signing per wallet is serialised by advisory locks on one connection of their own (db/advisory-locks.ts).
    const locks = new LockManager(ctx.env.DATABASE_URL!, log)
    // A nonce used at this depth by a transaction not ours proves a stored one dead: the depth the indexer takes as final.
    const idempotency = platformIdempotency(ctx.pool, locks, log)
    idempotency.start(IDEMPOTENCY_SWEEP_MS)
    const txs = new IdempotentWalletTransactions(ctx.pool, locks, chain.client, chain.chainId, { confirmations: ctx.env.INDEXER_FINALITY_CONFIRMATION }, log)
    txs.idempotency = idempotency
    txs.start(RESUME_INTERVAL_MS)
    const receipts = new ReceiptWatcher(chain.client, log)
    const sender = new TxSender(chain, txs, receipts, ctx.env.PLATFORM_TX_TIMEOUT_SECONDS * 1000, log)
    const stop = async () => {
        txs.stop()
        idempotency.stop()
        await locks.close()
    }
    const auth = new Auth(ctx.pool, keystore, ctx.env, log)
    claimOnAuthentication(auth, idempotency)
    return { env: ctx.env, pool: ctx.pool, log, keystore, auth, registrations, chain, sender, idempotency, stop }
}
