import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { Client } from 'pg'
import { Address, erc20Abi } from 'viem'
import { headHash, startTestChain, TestChain } from '../support/chain'
import { GraphqlProcess, startGraphql } from '../support/graphql'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { REPO_ROOT } from '../support/paths'
import { createTestDatabase } from '../support/postgres'

/**
 * docs/analytics.md as an analyst would use it: every GraphQL query of "Ten queries" and every SQL
 * example, taken from the file as written, run against a seeded and indexed devnet. Each answer must
 * be non-empty and equal what the tables (or, for LP positions, the chain) hold.
 */

interface DocQuery {
    title: string
    graphql: string
    /** The example variables the doc shows (their names must be the query's). */
    variables: Record<string, unknown>
}

/** The numbered "### N. Title" sections of "Ten queries", each with its graphql block and its json block if any. */
function documentedQueries(markdown: string): DocQuery[] {
    const sections = markdown.split(/^### (?=\d+\. )/m).slice(1)
    return sections.map((section) => {
        const title = section.split('\n')[0].trim()
        const graphql = /```graphql\n([\s\S]*?)```/.exec(section)?.[1]
        if (!graphql) throw new Error(`${title}: no graphql block`)
        const json = /```json\n([\s\S]*?)```/.exec(section)?.[1]
        return { title, graphql, variables: json ? JSON.parse(json) : {} }
    })
}

/** The variables a query declares ($name: Type). */
const declared = (graphql: string) => [...graphql.matchAll(/\$(\w+)\s*:/g)].map((m) => m[1]).sort()

/** A numeric column's text, or a GraphQL BigInt/BigDecimal, as one comparable form. */
const num = (value: unknown) => (value === null || value === undefined ? null : String(value).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''))
const time = (value: unknown) => new Date(value as string).toISOString()

