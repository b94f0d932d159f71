import { Pool } from 'pg'
import { Address } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { waitFor } from '../../common/processes'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { mintStable } from '../../devnet/deploy'
import { CHAIN_ID, mineEmptyBlocks, startTestChain, TestChain } from '../../test/support/chain'
import { IndexerProcess, startIndexer } from '../../test/support/indexer'
import { freePort } from '../../test/support/ports'
import { createTestDatabase } from '../../test/support/postgres'
import { RpcProxy } from '../../test/support/rpc-proxy'

/**
 * One scenario's world (docs/RELIABILITY.md): anvil with our contracts and a day of demo history,
 * the fault-injecting proxy in front of it, a database of its own, and the real indexer process
 * reading the chain through the proxy. The indexer is supervised the way a container runtime
 * would (restarted a second after it exits), and every restart is counted.
 */

export interface WorldOptions {
    /** Empty blocks mined after the seeded history, so a sync takes several commits. */
    emptyBlocks?: number
    /** Extra indexer environment. */
    env?: Record<string, string>
    /** A database of the scenario's own (e.g. on a cluster it restarts) instead of one on the shared test cluster. */
    databaseUrl?: string
    /** EVM rules of the chain (prague: EIP-7702 authorizations); the devnet's unless given. */
    hardfork?: 'cancun' | 'prague'
}

export class World {
    /** Times the indexer exited without being asked to, and was started again. */
    restarts = 0
    readonly exits: Array<number | string> = []
    private indexer?: IndexerProcess
    private outputs: string[] = []
    private stopping = false
    /** A pool, so that the harness's own reads survive a Postgres restart. */
    private db!: Pool

    private constructor(readonly chain: TestChain, readonly proxy: RpcProxy, readonly databaseUrl: string, private readonly env: Record<string, string>) {}

    static async start(options: WorldOptions = {}): Promise<World> {
        const chain = await startTestChain({ seedDays: 1, hardfork: options.hardfork })
        try {
            if (options.emptyBlocks) await mineEmptyBlocks(chain.client, options.emptyBlocks)
            const proxy = new RpcProxy(chain.url)
            await proxy.start()
            const world = new World(chain, proxy, options.databaseUrl ?? await createTestDatabase('reliability'), {
                INDEXER_BATCH_BLOCKS: '500',
                INDEXER_HEALTH_PORT: String(await freePort()),
                ...options.env,
            })
            world.db = new Pool({ connectionString: world.databaseUrl, max: 2 })
            world.db.on('error', () => undefined)
            return world
        } catch (err) {
            await chain.stop()
            throw err
        }
    }

    /** Starts the indexer (through the proxy) and restarts it whenever it exits on its own. */
    startIndexer(): IndexerProcess {
        const indexer = startIndexer({ databaseUrl: this.databaseUrl, rpcUrl: this.proxy.url, contracts: this.chain.contracts, env: this.env })
        this.indexer = indexer
        void indexer.process.exited.then((code) => {
            this.outputs.push(indexer.output())
            if (this.stopping || this.indexer !== indexer) return
            this.exits.push(code)
            this.restarts++
            setTimeout(() => {
                if (!this.stopping && this.indexer === indexer) this.startIndexer()
            }, 1000)
        })
        return indexer
    }

    get process(): IndexerProcess {
        return this.indexer!
    }

    /** Everything the indexer processes printed, the running one last. */
    output(): string {
        return [...this.outputs, this.indexer?.output() ?? ''].join('\n')
    }

    /** Stops the indexer on purpose (not counted as a restart). */
    async stopIndexer(): Promise<void> {
        this.stopping = true
        await this.indexer?.stop()
        this.indexer = undefined
        this.stopping = false
    }

    /** Forgets the current process without restarting it (after a deliberate kill or signal). */
    detach(): IndexerProcess {
        const indexer = this.indexer!
        this.indexer = undefined
        return indexer
    }

    async stop(): Promise<void> {
        this.stopping = true
        await this.indexer?.stop()
        await this.db?.end().catch(() => undefined)
        await this.proxy.stop()
        await this.chain.stop()
    }

    async head(): Promise<number> {
        return Number(await this.chain.client.getBlockNumber({ cacheTime: 0 }))
    }

    /** The highest block the indexer has written (final or not), -1 before the first. */
    async indexedHeight(): Promise<number> {
        const { rows } = await this.db.query('SELECT max(number) AS n FROM block').catch(() => ({ rows: [{ n: null }] }))
        return rows[0].n === null ? -1 : Number(rows[0].n)
    }

    /** The processor's checkpoint: the last final block it committed. */
    async checkpoint(): Promise<number> {
        const { rows } = await this.db.query('SELECT height FROM squid_processor.status').catch(() => ({ rows: [] as any[] }))
        return rows[0]?.height ?? -1
    }

    async query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
        return (await this.db.query(sql, params)).rows
    }

    /** Waits until the indexer has written at least `height`; rejects after timeoutMs. */
    async waitForHeight(height: number, timeoutMs = 180_000): Promise<number> {
        const started = Date.now()
        await waitFor(`block ${height} to be indexed`, async () => (await this.indexedHeight()) >= height, timeoutMs, 100)
        return Date.now() - started
    }

    /** Waits until the indexer holds the chain's current head block (same hash). */
    async waitForChainHead(timeoutMs = 180_000): Promise<void> {
        const block = await this.chain.client.getBlock({ blockTag: 'latest' })
        await waitFor(`head ${block.number} to be indexed`, async () => {
            const { rowCount } = await this.db.query('SELECT 1 FROM block WHERE id = $1', [block.hash])
            return rowCount === 1
        }, timeoutMs, 200)
    }

    /** Sends `count` STABLE mints (one block each): new blocks with logs and balance changes. */
    async activity(count: number): Promise<void> {
        const deployer = mnemonicToAccount(DEV_MNEMONIC)
        for (let i = 0; i < count; i++) {
            const to = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 20 + (i % 5) }).address as Address
            await mintStable(this.chain.url, CHAIN_ID, deployer, this.chain.contracts.stable, to, BigInt(1_000 + i))
        }
    }

    /** The indexer's answer to GET /ready, or undefined when it does not answer (no endpoint, not started). */
    async ready(): Promise<{ status: number; body: { ready: boolean; status: string; restarts: number } } | undefined> {
        try {
            const res = await fetch(`http://127.0.0.1:${this.env.INDEXER_HEALTH_PORT}/ready`, { signal: AbortSignal.timeout(5000) })
            return { status: res.status, body: await res.json() as { ready: boolean; status: string; restarts: number } }
        } catch {
            return undefined
        }
    }

    /** Requests per second the proxy received while `during` ran. */
    async requestRate(during: () => Promise<unknown>): Promise<{ rate: number; requests: number; ms: number }> {
        const before = this.proxy.received
        const started = Date.now()
        await during()
        const ms = Date.now() - started
        const requests = this.proxy.received - before
        return { rate: requests / (ms / 1000), requests, ms }
    }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
