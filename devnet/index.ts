import * as fs from 'fs'
import * as path from 'path'
import { createPublicClient, http } from 'viem'
import { dataDir, Deployment, deploymentFile, readDeployment } from '../common/config'
import { Logger } from '../common/logger'
import { startAnvil } from './anvil'
import { followWallClock } from './clock'
import { DevnetEnv } from './config'
import { deployNativeContracts } from './deploy'
import { freeLoopbackPort, RpcLimiter, RpcLimits, startRpcLimiter } from './rpc-limits'
import { seedDemoActivity, SeedOptions } from './seed'

export const HISTORY_DAYS = 30

export interface Devnet {
    /** What clients use: the limiting proxy's URL, or anvil's when DEVNET_RPC_LIMITS is off. */
    url: string
    /** The limits the proxy applies; undefined when anvil serves DEVNET_PORT itself. */
    limits?: RpcLimits
    deployment: Deployment
    stop(): Promise<void>
}

/**
 * The native chain for development: anvil with chain id 3009 and a zero minimum gas price, kept
 * in DATA_DIR/devnet across restarts. A fresh chain starts 30 days in the past, gets our contracts
 * and a deterministic month of demo activity, then mines in real time. A restart finds the
 * contracts and the history already there and does neither again. Either way new blocks are dated
 * by the wall clock (never before the head), see followWallClock. Clients reach it through a
 * proxy on DEVNET_PORT that refuses what public nodes refuse (rpc-limits.ts); our own set-up
 * (deploying, seeding, the clock) talks to anvil directly, on a port of its own.
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
    })
    let limiter: RpcLimiter | undefined
    try {
        // Before the long seeding, so that a taken DEVNET_PORT fails at once.
        if (limits) limiter = await startRpcLimiter({ port: env.DEVNET_PORT, upstream: anvil.url, limits, log })
        const deployment = await prepareChain(env, anvil.url, log, onSeedProgress)
        // The seeding's explicit timestamps leave anvil's clock behind the wall clock (the last
        // seeded block is up to an hour old), and a restart from the state file does not keep new
        // blocks after the saved head: both are put right before any block is mined in real time.
        await followWallClock(anvil.url, log)
        if (env.DEVNET_BLOCK_TIME > 0) {
            const client = createPublicClient({ transport: http(anvil.url) })
            await client.request({ method: 'evm_setIntervalMining' as any, params: [env.DEVNET_BLOCK_TIME] as any })
        }
        const stop = async () => {
            await limiter?.stop()
            await anvil.stop()
        }
        return { url: limiter?.url ?? anvil.url, limits, deployment, stop }
    } catch (err) {
        await limiter?.stop()
        await anvil.stop()
        throw err
    }
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