describe('docs/analytics.md: the ten documented GraphQL queries and the SQL examples answer, correctly, on a seeded devnet', function () {
    this.timeout(300_000)
    let chain: TestChain
    let indexer: IndexerProcess
    let db: Client
    let graphql: GraphqlProcess
    const markdown = fs.readFileSync(path.join(REPO_ROOT, 'docs/analytics.md'), 'utf8')
    const queries = documentedQueries(markdown)
    /** The values the test asks with: a pool with liquidity events, a trader, a liquidity provider, a traded token. */
    let values: Record<string, unknown>

    const rows = async (sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows

    before(async () => {
        chain = await startTestChain({ seedDays: 2 })
        const databaseUrl = await createTestDatabase('analytics')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        await waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer)
        // Indexed: the tables stay as they are while the queries are asked.
        await indexer.stop()
        db = new Client({ connectionString: databaseUrl })
        await db.connect()
        graphql = await startGraphql(databaseUrl)
        const [pair] = await rows(`SELECT p.id FROM pair p WHERE EXISTS (SELECT 1 FROM mint m WHERE m.pair_id = p.id) AND EXISTS (SELECT 1 FROM burn b WHERE b.pair_id = p.id)
                                   ORDER BY p.volume_total DESC LIMIT 1`)
        const [trader] = await rows('SELECT trader FROM trade WHERE hops > 1 GROUP BY trader ORDER BY count(*) DESC LIMIT 1')
        const [user] = await rows(`SELECT "user" FROM liquidity_position WHERE liquidity_token_balance > 0 GROUP BY "user" ORDER BY count(*) DESC, "user" LIMIT 1`)
        const [token] = await rows(`SELECT id FROM token WHERE symbol = 'GOLD'`)
        const [last] = await rows('SELECT max(hour) AS hour FROM pair_hour_data WHERE pair_id = $1', [pair.id])
        values = { pair: pair.id, trader: trader.trader, user: user.user, token: token.id, since: new Date(last.hour.getTime() - 23 * 3_600_000).toISOString() }
    })

    after(async () => {
        await graphql?.stop()
        await db?.end()
        await indexer?.stop()
        await chain?.stop()
    })

    it('has ten numbered queries, each declaring exactly the variables its example gives', () => {
        expect(queries.map((q) => q.title.split('.')[0])).to.deep.equal(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'])
        for (const q of queries) expect(declared(q.graphql), q.title).to.deep.equal(Object.keys(q.variables).sort())
    })

    /** Runs the numbered query with the test's values for its variables; its data, every root list non-empty. */
    async function run(number: number): Promise<any> {
        const q = queries[number - 1]
        const variables = Object.fromEntries(Object.keys(q.variables).map((name) => [name, values[name]]))
        const answer = await graphql.query(q.graphql, variables)
        expect(answer.body?.errors, `${q.title}: ${answer.text.slice(0, 500)}`).to.equal(undefined)
        for (const [field, list] of Object.entries(answer.body!.data)) expect(list, `${q.title}: ${field}`).to.be.an('array').that.is.not.empty
        return answer.body!.data
    }

    it('1. top pools by volume: the pairs by volume_total, with their tokens\' symbols', async () => {
        const { pairs } = await run(1)
        const expected = await rows(`SELECT p.id, t0.symbol AS s0, t1.symbol AS s1, p.reserve0_decimal::text, p.reserve1_decimal::text, p.reserve_quote::text,
                                            p.volume_total::text, p.swaps_total
                                     FROM pair p JOIN token t0 ON t0.id = p.token0_id JOIN token t1 ON t1.id = p.token1_id ORDER BY p.volume_total DESC LIMIT 10`)
        expect(pairs.map((p: any) => [p.id, p.token0.symbol, p.token1.symbol, num(p.reserve0Decimal), num(p.reserve1Decimal), p.reserveQuote, p.volumeTotal, p.swapsTotal]))
            .to.deep.equal(expected.map((r) => [r.id, r.s0, r.s1, num(r.reserve0_decimal), num(r.reserve1_decimal), r.reserve_quote, r.volume_total, r.swaps_total]))
    })

    it('2. a pool\'s daily candles: its pair_day_data rows in date order, each candle ordered', async () => {
        const { pairDayData } = await run(2)
        const expected = await rows(`SELECT "date", price_open::text, price_high::text, price_low::text, price_close::text, volume_quote::text, swaps
                                     FROM pair_day_data WHERE pair_id = $1 ORDER BY "date"`, [values.pair])
        expect(pairDayData.length, 'the seed trades on several days').to.be.greaterThan(1)
        expect(pairDayData.map((d: any) => [time(d.date), num(d.priceOpen), num(d.priceHigh), num(d.priceLow), num(d.priceClose), d.volumeQuote, d.swaps]))
            .to.deep.equal(expected.map((r) => [time(r.date), num(r.price_open), num(r.price_high), num(r.price_low), num(r.price_close), r.volume_quote, r.swaps]))
        for (const d of pairDayData) {
            if (d.priceHigh === null) continue
            expect(Number(d.priceLow)).to.be.at.most(Number(d.priceOpen)).and.at.most(Number(d.priceClose))
            expect(Number(d.priceHigh)).to.be.at.least(Number(d.priceOpen)).and.at.least(Number(d.priceClose))
        }
    })

    it('3. a pool\'s last hours: its hourly buckets from the moment asked', async () => {
        const { pairHourData } = await run(3)
        const expected = await rows(`SELECT hour, price_open::text, price_close::text, volume::text, swaps, reserve_quote::text
                                     FROM pair_hour_data WHERE pair_id = $1 AND hour >= $2 ORDER BY hour`, [values.pair, values.since])
        expect(pairHourData.map((h: any) => [time(h.hour), num(h.priceOpen), num(h.priceClose), h.volume, h.swaps, h.reserveQuote]))
            .to.deep.equal(expected.map((r) => [time(r.hour), num(r.price_open), num(r.price_close), r.volume, r.swaps, r.reserve_quote]))
    })

    it('4. a wallet\'s trades: one row per trade of its transactions, newest first', async () => {
        const { trades } = await run(4)
        const expected = await rows(`SELECT t.transaction_hash, ti.symbol AS token_in, tout.symbol AS token_out, t.amount_in_decimal::text, t.amount_out_decimal::text,
                                            t.volume_quote::text, t.hops
                                     FROM trade t JOIN token ti ON ti.id = t.token_in_id JOIN token tout ON tout.id = t.token_out_id
                                     WHERE t.trader = $1 ORDER BY t.block_number DESC, t.id DESC LIMIT 20`, [values.trader])
        expect(trades.map((t: any) => [t.transactionHash, t.tokenIn.symbol, t.tokenOut.symbol, num(t.amountInDecimal), num(t.amountOutDecimal), t.volumeQuote, t.hops]))
            .to.deep.equal(expected.map((r) => [r.transaction_hash, r.token_in, r.token_out, num(r.amount_in_decimal), num(r.amount_out_decimal), r.volume_quote, r.hops]))
    })

    it('5. routed trades: each with its hops in order, a hop\'s output going into the next pool', async () => {
        const { trades } = await run(5)
        for (const trade of trades) {
            expect(trade.hops).to.be.greaterThan(1)
            expect(trade.swaps).to.have.length(trade.hops)
            const hops = await rows('SELECT pair_id, "to", amount0_in::text, amount1_in::text, amount0_out::text, amount1_out::text, volume::text FROM swap WHERE trade_id = $1 ORDER BY id', [trade.id])
            expect(trade.swaps.map((s: any) => [s.amount0In, s.amount1In, s.amount0Out, s.amount1Out, s.volume]))
                .to.deep.equal(hops.map((h) => [h.amount0_in, h.amount1_in, h.amount0_out, h.amount1_out, h.volume]))
            for (let i = 0; i + 1 < hops.length; i++) expect(hops[i].to, 'each hop pays the next pool').to.equal(hops[i + 1].pair_id)
        }
        expect(trades[0].volumeQuote, 'counted once: the first hop\'s value').to.equal((await rows('SELECT volume::text FROM swap WHERE id = $1', [trades[0].id]))[0].volume)
    })

    it('6. a wallet\'s liquidity positions: each equals the pool\'s balanceOf on the chain', async () => {
        const { liquidityPositions } = await run(6)
        for (const position of liquidityPositions) {
            const onChain = await chain.client.readContract({ address: position.pair.id as Address, abi: erc20Abi, functionName: 'balanceOf', args: [values.user as Address] })
            expect(position.liquidityTokenBalance, position.pair.id).to.equal(onChain.toString())
            const supply = await chain.client.readContract({ address: position.pair.id as Address, abi: erc20Abi, functionName: 'totalSupply' })
            expect(position.pair.totalSupply).to.equal(supply.toString())
        }
        const expected = await rows('SELECT count(*)::int AS n FROM token_balance b JOIN pair p ON p.id = b.token WHERE b.holder = $1 AND b.value > 0', [values.user])
        expect(liquidityPositions).to.have.length(expected[0].n)
    })

    it('7. a token\'s price history: its token_day_data rows in date order', async () => {
        const { tokenDayData } = await run(7)
        const expected = await rows(`SELECT "date", price_open::text, price_high::text, price_low::text, price_close::text, volume::text, volume_quote::text,
                                            total_liquidity::text, liquidity_quote::text
                                     FROM token_day_data WHERE token_id = $1 ORDER BY "date"`, [values.token])
        expect(tokenDayData.map((d: any) => [time(d.date), num(d.priceOpen), num(d.priceHigh), num(d.priceLow), num(d.priceClose), d.volume, d.volumeQuote, d.totalLiquidity, d.liquidityQuote]))
            .to.deep.equal(expected.map((r) => [time(r.date), num(r.price_open), num(r.price_high), num(r.price_low), num(r.price_close), r.volume, r.volume_quote, r.total_liquidity, r.liquidity_quote]))
        expect(tokenDayData[tokenDayData.length - 1].priceClose, 'today closes at the token\'s price').to.not.equal(null)
    })

    it('8. tokens by volume: every traded token, STABLE priced at 1', async () => {
        const { tokens } = await run(8)
        const expected = await rows(`SELECT t.id, t.symbol, t.derived_quote::text, t.trade_volume_quote::text, t.swap_count FROM token t WHERE t.swap_count > 0 ORDER BY t.trade_volume_quote DESC`)
        expect(tokens.map((t: any) => [t.id, t.symbol, num(t.derivedQuote), t.tradeVolumeQuote, t.swapCount]))
            .to.deep.equal(expected.map((r) => [r.id, r.symbol, num(r.derived_quote), r.trade_volume_quote, r.swap_count]))
        expect(num(tokens.find((t: any) => t.symbol === 'STABLE').derivedQuote)).to.equal('1')
    })

    it('9. the whole AMM per day: per-hop and per-trade figures, trades fewer than hops on a day with routed trades', async () => {
        const { dexDayData } = await run(9)
        const expected = await rows(`SELECT "date", volume::text, swaps, trade_volume_quote::text, trades, liquidity_quote::text, pair_count FROM dex_day_data ORDER BY "date" DESC LIMIT 30`)
        expect(dexDayData.map((d: any) => [time(d.date), d.volume, d.swaps, d.tradeVolumeQuote, d.trades, d.liquidityQuote, d.pairCount]))
            .to.deep.equal(expected.map((r) => [time(r.date), r.volume, r.swaps, r.trade_volume_quote, r.trades, r.liquidity_quote, r.pair_count]))
        const [totals] = await rows('SELECT (SELECT count(*) FROM trade)::int AS trades, (SELECT count(*) FROM swap)::int AS swaps')
        expect(dexDayData.reduce((sum: number, d: any) => sum + d.trades, 0)).to.equal(totals.trades)
        expect(dexDayData.reduce((sum: number, d: any) => sum + d.swaps, 0)).to.equal(totals.swaps)
        expect(totals.trades).to.be.lessThan(totals.swaps)
    })

    it('10. a pool\'s liquidity events: its mints and burns, newest first', async () => {
        const { mints, burns } = await run(10)
        for (const [answer, table] of [[mints, 'mint'], [burns, 'burn']] as const) {
            const expected = await rows(`SELECT transaction_hash, "to", amount0::text, amount1::text, liquidity::text, amount_quote::text FROM ${table} WHERE pair_id = $1 ORDER BY id DESC LIMIT 10`, [values.pair])
            expect(answer.map((e: any) => [e.transactionHash, e.to, e.amount0, e.amount1, e.liquidity, e.amountQuote]), table)
                .to.deep.equal(expected.map((r) => [r.transaction_hash, r.to, r.amount0, r.amount1, r.liquidity, r.amount_quote]))
        }
    })

    it('the SQL examples run as written and answer rows', async () => {
        const examples = [...markdown.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1])
        expect(examples).to.have.length(3)
        for (const sql of examples) expect((await db.query(sql)).rows, sql.split('\n')[0]).to.not.be.empty
        const [byTrader] = (await db.query(examples[1])).rows
        const [top] = await rows('SELECT trader, count(*)::int AS n FROM trade GROUP BY trader ORDER BY sum(volume_quote) DESC LIMIT 1')
        expect(byTrader.trader).to.equal(top.trader)
        expect(Number(byTrader.trades)).to.equal(top.n)
    })
})
