import { Pool } from 'pg'
import { ConfigError } from '../common/config'
import { loadSecrets } from '../common/secrets'
import { listen } from '../common/service/listen'
import { runService, Service } from '../common/service/run-service'
import { applyMigrations } from '../db/migrate'
import { ChainAdapter } from './chains/adapter'
import { createAdapter } from './chains/factory'
import { loadBridgeConfig, parseBridgeEnv } from './config'
import { LockManager } from './db'
import { EngineContext } from './engine/context'
import { Monitor } from './engine/monitor'
import { Worker } from './engine/worker'
import { createApp } from './http/app'
import { KeyManager } from './keys'
import { simpleSwapFromEnv } from './providers/simpleswap/factory'
import { ChainName } from './registry'
import { Webhooks } from './webhooks/service'
import { BridgeSocket } from './ws'

/**
 * The bridge process (`npm run bridge`): HTTP API under /api and WebSocket at /ws on BRIDGE_PORT,
 * the deposit monitor and the swap engine. Stateless apart from Postgres: replicas share the work
 * through advisory locks and status-guarded transitions, and each pushes every event to its own
 * WebSocket clients through LISTEN/NOTIFY.
 */
async function main({ log, onStop }: Service): Promise<void> {
    const env = parseBridgeEnv()
    if (!env.DATABASE_URL) throw new ConfigError('DATABASE_URL is required (npm start sets it for the embedded database)')
    // Services sharing a fresh database may migrate at the same moment; a loser retries once the winner is done.
    for (let attempt = 1; ; attempt++) {
        try {
            await applyMigrations(env.DATABASE_URL)
            break
        } catch (err) {
            if (attempt >= 5) throw err
            log.warn({ err, attempt }, 'migrations failed; retrying')
            await new Promise((r) => setTimeout(r, 1000 * attempt))
        }
    }
    const secrets = loadSecrets(env, ['masterKey', 'bridgeAdminToken'], log)
    const config = loadBridgeConfig(env)
    const pool = new Pool({ connectionString: env.DATABASE_URL, max: 20 })
    pool.on('error', (err) => log.error({ err }, 'idle database connection failed'))
    onStop(() => pool.end())
    const keys = new KeyManager(pool, secrets.masterKey)
    const networks = Object.values(config.networks)
    await keys.init([...new Set(networks.map((n) => n.family))])
    const locks = new LockManager(env.DATABASE_URL, log)
    onStop(() => locks.close())

    const adapters = new Map<ChainName, ChainAdapter>()
    for (const network of networks) adapters.set(network.chain, await createAdapter(network, keys, log))
    const provider = simpleSwapFromEnv(env)
    const ctx = new EngineContext(pool, config, adapters, keys, locks, log, provider)
    const vaults = new Map<string, string>()
    for (const [chain, adapter] of adapters) vaults.set(chain, await adapter.deriveAddress({ kind: 'vault' }))

    // Only a token set in the environment opens webhook management (npm start passes the generated development one).
    const webhooks = new Webhooks({ databaseUrl: env.DATABASE_URL, masterKey: secrets.masterKey, adminToken: env.BRIDGE_ADMIN_TOKEN, config: config.webhooks, log })
    const server = await listen(createApp(env, ctx, vaults, webhooks), env.BRIDGE_PORT)
    onStop(() => server.close())
    const socket = new BridgeSocket(ctx, env.DATABASE_URL, env.TRUST_PROXY)
    await socket.attach(server.server, '/ws')
    const worker = new Worker(ctx)
    const monitor = new Monitor(ctx, () => worker.kick())
    ctx.prices.start()
    worker.start()
    monitor.start()
    await webhooks.start()
    onStop(() => monitor.stop(), () => worker.stop(), () => ctx.prices.stop(), () => socket.close(), () => webhooks.stop())
    log.info({
        port: env.BRIDGE_PORT,
        networks: [...adapters.keys()],
        provider: provider ? provider.name : null,
        vaults: Object.fromEntries(vaults),
        monitorIntervalMs: config.monitorIntervalMs,
        priceSource: config.prices.kind,
    }, 'bridge listening')
}

runService('bridge', main)
