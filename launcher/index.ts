import * as fs from 'fs'
import * as path from 'path'
import { CONTRACTS_HINT, dataDir, ourContracts, rpcUrl } from '../common/config'
import { createLogger, Logger, setLogOutput, setLogService } from '../common/logger'
import { spawnManaged, Spawned } from '../common/processes'
import { loadSecrets } from '../common/secrets'
import { startEmbeddedPostgres } from '../db/postgres'
import { startDevnet, zooFile } from '../devnet'
import { bridgeVaults, fundLocalBridgeVaults, startBridgeChains } from '../devnet/bridge-chains'
import { startLocalNetworks } from '../devnet/local-networks'
import { RpcLimits } from '../devnet/rpc-limits'
import { LauncherEnv, parseLauncherEnv } from './config'
import { reportIndexing } from './indexing-progress'
import { ProgressLine } from './progress-line'
import { readableLine, readableLogs, relayReadable } from './readable-logs'
import { serviceEnv, SERVICES } from './services'
import { claimDir } from './single-instance'

/**
 * `npm start`: the whole stack on one machine. Embedded Postgres and the native devnet unless
 * DATABASE_URL / RPC_URL point elsewhere, then every service as its own process, as production
 * runs them. Ctrl-C or SIGTERM stops everything it started.
 */

const LIB_DIR = path.resolve(__dirname, '..')

type Stoppable = { name: string; stop(): Promise<void> }

async function main(): Promise<void> {
    const env = parseLauncherEnv()
    // On a chain we did not deploy (RPC_URL without our contracts: docs/own-chain.md) the bridge is
    // off, so the local networks it alone uses are not started. A partial set stops here, named.
    const bridgeOff = env.RPC_URL !== undefined && ourContracts(env) === undefined
    // The data directory, and lib/ (npm start's build would delete the files this one runs from).
    for (const [dir, where] of [[dataDir(env), `on ${dataDir(env)}`], [LIB_DIR, `from ${LIB_DIR}`]]) {
        const claim = claimDir(dir)
        if ('heldBy' in claim) {
            process.stderr.write(`npm start is already running (pid ${claim.heldBy}) ${where}: use that one, or stop it first (Ctrl-C in its terminal, or kill ${claim.heldBy})\n`)
            process.exit(1)
        }
        process.on('exit', claim.release)
    }
    setLogService('launcher')
    const readable = readableLogs(env.LOG_FORMAT, process.stdout)
    // Colours only where a person looks: LOG_FORMAT=pretty into a file gets plain text.
    const colours = readable && process.stdout.isTTY === true && !process.env.NO_COLOR
    if (readable) setLogOutput((line) => void process.stdout.write(`${readableLine(line.replace(/\n$/, ''), colours)}\n`))
    const log = createLogger('launcher')
    const started: Stoppable[] = []
    let stopping = false
    const shutdown = async (code: number) => {
        if (stopping) return
        stopping = true
        log.info('stopping the stack')
        for (const part of started.reverse()) {
            await part.stop().catch((err) => log.error({ err, part: part.name }, 'failed to stop cleanly'))
        }
        process.exit(code)
    }
    process.on('SIGINT', () => void shutdown(0))
    process.on('SIGTERM', () => void shutdown(0))

    try {
        const secrets = loadSecrets(env, ['jwtSecret', 'masterKey', 'bridgeAdminToken'], log)
        let databaseUrl = env.DATABASE_URL
        if (!databaseUrl) {
            const pg = await startEmbeddedPostgres({
                dir: path.join(dataDir(env), 'postgres'),
                port: env.EMBEDDED_PG_PORT,
                database: 'chain',
                unixSocket: true,
                log,
            })
            started.push({ name: 'postgres', stop: pg.stop })
            databaseUrl = pg.url
        }
        let devnet: Awaited<ReturnType<typeof startDevnet>> | undefined
        if (!env.RPC_URL) {
            const seeding = new ProgressLine('seeding the demo history', log)
            devnet = await startDevnet(env, log, (done, total) => seeding.update(done, total, `day ${Math.ceil(done / 24)} of ${Math.ceil(total / 24)}`))
            seeding.done()
            started.push({ name: 'devnet', stop: devnet.stop })
        }
        if (bridgeOff) log.warn(`our contracts are not configured: the bridge and the wallet platform's chain routes are off, the indexer and the chain data API run fully; ${CONTRACTS_HINT}`)
        // The bridge's BSC, ETHEREUM and POLYGON: local anvils for those without an RPC URL.
        const bridgeChains = bridgeOff ? { records: {} } : await startBridgeChains(env, log)
        if ('stop' in bridgeChains) started.push({ name: 'bridge chains', stop: bridgeChains.stop })
        // BITCOIN and the swap provider, TRON and SOLANA: local unless their URLs are set.
        const localNetworks = bridgeOff ? undefined : await startLocalNetworks(env, log, bridgeChains.records)
        if (localNetworks) started.push({ name: 'local networks', stop: localNetworks.stop })
        const childEnv: NodeJS.ProcessEnv = {
            ...process.env,
            DATABASE_URL: databaseUrl,
            RPC_URL: rpcUrl(env),
            DATA_DIR: dataDir(env),
            ...localNetworks?.childEnv,
            // The devnet's metadata server is on loopback, which the fetcher refuses unless named.
            ...(devnet && !process.env.NFT_METADATA_ALLOW_HOSTS ? { NFT_METADATA_ALLOW_HOSTS: new URL(devnet.metadataUrl).host } : {}),
        }
        const urls: string[] = []
        for (const service of SERVICES) {
            const entry = path.join(LIB_DIR, service.entry)
            if (!fs.existsSync(entry)) continue
            const output = readable ? { colours } : undefined
            started.push(superviseService(service.name, [...(service.nodeOptions ?? []), entry], serviceEnv(service, childEnv, secrets), output, log, () => stopping))
            urls.push(...service.urls(env))
        }
        if (localNetworks && fs.existsSync(path.join(LIB_DIR, 'bridge/main.js'))) {
            // The bridge derives its vaults from its own seed; once it answers, the local chains fund them.
            const vault = await bridgeVaults(`http://127.0.0.1:${env.BRIDGE_PORT}`).catch((err) => {
                log.error({ err }, 'the bridge did not answer: its vaults on the local chains are not funded')
                return undefined
            })
            if (vault) {
                await fundLocalBridgeVaults(vault, bridgeChains.records, devnet?.deployment.contracts, devnet?.url, env.CHAIN_ID, log)
                    .catch((err) => log.error({ err }, 'could not fund the bridge vaults on the local chains'))
                await localNetworks.fund(vault)
                    .catch((err) => log.error({ err }, 'could not fund the bridge vaults and the provider on the local BITCOIN, TRON and SOLANA'))
            }
        }
        const devnetLines = devnet ? [`NFT metadata (devnet)    ${devnet.metadataUrl}`, `Devnet zoo               ${zooFile(env)} (docs/devnet.md#the-zoo)`] : []
        printBanner(env, databaseUrl, urls, bridgeChains.records, [...devnetLines, ...localNetworks?.banner ?? []], devnet?.limits)
        if (SERVICES.some((s) => s.name === 'indexer' && fs.existsSync(path.join(LIB_DIR, s.entry)))) {
            void reportIndexing(`http://127.0.0.1:${env.INDEXER_HEALTH_PORT}`, log, () => stopping)
        }
    } catch (err) {
        log.fatal({ err }, 'the stack failed to start')
        await shutdown(1)
    }
}

