import { expect } from 'chai'
import { Client } from 'pg'
import { parseAbi } from 'viem'
import { startTestChain, TestChain } from '../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { startGraphql } from '../support/graphql'
import { repoPath } from '../support/paths'
import { createTestDatabase } from '../support/postgres'
import { DefiReplay, replayDefi } from './defi-replay'

const BALANCE_OF = parseAbi(['function balanceOf(address) view returns (uint256)'])

/** Every row of a query as JSON text values (numerics and timestamps as Postgres writes them). */
async function table(db: Client, sql: string): Promise<Record<string, unknown>[]> {
    const { rows } = await db.query(`SELECT row_to_json(r) AS row FROM (${sql}) r`)
    return rows.map((r) => normalise(r.row))
}

/** Numbers of numeric columns arrive as JSON numbers: compared as the exact text the replay makes. */
function normalise(row: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(row)) {
        out[k] = typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? new Date(v).toISOString() : v
    }
    return out
}

describe('indexer: the DeFi entities recomputed from the raw logs of a seeded devnet', function () {
    this.timeout(300_000)
    let chain: TestChain
    let databaseUrl: string
    let indexer: IndexerProcess | undefined
    let db: Client
    let replay: DefiReplay
    let head: bigint

    before(async () => {
        chain = await startTestChain({ seedDays: 2 })
        databaseUrl = await createTestDatabase('defi_entities')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        const block = await chain.client.getBlock({ blockTag: 'latest' })
        head = block.number
        await waitForIndexedBlock(databaseUrl, block.hash, indexer)
        db = new Client({ connectionString: databaseUrl })
        await db.connect()
        replay = await replayDefi(chain.client, chain.contracts, head)
    })

    after(async () => {
        await db?.end()
        await indexer?.stop()
        await chain?.stop()
    })

    // Numeric columns as text, so exact decimals compare as the strings the replay makes.
    const columns = (names: string[]) => names.map((n) => (/^(id|pair_id|token_id|token0_id|token1_id|token_in_id|token_out_id|trade_id|trader|recipient|sender|to|transaction_hash|block_number|swaps|swaps_total|swap_count|hops|trades|pair_count|hour|date)$/.test(n) ? `"${n}"` : `"${n}"::text AS "${n}"`)).join(', ')
    const rowsLike = (sample: Record<string, unknown> | undefined, from: string, where = '') =>
        table(db, `SELECT ${columns(Object.keys(sample!))} FROM ${from} ${where} ORDER BY id`)

    it('seeds routed trades of several hops, mints and burns', () => {
        expect(replay.trades.filter((t) => Number(t.hops) === 3).length, 'three-hop trades').to.be.at.least(2)
        expect(replay.mints.length, 'mints').to.be.greaterThan(5)
        expect(replay.burns.length, 'burns').to.be.at.least(1)
        expect(replay.tokens.filter((t) => t.derived_quote !== null).length, 'priced tokens').to.be.at.least(4)
    })

    it('pairs and tokens: reserves, prices, liquidity, volumes, LP supply', async () => {
        expect(await rowsLike(replay.pairs[0], 'pair')).to.deep.equal(replay.pairs)
        const ids = replay.tokens.map((t) => t.id)
        expect(await rowsLike(replay.tokens[0], 'token', `WHERE id = ANY('{${ids.join(',')}}')`)).to.deep.equal(replay.tokens)
        const others = await db.query(`SELECT count(*)::int AS n FROM token WHERE NOT id = ANY($1) AND (derived_quote IS NOT NULL OR swap_count <> 0 OR total_liquidity <> 0)`, [ids])
        expect(others.rows[0].n, 'tokens in no pair have no AMM figures').to.equal(0)
    })

    it('one trade, one row: hops grouped, volume counted once; every swap knows its trade and trader', async () => {
        expect(await rowsLike(replay.trades[0], 'trade')).to.deep.equal(replay.trades)
        expect(await rowsLike(replay.swaps[0], 'swap')).to.deep.equal(replay.swaps)
    })

    it('mints and burns equal the pairs\' events, with the LP tokens they moved', async () => {
        expect(await rowsLike(replay.mints[0], 'mint')).to.deep.equal(replay.mints)
        expect(await rowsLike(replay.burns[0], 'burn')).to.deep.equal(replay.burns)
    })

    it('pair hour and day data, token day data and dex day data equal their recomputation', async () => {
        expect(await rowsLike(replay.pairHours[0], 'pair_hour_data')).to.deep.equal(replay.pairHours)
        expect(await rowsLike(replay.pairDays[0], 'pair_day_data')).to.deep.equal(replay.pairDays)
        expect(await rowsLike(replay.tokenDays[0], 'token_day_data')).to.deep.equal(replay.tokenDays)
        expect(await rowsLike(replay.dexDays[0], 'dex_day_data')).to.deep.equal(replay.dexDays)
    })

    it('LP positions equal each pair\'s balanceOf(holder) at the indexed block', async () => {
        const { rows } = await db.query('SELECT pair_id, "user", liquidity_token_balance::text AS balance FROM liquidity_position')
        expect(rows.length).to.be.greaterThan(5)
        const onChain = await Promise.all(rows.map((r) => chain.client.readContract({
            address: r.pair_id, abi: BALANCE_OF, functionName: 'balanceOf', args: [r.user], blockNumber: head,
        })))
        expect(rows.map((r) => r.balance)).to.deep.equal(onChain.map(String))
    })

    it('answers relational GraphQL queries', async () => {
        const server = await startGraphql(databaseUrl)
        try {
            const query = async (q: string) => {
                const answer = await server.query(q)
                if (answer.body?.errors?.length) throw new Error(answer.body.errors.map((e) => e.message).join('; '))
                return answer.body!.data
            }
            const swaps = await query(`{ swaps(limit: 5, orderBy: id_ASC) { id trader pair { token0 { symbol } } trade { hops } } }`)
            const trades = await query(`{ trades(where: { hops_eq: 3 }, limit: 1) { tokenIn { symbol } tokenOut { symbol } swaps(limit: 5, orderBy: id_ASC) { pair { id } } } }`)
            const positions = await query(`{ liquidityPositions(limit: 3, orderBy: id_ASC) { user liquidityTokenBalance pair { token1 { symbol } } } }`)
            const tokens = await query(`{ tokens(where: { symbol_eq: "GOLD" }, limit: 1) { id derivedQuote tokenDayData(limit: 1) { priceClose } pairBase(limit: 1) { id } } }`)
            const data = { ...swaps, ...trades, ...positions, ...tokens }
            expect(data.swaps.map((s: any) => [s.id, s.trader])).to.deep.equal(replay.swaps.slice(0, 5).map((s) => [s.id, s.trader]))
            expect(data.swaps[0].pair.token0.symbol).to.be.a('string')
            expect(data.trades[0]).to.include.keys('tokenIn', 'tokenOut')
            expect([data.trades[0].tokenIn.symbol, data.trades[0].tokenOut.symbol]).to.deep.equal(['GOLD', 'SILVER'])
            expect(data.trades[0].swaps).to.have.length(3)
            expect(data.liquidityPositions).to.have.length(3)
            const gold = replay.tokens.find((t) => t.id === data.tokens[0].id)!
            expect(gold.derived_quote, 'GOLD is priced').to.not.equal(null)
            expect(data.tokens[0].derivedQuote, 'GOLD priced as recomputed').to.equal(gold.derived_quote)
            expect(data.tokens[0].tokenDayData).to.have.length(1)
            expect(data.tokens[0].pairBase).to.have.length(1)
        } finally {
            await server.stop()
        }
    })

    // Last: it rewrites the database. Undone and applied again, the migration must fill what an
    // existing deployment's rows imply exactly as the indexer derived it.
    it('the migration backfills trades, swap traders, pair and token figures of rows indexed before it', async () => {
        await indexer!.stop()
        indexer = undefined
        const backfilled = {
            trade: 'SELECT * FROM trade ORDER BY id',
            swap: 'SELECT id, trader, trade_id FROM swap ORDER BY id',
            pair: `SELECT id, reserve0_decimal::text, reserve1_decimal::text, token0_price::text, token1_price::text, volume_token0::text,
                          volume_token1::text, total_supply::text FROM pair ORDER BY id`,
            token: 'SELECT id, trade_volume::text, trade_volume_quote::text, swap_count, total_liquidity::text FROM token ORDER BY id',
            days: 'SELECT id, volume::text, swaps, trade_volume_quote::text, trades FROM dex_day_data ORDER BY id',
        }
        const read = async () => {
            const tables: Record<string, any[]> = {}
            for (const [name, sql] of Object.entries(backfilled)) tables[name] = (await db.query(sql)).rows
            return tables
        }
        const indexed = await read()
        expect(indexed.trade.some((t: any) => t.hops === 3)).to.equal(true)
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a migration is plain CommonJS
        const Migration = require(repoPath('db', 'migrations', '1795433700000-DefiEntities.js'))
        const migration = new Migration()
        await db.query('BEGIN')
        try {
            await migration.down(db)
            await migration.up(db)
            expect(await read()).to.deep.equal(indexed)
        } finally {
            await db.query('ROLLBACK')
        }
    })
})
