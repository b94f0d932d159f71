import * as path from 'path'
import { Client } from 'pg'
import { contractsEnv, NativeContracts } from '../../common/config'
import { spawnManaged, Spawned, waitFor } from '../../common/processes'

const INDEXER_MAIN = path.resolve(__dirname, '../../indexer/main.js')

export interface IndexerProcess {
    process: Spawned
    output(): string
    stop(): Promise<void>
}

/** Runs the real indexer process against a chain and a database. */
export function startIndexer(options: {
    databaseUrl: string
    rpcUrl: string
    /** Our contracts; none for a chain we did not deploy (docs/own-chain.md). */
    contracts?: NativeContracts
    env?: Record<string, string>
}): IndexerProcess {
    let output = ''
    const proc = spawnManaged(process.execPath, [INDEXER_MAIN], {
        name: 'indexer',
        env: {
            ...process.env,
            LOG_LEVEL: 'warn',
            DATABASE_URL: options.databaseUrl,
            RPC_URL: options.rpcUrl,
            ...(options.contracts ? contractsEnv(options.contracts) : {}),
            INDEXER_FINALITY_CONFIRMATION: '10',
            // Any free port: tests may run several indexers at once.
            INDEXER_HEALTH_PORT: '0',
            ...options.env,
        },
    })
    const collect = (d: Buffer) => {
        output = (output + d.toString()).slice(-20_000)
    }
    proc.child.stdout?.on('data', collect)
    proc.child.stderr?.on('data', collect)
    return { process: proc, output: () => output, stop: () => proc.stop(5000) }
}

/** Waits until the block with this hash is indexed (finalized or hot). */
export async function waitForIndexedBlock(databaseUrl: string, hash: string, indexer?: IndexerProcess, timeoutMs = 120_000): Promise<void> {
    const client = new Client({ connectionString: databaseUrl })
    await client.connect()
    try {
        await Promise.race([
            waitFor(`block ${hash} to be indexed`, async () => {
                const { rowCount } = await client.query('SELECT 1 FROM block WHERE id = $1', [hash.toLowerCase()])
                return rowCount === 1
            }, timeoutMs, 200),
            ...(indexer ? [indexer.process.exited.then((code) => {
                throw new Error(`indexer exited with ${code}:\n${indexer.output()}`)
            })] : []),
        ])
    } finally {
        await client.end()
    }
}
