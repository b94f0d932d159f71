import * as fs from 'fs'
import * as path from 'path'
import { createPublicClient, http } from 'viem'
import { dataDir, Deployment, deploymentFile, readDeployment } from '../common/config'
import { Logger } from '../common/logger'
import { startAnvil } from './anvil'
import { followWallClock } from './clock'
import { DevnetEnv } from './config'
import { deployNativeContracts } from './deploy'
import { Loopback } from './loopback'
import { startMetadataServer } from './metadata-server'
import { freeLoopbackPort, RpcLimiter, RpcLimits, startRpcLimiter } from './rpc-limits'
import { seedDemoActivity, SeedOptions } from './seed'
import { writeFileAtomic } from './state-file'
import { seedZoo, Zoo } from './zoo'

export const HISTORY_DAYS = 30

/**
 * The devnet's EVM rules: Prague, for EIP-7702 set-code transactions in the zoo. Other local
 * chains stay on EVM_VERSION (Cancun): Prague's block-hash history (EIP-2935) costs about 22 ms of
 * CPU per block against 1.4 ms (docs/devnet.md), which the tests that mine thousands of blocks
 * would pay and a devnet mining every 2 s hardly notices.
 */
export const DEVNET_HARDFORK = 'prague'

export interface Devnet {
    /** What clients use: the limiting proxy's URL, or anvil's when DEVNET_RPC_LIMITS is off. */
    url: string
    /** The limits the proxy applies; undefined when anvil serves DEVNET_PORT itself. */
    limits?: RpcLimits
    deployment: Deployment
    zoo: Zoo
    /** The NFT metadata server (metadata-server.ts). */
    metadataUrl: string
    stop(): Promise<void>
}

/**
 * The native chain for development: anvil with chain id 3009 and a zero minimum gas price, kept
 * in DATA_DIR/devnet across restarts. A fresh chain starts 30 days in the past, gets our contracts
 * and a deterministic month of demo activity, then the zoo (zoo.ts), then mines in real time. A
 * restart finds the contracts, the history and the zoo already there and seeds none of them again. Either way new blocks are dated
 * by the wall clock (never before the head), see followWallClock. Clients reach it through a
 * proxy on DEVNET_PORT that refuses what public nodes refuse (rpc-limits.ts); our own set-up
 * (deploying, seeding, the clock) talks to anvil directly, on a port of its own. The NFT metadata
 * server runs as long as the devnet.
 */
export async function startDevnet(env: DevnetEnv, log: Logger, onSeedProgress?: SeedOptions['onProgress']): Promise<Devnet> {
    const stateFile = path.join(dataDir(env), 'devnet', 'state.json')
    const fresh = !fs.existsSync(stateFile)
    const limits: RpcLimits | undefined = env.DEVNET_RPC_LIMITS ? { getLogsMaxBlocks: env.DEVNET_GETLOGS_MAX_BLOCKS, batchMax: env.DEVNET_RPC_BATCH_MAX } : undefined
    const anvil = await startAnvil({
        port: limits ? await freeLoopbackPort() : env.DEVNET_PORT,
        chainId: env.CHAIN_ID,
        stateFile,
        // Only a new chain gets a genesis time: on a restart anvil continues from its saved blocks.
        genesisTimestamp: fresh ? Math.floor(Date.now() / 1000) - HISTORY_DAYS * 86_400 - 3_600 : undefined,
        log,
        name: 'devnet',
        hardfork: DEVNET_HARDFORK,
    })
    let limiter: RpcLimiter | undefined
    let metadata: Loopback | undefined
    try {
        // Before the long seeding, so that a taken DEVNET_PORT or DEVNET_METADATA_PORT fails at once.
        if (limits) limiter = await startRpcLimiter({ port: env.DEVNET_PORT, upstream: anvil.url, limits, log })
        metadata = await startMetadataServer(env.DEVNET_METADATA_PORT)
        const deployment = await prepareChain(env, anvil.url, log, onSeedProgress)
        const zoo = await prepareZoo(env, anvil.url, metadata.url, log)
        // The seeding's explicit timestamps leave anvil's clock behind the wall clock (the last
        // seeded block is up to an hour old), and a restart from the state file does not keep new
        // blocks after the saved head: both are put right before any block is mined in real time.
        await followWallClock(anvil.url, log)
        if (env.DEVNET_BLOCK_TIME > 0) {
            const client = createPublicClient({ transport: http(anvil.url) })
            await client.request({ method: 'evm_setIntervalMining' as any, params: [env.DEVNET_BLOCK_TIME] as any })
        }
        const stop = async () => {
            await metadata?.close()
            await limiter?.stop()
            await anvil.stop()
        }
        return { url: limiter?.url ?? anvil.url, limits, deployment, zoo, metadataUrl: metadata.url, stop }
    } catch (err) {
        await metadata?.close()
        await limiter?.stop()
        await anvil.stop()
        throw err
    }
}

