import { ContractsNotConfigured, ourContracts } from '../common/config'
import { loadSecrets } from '../common/secrets'
import { openDatabase } from '../common/service/database'
import { listen } from '../common/service/listen'
import { runService, Service } from '../common/service/run-service'
import { ChainAdapter } from './chains/adapter'
import { createAdapter } from './chains/factory'
import { allAssets, loadBridgeConfig, parseBridgeEnv } from './config'
import { LockManager } from './db'
import { EngineContext } from './engine/context'
import { Monitor } from './engine/monitor'
import { networkCheck } from './engine/readiness'
import { Worker } from './engine/worker'
import { createApp } from './http/app'
import { createOffApp } from './http/off'
import { KeyManager } from './keys'
import { observeBridgeDatabase, observeBridgeVaults, observeVaultHolds } from './metrics'
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
async function main(service: Service): Promise<void> {
    const { log, onStop } = service
    const env = parseBridgeEnv()
    if (!ourContracts(env)) {
        const reason = new ContractsNotConfigured('the bridge').message
        const server = await listen(createOffApp(env, reason, log), env.BRIDGE_PORT)
        onStop(() => server.close())
        log.warn({ port: server.port }, reason)
        return
    }
    const { pool, url: databaseUrl } = await openDatabase(env.DATABASE_URL, service)
    const secrets = loadSecrets(env, ['masterKey', 'bridgeAdminToken'], log)
    const config = loadBridgeConfig(env)
    const keys = new KeyManager(pool, secrets.masterKey)
    const networks = Object.values(config.networks)
    await keys.init([...new Set(networks.map((n) => n.family))])
    const locks = new LockManager(databaseUrl, log)
    onStop(() => locks.close())

    const adapters = new Map<ChainName, ChainAdapter>()
    for (const network of networks) adapters.set(network.chain, await createAdapter(network, keys, log))
    const provider = simpleSwapFromEnv(env)
    const ctx = new EngineContext(pool, config, adapters, keys, locks, log, provider)
    const vaults = new Map<string, string>()
    for (const [chain, adapter] of adapters) vaults.set(chain, await adapter.deriveAddress({ kind: 'vault' }))

    // Only a token set in the environment opens webhook management (npm start passes the generated development one).
    const webhooks = new Webhooks({ databaseUrl: databaseUrl, masterKey: secrets.masterKey, adminToken: env.BRIDGE_ADMIN_TOKEN, config: config.webhooks, log })
    const { app, ready } = createApp(env, ctx, vaults, webhooks)
    observeBridgeDatabase(pool)
    observeVaultHolds(pool, [...adapters.keys()])
    observeBridgeVaults(pool, allAssets(config).filter((a) => !a.disabled && vaults.has(a.chain)).map((a) => ({
        chain: a.chain, symbol: a.symbol, decimals: a.decimals, balance: () => ctx.adapter(a.chain).balance(vaults.get(a.chain)!, a),
    })))
    const worker = new Worker(ctx)
    const monitor = new Monitor(ctx, () => worker.kick())
    for (const chain of adapters.keys()) ready.add(`network ${chain}`, networkCheck(chain, monitor.headReads, config.monitorIntervalMs))
    const server = await listen(app, env.BRIDGE_PORT)
    onStop(() => server.close())
    const socket = new BridgeSocket(ctx, databaseUrl, env.TRUST_PROXY)
    await socket.attach(server.server, '/ws')
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