/**
 * Runs a service and restarts it with a growing delay if it exits on its own. Its output is this
 * process's, as it writes it (JSON), or made readable line by line when `readable` is given.
 */
function superviseService(name: string, args: string[], env: NodeJS.ProcessEnv, readable: { colours: boolean } | undefined, log: Logger, stopping: () => boolean): Stoppable {
    let current: Spawned
    let restarts = 0
    const start = () => {
        current = spawnManaged(process.execPath, args, { name, env, stdio: readable ? 'pipe' : 'inherit' })
        if (readable) {
            relayReadable(current.child.stdout!, process.stdout, readable.colours)
            relayReadable(current.child.stderr!, process.stderr, readable.colours)
        }
        const startedAt = Date.now()
        void current.exited.then((code) => {
            if (stopping()) return
            if (Date.now() - startedAt > 60_000) restarts = 0
            const delay = Math.min(30_000, 1000 * 2 ** restarts++)
            // Not `service`: that names the process logging (the launcher) on every line.
            log.error({ process: name, code, restartInMs: delay }, 'service exited; restarting')
            setTimeout(() => !stopping() && start(), delay)
        })
    }
    start()
    return { name, stop: () => current.stop(10_000) }
}

function printBanner(env: LauncherEnv, databaseUrl: string, urls: string[], bridgeChains: Record<string, { rpcUrl: string; chainId: number }>, localServices: string[], limits: RpcLimits | undefined): void {
    // Said where the URL is given, so that a refused eth_getLogs does not come as a surprise.
    const limited = limits ? `; as a public node: eth_getLogs up to ${limits.getLogsMaxBlocks.toLocaleString('en-US')} blocks, batches up to ${limits.batchMax} calls` : ''
    const lines = [
        '',
        'The stack is up:',
        `  Native chain RPC         ${rpcUrl(env)}  (chain id ${env.CHAIN_ID}${limited})`,
        ...Object.entries(bridgeChains).map(([name, c]) => `  ${`${name} (local) RPC`.padEnd(25)}${c.rpcUrl}  (chain id ${c.chainId})`),
        ...localServices.map((line) => `  ${line}`),
        `  Postgres                 ${databaseUrl.replace(/\/\/([^:]+):[^@]*@/, '//$1:***@')}`,
        ...urls.map((u) => `  ${u}`),
        '',
        'Ctrl-C stops everything.',
        '',
    ]
    process.stdout.write(lines.join('\n') + '\n')
}

void main()