/** Where the zoo's addresses and transactions are written: DATA_DIR/zoo.json. */
export function zooFile(env: DevnetEnv): string {
    return path.join(dataDir(env), 'zoo.json')
}

/**
 * The zoo, seeded once: kept when the chain still holds the block it ended with, else seeded (on
 * a fresh chain after the history, on a devnet from before the zoo existed on its next start).
 */
async function prepareZoo(env: DevnetEnv, rpcUrl: string, metadataUrl: string, log: Logger): Promise<Zoo> {
    const file = zooFile(env)
    const previous = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) as Zoo : undefined
    if (previous) {
        const client = createPublicClient({ transport: http(rpcUrl) })
        const block = await client.getBlock({ blockNumber: BigInt(previous.seededThrough.number) }).catch(() => undefined)
        if (block?.hash === previous.seededThrough.hash) {
            log.info({ file }, 'devnet zoo found; nothing to add')
            return previous
        }
    }
    log.info('adding the zoo to the devnet (proxies, odd tokens, failures, self-destructs, every transaction type)')
    const zoo = await seedZoo({ rpcUrl, chainId: env.CHAIN_ID, metadataUrl, setCode: DEVNET_HARDFORK === 'prague', log })
    writeFileAtomic(file, JSON.stringify(zoo, null, 2) + '\n')
    return zoo
}

async function prepareChain(env: DevnetEnv, rpcUrl: string, log: Logger, onSeedProgress?: SeedOptions['onProgress']): Promise<Deployment> {
    const previous = readDeployment(env)
    const client = createPublicClient({ transport: http(rpcUrl) })
    const { contracts, startBlock } = await deployNativeContracts({
        rpcUrl,
        chainId: env.CHAIN_ID,
        previous: previous?.contracts,
        log,
    })
    const reused = previous && previous.contracts.router === contracts.router
    // The history is there when the chain still holds the block the seeding ended with.
    if (reused && previous.seededThrough) {
        const block = await client.getBlock({ blockNumber: BigInt(previous.seededThrough.number) }).catch(() => undefined)
        if (block?.hash === previous.seededThrough.hash) {
            log.info({ contracts }, 'devnet contracts and history found; nothing to deploy')
            return previous
        }
    }
    log.info('seeding the devnet with a month of demo activity')
    const seeded = await seedDemoActivity({ rpcUrl, chainId: env.CHAIN_ID, contracts, seed: env.DEVNET_SEED, days: HISTORY_DAYS, log, onProgress: onSeedProgress })
    const last = await client.getBlock({ blockNumber: BigInt(seeded.lastBlock) })
    const deployment: Deployment = {
        chainId: env.CHAIN_ID,
        contracts,
        startBlock,
        tokens: seeded.tokens,
        pairs: seeded.pairs,
        seededThrough: { number: seeded.lastBlock, hash: last.hash },
    }
    fs.mkdirSync(path.dirname(deploymentFile(env)), { recursive: true })
    fs.writeFileSync(deploymentFile(env), JSON.stringify(deployment, null, 2) + '\n')
    return deployment
}
