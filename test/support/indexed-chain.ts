import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { createPublicClient, http, PublicClient } from 'viem'
import { NativeContracts } from '../../common/config'
import { startAnvil } from '../../devnet/anvil'
import { ApiProcess, startApi } from './api'
import { headHash, startTestChain } from './chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from './indexer'
import { freePort } from './ports'
import { createTestDatabase } from './postgres'

/** A chain of a file's own, its database, the real indexer on it and (unless told otherwise) the real api. */
export interface IndexedChain {
    url: string
    client: PublicClient
    /** Our contracts; none on an `ownChain`. */
    contracts?: NativeContracts
    databaseUrl: string
    indexer: IndexerProcess
    /** A client on the indexed database. */
    db: Client
    /** The api process; with `api: false`, once `startApi()` has started it. */
    readonly api: ApiProcess
    startApi(): Promise<ApiProcess>
    /** Waits until the indexer has the chain's current head. */
    indexed(timeoutMs?: number): Promise<void>
    /** Stops all of it, the chain included. */
    stop(): Promise<void>
}

export interface IndexedChainOptions {
    /** The test database's name. */
    name: string
    /** Our devnet chain (startTestChain) with these options. */
    chain?: Parameters<typeof startTestChain>[0]
    /**
     * Instead, a chain we did not deploy (docs/own-chain.md): a bare anvil with this chain id and
     * hardfork, none of our contracts, and CHAIN_ID and a DATA_DIR of their own for both processes.
     */
    ownChain?: { chainId: number; hardfork?: 'shanghai' | 'cancun' | 'prague' }
    /** History made before the indexer starts: startIndexedChain returns once it is indexed. */
    seed?: (chain: Pick<IndexedChain, 'url' | 'client' | 'contracts'>) => Promise<void>
    /** Something between the processes and the node (a limiting proxy), started after `seed`: its url is their RPC_URL. */
    rpc?: (nodeUrl: string) => Promise<{ url: string; stop(): Promise<void> }>
    /** The indexer's environment, over startIndexer's defaults (and an `ownChain`'s). */
    indexerEnv?: Record<string, string>
    /** false: the api is started later, by startApi(). */
    api?: boolean
}

/**
 * Starts the chain, creates the database and runs the indexer and the api on them. A failure
 * part-way stops what had started, so that a test's `after` has only the result to stop.
 */
export async function startIndexedChain(options: IndexedChainOptions): Promise<IndexedChain> {
    let node: { stop(): Promise<void> } | undefined
    let rpc: { url: string; stop(): Promise<void> } | undefined
    let indexer: IndexerProcess | undefined
    let api: ApiProcess | undefined
    let db: Client | undefined
    const stop = async () => {
        await db?.end()
        await api?.stop()
        await indexer?.stop()
        await rpc?.stop()
        await node?.stop()
    }
    try {
        const own = options.ownChain && await startOwnChain(options.ownChain)
        const chain = own || await startTestChain(options.chain)
        node = chain
        const env = own?.env ?? {}
        if (options.seed) await options.seed(chain)
        rpc = options.rpc && await options.rpc(chain.url)
        const rpcUrl = rpc?.url ?? chain.url
        const databaseUrl = await createTestDatabase(options.name)
        const running = startIndexer({ databaseUrl, rpcUrl, contracts: chain.contracts, env: { ...env, ...options.indexerEnv } })
        indexer = running
        const indexed = async (timeoutMs?: number) => waitForIndexedBlock(databaseUrl, await headHash(chain.client), running, timeoutMs)
        if (options.seed) await indexed()
        const startApiProcess = async () => {
            if (api) throw new Error('the api is already started')
            api = await startApi({ databaseUrl, rpcUrl, contracts: chain.contracts, env })
            return api
        }
        if (options.api !== false) await startApiProcess()
        const client = new Client({ connectionString: databaseUrl })
        await client.connect()
        db = client
        return {
            url: chain.url,
            client: chain.client,
            contracts: chain.contracts,
            databaseUrl,
            indexer: running,
            db: client,
            get api() {
                if (!api) throw new Error('the api is not started: call startApi()')
                return api
            },
            startApi: startApiProcess,
            indexed,
            stop,
        }
    } catch (err) {
        await stop()
        throw err
    }
}

async function startOwnChain(options: NonNullable<IndexedChainOptions['ownChain']>) {
    const anvil = await startAnvil({ port: await freePort(), chainId: options.chainId, hardfork: options.hardfork })
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'own-chain-'))
    return {
        url: anvil.url,
        client: createPublicClient({ transport: http(anvil.url) }) as PublicClient,
        contracts: undefined,
        env: { CHAIN_ID: String(options.chainId), DATA_DIR: dataDir },
        async stop() {
            await anvil.stop()
            fs.rmSync(dataDir, { recursive: true, force: true })
        },
    }
}
