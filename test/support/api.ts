import * as path from 'path'
import { NativeContracts } from '../../common/config'
import { spawnManaged, Spawned, waitFor } from '../../common/processes'
import { freePort } from './ports'

const API_MAIN = path.resolve(__dirname, '../../api/main.js')

export interface ApiProcess {
    process: Spawned
    /** http://127.0.0.1:<explorer port> — the chain data API is under /api/v2, explorer services under /api. */
    explorerUrl: string
    /** http://127.0.0.1:<platform port> */
    platformUrl: string
    output(): string
    stop(): Promise<void>
}

/** Runs the real api process (both ports) against a database and, optionally, a chain. */
export async function startApi(options: {
    databaseUrl: string
    rpcUrl?: string
    contracts?: NativeContracts
    env?: Record<string, string>
}): Promise<ApiProcess> {
    const explorerPort = await freePort()
    const platformPort = await freePort()
    let output = ''
    const c = options.contracts
    const proc = spawnManaged(process.execPath, [API_MAIN], {
        name: 'api',
        env: {
            ...process.env,
            NODE_ENV: 'test',
            LOG_LEVEL: 'warn',
            DATABASE_URL: options.databaseUrl,
            EXPLORER_PORT: String(explorerPort),
            PLATFORM_PORT: String(platformPort),
            JWT_SECRET: 'test-jwt-secret-of-at-least-32-characters',
            MASTER_KEY: '11'.repeat(32),
            BRIDGE_ADMIN_TOKEN: 'test-bridge-admin-token-0123456789',
            ...(options.rpcUrl ? { RPC_URL: options.rpcUrl } : {}),
            ...(c ? {
                WNATIVE_ADDRESS: c.wnative,
                STABLE_ADDRESS: c.stable,
                AMM_FACTORY_ADDRESS: c.factory,
                AMM_ROUTER_ADDRESS: c.router,
            } : {}),
            ...options.env,
        },
    })
    const collect = (d: Buffer) => {
        output = (output + d.toString()).slice(-20_000)
    }
    proc.child.stdout?.on('data', collect)
    proc.child.stderr?.on('data', collect)
    const explorerUrl = `http://127.0.0.1:${explorerPort}`
    try {
        await Promise.race([
            // The platform port is bound last: any HTTP answer there means both ports listen.
            waitFor('api to listen', () => fetch(`http://127.0.0.1:${platformPort}/`).then(() => true, () => false), 60_000, 100),
            proc.exited.then((code) => {
                throw new Error(`api exited with ${code}:\n${output}`)
            }),
        ])
    } catch (err) {
        await proc.stop()
        throw err
    }
    return {
        process: proc,
        explorerUrl,
        platformUrl: `http://127.0.0.1:${platformPort}`,
        output: () => output,
        stop: () => proc.stop(5000),
    }
}
