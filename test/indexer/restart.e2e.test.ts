import { expect } from 'chai'
import { Client } from 'pg'
import { waitFor } from '../../common/processes'
import { headHash, mineEmptyBlocks, startTestChain, TestChain } from '../support/chain'
import { expectDatabaseMatchesChain } from '../support/consistency'
import { startIndexer, waitForIndexedBlock } from '../support/indexer'
import { createTestDatabase } from '../support/postgres'

const TABLES = [
    'block', 'transaction', 'log', 'token_transfer', 'token', 'token_balance', 'address', 'verified_contract',
    'pair', 'swap', 'trade', 'mint', 'burn', 'pair_hour_data', 'pair_day_data', 'token_day_data', 'dex_day_data',
    'liquidity_position', 'daily_chain_activity', 'chain_counters',
]

/** Every indexed row, in a stable order, as text. */
async function dump(databaseUrl: string): Promise<Record<string, string[]>> {
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        const result: Record<string, string[]> = {}
        for (const table of TABLES) {
            const { rows } = await db.query(`SELECT row_to_json(t)::text AS row FROM "${table}" t ORDER BY id`)
            result[table] = rows.map((r) => r.row)
        }
        return result
    } finally {
        await db.end()
    }
}

async function statusHeight(databaseUrl: string): Promise<number> {
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        const { rows } = await db.query('SELECT height FROM squid_processor.status').catch(() => ({ rows: [] as any[] }))
        return rows[0]?.height ?? -1
    } finally {
        await db.end()
    }
}

describe('indexer: killed with SIGKILL in the middle of a sync', function () {
    this.timeout(600_000)
    let chain: TestChain

    before(async () => {
        chain = await startTestChain({ seedDays: 2, genesisDaysAgo: 3 })
        // A longer chain, so the sync takes several commits.
        await mineEmptyBlocks(chain.client, 4000)
    })

    after(async () => {
        await chain?.stop()
    })

    it('resumes from its last commit and ends with the same database as an uninterrupted run', async () => {
        const head = await headHash(chain.client)
        const env = { INDEXER_BATCH_BLOCKS: '500' }

        const interrupted = await createTestDatabase('killed')
        let indexer = startIndexer({ databaseUrl: interrupted, rpcUrl: chain.url, contracts: chain.contracts, env })
        const killedAt = await waitFor('a few commits', async () => {
            const height = await statusHeight(interrupted)
            return height >= 1000 ? height : undefined
        }, 120_000, 20)
        indexer.process.kill('SIGKILL')
        await indexer.process.exited
        const chainHead = Number(await chain.client.getBlockNumber())
        expect(killedAt, 'killed before the end of the sync').to.be.lessThan(chainHead - 500)

        indexer = startIndexer({ databaseUrl: interrupted, rpcUrl: chain.url, contracts: chain.contracts, env })
        await waitForIndexedBlock(interrupted, head, indexer)
        await indexer.stop()

        const reference = await createTestDatabase('uninterrupted')
        const uninterrupted = startIndexer({ databaseUrl: reference, rpcUrl: chain.url, contracts: chain.contracts, env })
        await waitForIndexedBlock(reference, head, uninterrupted)
        await uninterrupted.stop()

        const [a, b] = await Promise.all([dump(interrupted), dump(reference)])
        for (const table of TABLES) {
            expect(a[table].length, `${table} rows`).to.equal(b[table].length)
            expect(a[table], table).to.deep.equal(b[table])
        }
        await expectDatabaseMatchesChain(interrupted, chain.url)
    })
})
