import { expect } from 'chai'
import * as path from 'path'
import { WebSocket } from 'ws'
import { z } from 'zod'
import { contractsEnv, NativeContracts } from '../../common/config'
import { spawnManaged, Spawned, waitFor } from '../../common/processes'
import { freePort } from './ports'

const API_MAIN = path.resolve(__dirname, '../../api/main.js')
const PLATFORM_MAIN = path.resolve(__dirname, '../../api/platform/main.js')

export interface ServiceOptions {
    databaseUrl: string
    rpcUrl?: string
    contracts?: NativeContracts
    env?: Record<string, string>
}

/** A service process started for a test, with its recent output. */
export interface ServiceProcess {
    process: Spawned
    output(): string
    stop(): Promise<void>
}

export interface ApiProcess extends ServiceProcess {
    /** http://127.0.0.1:<explorer port> — the chain data API is under /api/v2, explorer services under /api. */
    explorerUrl: string
}

export interface PlatformProcess extends ServiceProcess {
    /** http://127.0.0.1:<platform port> */
    platformUrl: string
}

/** Runs the real api process (explorer services and chain data API) against a database and, optionally, a chain. */
export async function startApi(options: ServiceOptions): Promise<ApiProcess> {
    const port = await freePort()
    const explorerUrl = `http://127.0.0.1:${port}`
    // No MASTER_KEY: the api process has no use for it.
    // The live-update socket is attached after the port is bound: ready once it takes an upgrade.
    const ready = () => new Promise<boolean>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/socket/v2/websocket?vsn=2.0.0`)
        ws.once('open', () => (ws.close(), resolve(true)))
        ws.once('error', () => resolve(false))
    })
    const service = await startService('api', API_MAIN, ready, options, {
        EXPLORER_PORT: String(port),
        JWT_SECRET: 'test-jwt-secret-of-at-least-32-characters',
    })
    return { ...service, explorerUrl }
}

/** GET /api/v2<path> of a test's own api process, which must answer 200 with the schema's shape; the parsed body. */
export async function getShaped<T extends z.ZodTypeAny>(api: ApiProcess, path: string, schema: T): Promise<z.infer<T>> {
    const res = await fetch(`${api.explorerUrl}/api/v2${path}`)
    const body = await res.json()
    expect(res.status, `${path}: ${JSON.stringify(body)}`).to.equal(200)
    const parsed = schema.safeParse(body)
    if (!parsed.success) expect.fail(`${path}: ${parsed.error.message}`)
    return parsed.data
}

/** Runs the real wallet platform process against a database and, optionally, a chain. */
export async function startPlatformProcess(options: ServiceOptions): Promise<PlatformProcess> {
    const port = await freePort()
    const platformUrl = `http://127.0.0.1:${port}`
    const ready = () => fetch(`${platformUrl}/health`).then(() => true, () => false)
    const service = await startService('platform', PLATFORM_MAIN, ready, options, {
        PLATFORM_PORT: String(port),
        MASTER_KEY: '11'.repeat(32),
    })
    return { ...service, platformUrl }
}

async function startService(name: string, main: string, ready: () => Promise<boolean>, options: ServiceOptions, own: Record<string, string>): Promise<ServiceProcess> {
    let output = ''
    const c = options.contracts
    const env: NodeJS.ProcessEnv = {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: options.databaseUrl,
        ...own,
        ...(options.rpcUrl ? { RPC_URL: options.rpcUrl } : {}),
        ...(c ? contractsEnv(c) : {}),
        ...options.env,
    }
    const proc = spawnManaged(process.execPath, [main], { name, env })
    const collect = (d: Buffer) => {
        output = (output + d.toString()).slice(-20_000)
    }
    proc.child.stdout?.on('data', collect)
    proc.child.stderr?.on('data', collect)
    try {
        await Promise.race([
            waitFor(`${name} to listen`, ready, 60_000, 100),
            proc.exited.then((code) => {
                throw new Error(`${name} exited with ${code}:\n${output}`)
            }),
        ])
    } catch (err) {
        await proc.stop()
        throw err
    }
    return { process: proc, output: () => output, stop: () => proc.stop(5000) }
}
