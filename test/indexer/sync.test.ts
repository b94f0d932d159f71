import { expect } from 'chai'
import { Client } from 'pg'
import { Account, createWalletClient, http, parseAbi } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { deployContract, devnetChain } from '../../devnet/deploy'
import * as path from 'path'
import { spawnManaged, waitFor } from '../../common/processes'
import { CHAIN_ID, headHash, startTestChain, TestChain } from '../support/chain'
import { repoPath } from '../support/paths'
import { freePort } from '../support/ports'
import { expectDatabaseMatchesChain } from '../support/consistency'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { createTestDatabase } from '../support/postgres'

const MINTABLE = parseAbi([
    'function mint(address to, uint256 value)',
    'function transfer(address to, uint256 value) returns (bool)',
])

describe('indexer: a seeded chain', function () {
    this.timeout(300_000)
    let chain: TestChain
    let databaseUrl: string
    let indexer: IndexerProcess
    let db: Client
    const odd: Record<string, string> = {}

    async function send(account: Account, address: `0x${string}`, functionName: 'mint' | 'transfer', args: [`0x${string}`, bigint]) {
        const wallet = createWalletClient({ account, chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const hash = await wallet.writeContract({ address, abi: MINTABLE, functionName, args, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n })
        await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    }

    before(async () => {
        chain = await startTestChain({ seedDays: 3 })
        const deployer = mnemonicToAccount(DEV_MNEMONIC)
        const holder = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 3 }).address
        for (const name of ['Bytes32Token', 'RevertingNameToken', 'DemoNft'] as const) {
            odd[name] = (await deployContract(chain.url, CHAIN_ID, deployer, name, [])).address.toLowerCase()
        }
        await send(deployer, odd.Bytes32Token as `0x${string}`, 'mint', [holder, 5_000n])
        await send(deployer, odd.RevertingNameToken as `0x${string}`, 'mint', [holder, 7n])
        await send(deployer, odd.DemoNft as `0x${string}`, 'mint', [holder, 42n])
        await send(deployer, odd.DemoNft as `0x${string}`, 'mint', [deployer.address, 43n])

        databaseUrl = await createTestDatabase('sync')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        await waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer)
        db = new Client({ connectionString: databaseUrl })
        await db.connect()
    })

    after(async () => {
        await db?.end()
        await indexer?.stop()
        await chain?.stop()
    })

    it('holds exactly what the chain holds: blocks, transactions, logs, balances, reserves, swaps, aggregates, counters', async () => {
        expect(chain.seeded!.swaps).to.be.greaterThan(100)
        await expectDatabaseMatchesChain(databaseUrl, chain.url)
    })

    it('reads token metadata, including a bytes32 name and a name that reverts', async () => {
        const { rows } = await db.query('SELECT id, type, name, symbol, decimals FROM token WHERE id = ANY($1) ORDER BY symbol', [Object.values(odd)])
        expect(rows).to.deep.equal([
            { id: odd.Bytes32Token, type: 'ERC-20', name: 'Bytes Token', symbol: 'BYT', decimals: 18 },
            { id: odd.DemoNft, type: 'ERC-721', name: 'Demo NFT', symbol: 'DNFT', decimals: null },
            { id: odd.RevertingNameToken, type: 'ERC-20', name: null, symbol: 'RVT', decimals: null },
        ])
        const seeded = await db.query("SELECT symbol, decimals FROM token WHERE symbol IN ('GOLD', 'SILVER', 'TAXI', 'STABLE', 'WNATIVE') ORDER BY symbol")
        expect(seeded.rows).to.deep.equal([
            { symbol: 'GOLD', decimals: 18 }, { symbol: 'SILVER', decimals: 8 }, { symbol: 'STABLE', decimals: 6 },
            { symbol: 'TAXI', decimals: 18 }, { symbol: 'WNATIVE', decimals: 18 },
        ])
    })

    it('records ERC-721 transfers with their token ids and counts NFTs held', async () => {
        const transfers = await db.query('SELECT token_type, token_id::text, value FROM token_transfer WHERE token = $1 ORDER BY token_id', [odd.DemoNft])
        expect(transfers.rows).to.deep.equal([
            { token_type: 'ERC-721', token_id: '42', value: null },
            { token_type: 'ERC-721', token_id: '43', value: null },
        ])
        const token = await db.query('SELECT total_supply::text, holder_count FROM token WHERE id = $1', [odd.DemoNft])
        expect(token.rows[0]).to.deep.equal({ total_supply: '2', holder_count: 2 })
    })

    it('keeps every token supply equal to the chain', async () => {
        const { rows } = await db.query("SELECT id, total_supply::text FROM token WHERE type = 'ERC-20' AND id <> $1", [odd.RevertingNameToken])
        const abi = parseAbi(['function totalSupply() view returns (uint256)'])
        for (const row of rows) {
            const supply = await chain.client.readContract({ address: row.id, abi, functionName: 'totalSupply' })
            expect(row.total_supply, `supply of ${row.id}`).to.equal(supply.toString())
        }
        expect(rows.length).to.be.greaterThan(8)
    })

    it('records contracts deployed from our artifacts as verified, pairs included', async () => {
        const { rows } = await db.query('SELECT id, name, compiler_version, evm_version, optimization_enabled, sources FROM verified_contract')
        const byAddress = new Map(rows.map((r) => [r.id, r]))
        const { contracts } = chain
        expect(byAddress.get(contracts.wnative.toLowerCase())?.name).to.equal('WNative')
        expect(byAddress.get(contracts.stable.toLowerCase())?.name).to.equal('Stable')
        expect(byAddress.get(contracts.factory.toLowerCase())?.name).to.equal('AmmFactory')
        expect(byAddress.get(contracts.router.toLowerCase())?.name).to.equal('AmmRouter')
        const pairs = await db.query('SELECT id FROM pair')
        expect(pairs.rowCount).to.equal(5)
        for (const pair of pairs.rows) expect(byAddress.get(pair.id)?.name, pair.id).to.equal('AmmPair')
        const router = byAddress.get(contracts.router.toLowerCase())!
        expect(router.evm_version).to.equal('cancun')
        expect(router.optimization_enabled).to.equal(true)
        expect(Object.keys(router.sources)).to.include('contracts/amm/AmmRouter.sol')
        const platform = rows.filter((r) => r.name === 'PlatformToken')
        expect(platform).to.have.length(3)
    })

    it('serves the same data over GraphQL for analysts; its own port answers /health, /ready and /metrics', async () => {
        const port = await freePort()
        const healthPort = await freePort()
        const server = spawnManaged(process.execPath, [path.resolve(__dirname, '../../indexer/graphql.js')], {
            name: 'graphql',
            env: { ...process.env, DATABASE_URL: databaseUrl, GRAPHQL_PORT: String(port), GRAPHQL_HEALTH_PORT: String(healthPort) },
        })
        try {
            const query = async (q: string) => {
                const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
                    method: 'POST',
                    headers: { 'content-type': 'application/json' },
                    body: JSON.stringify({ query: q }),
                })
                const body = (await res.json()) as { data?: any; errors?: { message: string }[] }
                if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '))
                return body.data
            }
            const data = await waitFor('the GraphQL server', () => query(`{
                tokens(where: { symbol_eq: "SILVER" }, limit: 5) { name decimals holderCount }
                swapsConnection(orderBy: id_ASC, first: 1) { totalCount }
                pairs(orderBy: volumeTotal_DESC, limit: 1) { id swapsTotal }
            }`), 60_000, 250)
            const swaps = await db.query('SELECT count(*)::int AS n FROM swap')
            const busiest = await db.query('SELECT id, swaps_total FROM pair ORDER BY volume_total DESC LIMIT 1')
            const silver = await db.query("SELECT holder_count FROM token WHERE symbol = 'SILVER'")
            expect(data.tokens).to.deep.equal([{ name: 'Silver Token', decimals: 8, holderCount: silver.rows[0].holder_count }])
            expect(data.swapsConnection.totalCount).to.equal(swaps.rows[0].n)
            expect(data.pairs).to.deep.equal([{ id: busiest.rows[0].id, swapsTotal: busiest.rows[0].swaps_total }])

            const ops = `http://127.0.0.1:${healthPort}`
            expect((await fetch(`${ops}/health`)).status).to.equal(200)
            const ready = await waitFor('GraphQL readiness', async () => {
                const res = await fetch(`${ops}/ready`)
                return res.status === 200 ? res.json() : undefined
            }, 30_000, 250)
            expect(ready).to.deep.equal({ ready: true, checks: { database: 'ok', graphql: 'ok' } })
            const metrics = await (await fetch(`${ops}/metrics`)).text()
            expect(metrics.split('\n').some((l) => l.startsWith('process_cpu_seconds_total{') && l.includes('service="graphql"'))).to.equal(true)
            expect(metrics).to.include('db_pool_connections{pool="main",service="graphql"}')
        } finally {
            await server.stop()
        }
    })

    it('marks contracts and their creators', async () => {
        const { rows } = await db.query('SELECT is_contract, creator FROM address WHERE id = $1', [chain.contracts.router.toLowerCase()])
        expect(rows[0]).to.deep.equal({ is_contract: true, creator: mnemonicToAccount(DEV_MNEMONIC).address.toLowerCase() })
        const pair = await db.query('SELECT a.is_contract, a.creator FROM address a JOIN pair p ON p.id = a.id LIMIT 1')
        expect(pair.rows[0]).to.deep.equal({ is_contract: true, creator: chain.contracts.factory.toLowerCase() })
    })

    it('the coin-supply migration fills the running sum of a database indexed before it with the sum of the balances', async () => {
        const supply = async () => (await db.query('SELECT coin_supply::text AS supply FROM chain_counters')).rows[0].supply
        const indexed = await supply()
        expect(indexed).to.match(/^[1-9][0-9]*$/)
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a migration is plain CommonJS
        const Migration = require(repoPath('db', 'migrations', '1795433800000-CoinSupply.js'))
        const migration = new Migration()
        await db.query('BEGIN')
        try {
            await migration.down(db)
            await migration.up(db)
            expect(await supply()).to.equal(indexed)
        } finally {
            await db.query('ROLLBACK')
        }
    })

    it('the stats-lines migration fills the per-day aggregates, sender facts and holders of a database indexed before it as the indexer keeps them', async () => {
        const kept = async () => ({
            days: (await db.query(`SELECT id, block_size::text, gas_price::text, active_accounts, active_accounts_week, new_accounts, new_contracts, verified_contracts
                                     FROM daily_chain_activity WHERE blocks > 0 OR active_accounts_week > 0 ORDER BY id`)).rows,
            facts: (await db.query('SELECT id FROM account_activity ORDER BY id')).rows.map((r) => r.id),
            holders: (await db.query('SELECT coin_holders FROM chain_counters')).rows[0].coin_holders,
        })
        const indexed = await kept()
        expect(indexed.days.some((d) => d.active_accounts > 0 && d.new_contracts > 0), 'the indexer counted senders and contracts').to.equal(true)
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a migration is plain CommonJS
        const Migration = require(repoPath('db', 'migrations', '1795435900000-StatsLines.js'))
        const migration = new Migration()
        await db.query('BEGIN')
        try {
            await migration.down(db)
            await migration.up(db)
            expect(await kept()).to.deep.equal(indexed)
        } finally {
            await db.query('ROLLBACK')
        }
    })
})
