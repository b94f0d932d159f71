import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client as PgClient } from 'pg'
import { Address, erc20Abi, formatUnits, parseUnits } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { z } from 'zod'
import { DEV_MNEMONIC } from '../../../devnet/anvil'
import { startTestChain, TestChain } from '../../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../../support/indexer'
import { createTestDatabase } from '../../support/postgres'
import { expectError, ExplorerStack, Reply, startExplorerStack, verifiedAccount } from './harness'
import { expectedPools, expectedVolume, Replay, replaySwaps } from './swap-replay'

const HOUR = 3_600_000

/**
 * The Blockscout frontend's `Pool` (types/api/pools.ts, v2): the fields its pools list and pool page
 * read, with the frontend's types. Fields beyond them are allowed (the API adds its own after them).
 */
const FrontendPool = z.looseObject({
    pool_id: z.string(),
    is_contract: z.boolean(),
    chain_id: z.string(),
    base_token_address: z.string(),
    base_token_symbol: z.string(),
    base_token_icon_url: z.string().nullable(),
    quote_token_address: z.string(),
    quote_token_symbol: z.string(),
    quote_token_icon_url: z.string().nullable(),
    base_token_fully_diluted_valuation_usd: z.string().nullable(),
    base_token_market_cap_usd: z.string().nullable(),
    quote_token_fully_diluted_valuation_usd: z.string().nullable(),
    quote_token_market_cap_usd: z.string().nullable(),
    liquidity: z.string().regex(/^\d+(\.\d+)?$/),
    dex: z.object({ id: z.string(), name: z.string() }),
    fee: z.string().optional(),
    coin_gecko_terminal_url: z.string(),
})
const DAY = 86_400_000

/**
 * Fetches while the time window stays put: a request that straddles the turn of an hour (or day)
 * could be answered for either window, so it is asked again.
 */
async function inOneWindow<T>(windowMs: number, get: () => Promise<T>): Promise<{ reply: T; now: number }> {
    for (;;) {
        const before = Date.now()
        const reply = await get()
        const after = Date.now()
        if (Math.floor(before / windowMs) === Math.floor(after / windowMs)) return { reply, now: before }
    }
}

describe('explorer services API: DeFi routes over a seeded, indexed devnet', function () {
    let chain: TestChain
    let indexer: IndexerProcess | undefined
    let stack: ExplorerStack | undefined
    let replay: Replay
    let db: PgClient

    before(async function () {
        chain = await startTestChain({ seedDays: 2 })
        const databaseUrl = await createTestDatabase('defi')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        const head = await chain.client.getBlock({ blockTag: 'latest' })
        await waitForIndexedBlock(databaseUrl, head.hash, indexer)
        stack = await startExplorerStack({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        replay = await replaySwaps(chain.client, chain.contracts, head.number)
        db = new PgClient({ connectionString: databaseUrl })
        await db.connect()
    })

    after(async function () {
        await db?.end()
        await stack?.stop()
        await indexer?.stop()
        await chain?.stop()
    })

    it('lists every pool with the figures recomputed from the raw Swap logs, busiest first', async function () {
        const { reply, now } = await inOneWindow(HOUR, () => stack!.client().get('/defi/pools'))
        expect(reply.status, reply.text).to.equal(200)
        const expected = expectedPools(replay, Math.floor(now / HOUR) * HOUR - 23 * HOUR)
        expect(expected).to.have.length(5)
        expect(expected.some((p) => p.swaps_24h > 0), 'the seed traded in the last 24 hours').to.equal(true)
        expect(expected.some((p) => p.swaps_total > p.swaps_24h), 'and before').to.equal(true)

        expect(reply.body.quote_symbol).to.equal('STABLE')
        const pools = reply.body.pools as typeof expected
        const volumes = pools.map((p) => p.volume_24h)
        expect(volumes, 'busiest first').to.deep.equal([...volumes].sort((a, b) => b - a))
        const byAddress = new Map(expected.map((p) => [p.address, p]))
        expect(pools.map((p) => p.address).sort()).to.deep.equal([...byAddress.keys()].sort())
        for (const pool of pools) expect(pool, pool.name).to.deep.equal(byAddress.get(pool.address))

        for (const pool of pools) {
            for (const field of ['liquidity_quote', 'volume_24h', 'swaps_24h', 'volume_total', 'swaps_total'] as const) {
                expect(pool[field], `${pool.name} ${field}`).to.be.a('number')
            }
            expect(pool.reserve0).to.match(/^\d+(\.\d+)?$/)
        }
        expect(pools.map((p) => p.name).sort()).to.deep.equal(
            [...replay.pairs.values()].map((p) => `${replay.tokens.get(p.token0)!.symbol}/${replay.tokens.get(p.token1)!.symbol}`).sort())
    })

    it('pages the pools with limit and offset, in the same order, and refuses a bad limit', async function () {
        const { reply: all } = await inOneWindow(HOUR, () => stack!.client().get('/defi/pools'))
        expect(all.body.total).to.equal(5)
        expect(all.body.next_offset).to.equal(null)
        const first = await stack!.client().get('/defi/pools?limit=2')
        const last = await stack!.client().get('/defi/pools?limit=2&offset=4')
        expect(first.body.pools.map((p: { address: string }) => p.address)).to.deep.equal(all.body.pools.slice(0, 2).map((p: { address: string }) => p.address))
        expect(first.body.next_offset).to.equal(2)
        expect(last.body.pools).to.have.length(1)
        expect(last.body.next_offset).to.equal(null)
        expectError(await stack!.client().get('/defi/pools?limit=0'), 400, 'invalid_request')
        expectError(await stack!.client().get('/defi/pools?limit=1001'), 400, 'invalid_request')
    })

    it('gives daily volume buckets, oldest first, every day present', async function () {
        const client = stack!.client()
        for (const days of [undefined, 1, 3, 365]) {
            const { reply, now } = await inOneWindow(DAY, () => client.get(`/defi/volume${days === undefined ? '' : `?days=${days}`}`))
            expect(reply.status, reply.text).to.equal(200)
            const expected = expectedVolume(replay, days ?? 30, now)
            // The per-hop figures against the replay; the per-trade ones (trade_volume, trades) have a test of their own.
            const perHop = (reply.body as Record<string, unknown>[]).map(({ date, volume, volume_exact, swaps }) => ({ date, volume, volume_exact, swaps }))
            expect(perHop, `days=${days}`).to.deep.equal(expected)
        }
        const { reply } = await inOneWindow(DAY, () => client.get('/defi/volume'))
        const buckets = reply.body as { date: string; volume: number; swaps: number }[]
        expect(buckets).to.have.length(30)
        expect(buckets.filter((b) => b.swaps === 0 && b.volume === 0).length, 'empty days kept as zeros').to.be.greaterThan(20)
        const totalSwaps = [...replay.pairs.values()].reduce((sum, p) => sum + p.swapsTotal, 0)
        expect(buckets.reduce((sum, b) => sum + b.swaps, 0), 'every swap of the seed in the last 30 days').to.equal(totalSwaps)
        for (let i = 1; i < buckets.length; i++) {
            expect(Date.parse(buckets[i].date) - Date.parse(buckets[i - 1].date)).to.equal(DAY)
        }
    })

    it('answers with an ETag, and 304 when the client holds that version', async function () {
        const client = stack!.client()
        for (const path of ['/defi/pools', '/defi/volume?days=7']) {
            let etag: string | null = null
            const { reply: [exact, listed] } = await inOneWindow(path.includes('pools') ? HOUR : DAY, async () => {
                const first = await client.get(path)
                expect(first.status).to.equal(200)
                expect(first.headers.get('cache-control')).to.equal('public, max-age=15')
                etag = first.headers.get('etag')
                expect(etag, path).to.match(/^"[A-Za-z0-9_-]+"$/)
                const exact = await client.request('GET', path, { headers: { 'If-None-Match': etag! } })
                // A list of tags, and the weak form of ours, match too (RFC 9110 weak comparison).
                const listed = await client.request('GET', path, { headers: { 'If-None-Match': `"other", W/${etag}` } })
                return [exact, listed] as const
            })
            expect(exact.status, path).to.equal(304)
            expect(exact.text).to.equal('')
            expect(exact.headers.get('etag')).to.equal(etag)
            expect(listed.status, path).to.equal(304)
            const other = await client.request('GET', path, { headers: { 'If-None-Match': '"something-else"' } })
            expect(other.status).to.equal(200)
            expect(other.body).to.not.equal(undefined)
        }
        // The tag follows the figures: another window is another body and another tag.
        const week = await client.get('/defi/volume?days=7')
        const month = await client.get('/defi/volume?days=30')
        expect(week.headers.get('etag')).to.not.equal(month.headers.get('etag'))
    })

    /** Whole units of base units, as the routes write them. */
    const units = (amount: string | bigint, decimals: number) => formatUnits(BigInt(amount), decimals)
    /** A numeric column's text in the routes' one form (viem's: trailing zeros trimmed). */
    const decimalText = (text: string | null) => (text === null ? null : formatUnits(parseUnits(text, 18), 18))

    it('gives one pool: its list item, its tokens as /defi/tokens shows them, its prices, per-token volumes and LP supply', async function () {
        const client = stack!.client()
        const { reply: list } = await inOneWindow(HOUR, async () => client.get('/defi/pools'))
        const { reply: tokens } = await inOneWindow(HOUR, async () => client.get('/defi/tokens'))
        expect(tokens.status, tokens.text).to.equal(200)
        const tokenByAddress = new Map((tokens.body.tokens as { address: string }[]).map((t) => [t.address, t]))
        for (const item of list.body.pools as { address: string }[]) {
            const { reply } = await inOneWindow(HOUR, () => client.get(`/defi/pools/${item.address}`))
            expect(reply.status, reply.text).to.equal(200)
            const { rows: [pair] } = await db.query(
                `SELECT p.token0_id, p.token1_id, p.token0_price::text, p.token1_price::text, p.volume_token0::text, p.volume_token1::text,
                        p.created_block, p.created_transaction, t0.decimals AS d0, t1.decimals AS d1
                 FROM pair p JOIN token t0 ON t0.id = p.token0_id JOIN token t1 ON t1.id = p.token1_id WHERE p.id = $1`, [item.address])
            const supply = await chain.client.readContract({ address: item.address as Address, abi: erc20Abi, functionName: 'totalSupply' })
            const listed = (await inOneWindow(HOUR, () => client.get('/defi/pools'))).reply.body.pools.find((p: { address: string }) => p.address === item.address)
            expect(reply.body).to.deep.equal({
                ...listed,
                token0: tokenByAddress.get(pair.token0_id),
                token1: tokenByAddress.get(pair.token1_id),
                token0_price: decimalText(pair.token0_price),
                token1_price: decimalText(pair.token1_price),
                volume_token0: units(pair.volume_token0, pair.d0),
                volume_token1: units(pair.volume_token1, pair.d1),
                lp_total_supply: formatUnits(supply, 18),
                created_block: pair.created_block,
                created_transaction: pair.created_transaction,
            })
            expect(Number(reply.body.volume_total_exact)).to.equal(reply.body.volume_total)
            expect(reply.body.token0.address).to.not.equal(undefined)
        }
        expectError(await client.get(`/defi/pools/0x${'ab'.repeat(20)}`), 404, 'not_found')
        expectError(await client.get('/defi/pools/0x1234'), 400, 'invalid_request')
    })

    it('gives a pool\'s hourly and daily history: every bucket present, rows as indexed, quiet buckets carry the last reserves and close', async function () {
        const client = stack!.client()
        const { reply: list } = await inOneWindow(HOUR, () => client.get('/defi/pools'))
        const busiest = list.body.pools[0]
        const { rows: [pair] } = await db.query(
            `SELECT t0.decimals AS d0, t1.decimals AS d1 FROM pair p JOIN token t0 ON t0.id = p.token0_id JOIN token t1 ON t1.id = p.token1_id WHERE p.id = $1`, [busiest.address])
        const quoteDecimals = (await db.query(`SELECT decimals FROM token WHERE id = $1`, [chain.contracts.stable.toLowerCase()])).rows[0].decimals

        // The default: the last 24 hours, which sum to the list's 24-hour figures.
        const { reply: hours, now } = await inOneWindow(HOUR, () => client.get(`/defi/pools/${busiest.address}/history?interval=hour`))
        expect(hours.status, hours.text).to.equal(200)
        expect(hours.body).to.include({ address: busiest.address, interval: 'hour', quote_symbol: 'STABLE' })
        const hourly = hours.body.buckets as Record<string, any>[]
        expect(hourly).to.have.length(24)
        expect(hourly[23].start).to.equal(new Date(Math.floor(now / HOUR) * HOUR).toISOString())
        for (let i = 1; i < hourly.length; i++) expect(Date.parse(hourly[i].start) - Date.parse(hourly[i - 1].start)).to.equal(HOUR)
        expect(hourly.reduce((sum, b) => sum + b.swaps, 0)).to.equal(busiest.swaps_24h)
        expect(hourly.reduce((sum, b) => sum + parseUnits(b.volume_exact, quoteDecimals), 0n)).to.equal(parseUnits(busiest.volume_24h_exact, quoteDecimals))
        expect(hourly[23].reserve0, 'the last bucket ends at the reserves of now').to.equal(busiest.reserve0)

        // Every seeded day, by an explicit range: each day's row as the indexer wrote it, or the day before carried over.
        const { rows } = await db.query(
            `SELECT "date", volume_quote::text, swaps, volume_token0::text, volume_token1::text, reserve0::text, reserve1::text, reserve_quote::text,
                    price_open::text, price_high::text, price_low::text, price_close::text
             FROM pair_day_data WHERE pair_id = $1 ORDER BY "date"`, [busiest.address])
        expect(rows.length, 'the seed trades on more than one day').to.be.greaterThan(1)
        const first = rows[0].date as Date
        const from = new Date(first.getTime() - 2 * DAY).toISOString().slice(0, 10)
        const to = new Date().toISOString().slice(0, 10)
        const days = await client.get(`/defi/pools/${busiest.address}/history?interval=day&from=${from}&to=${to}`)
        expect(days.status, days.text).to.equal(200)
        const daily = days.body.buckets as Record<string, any>[]
        expect(daily[0].start).to.equal(`${from}T00:00:00.000Z`)
        expect(daily[daily.length - 1].start).to.equal(`${to}T00:00:00.000Z`)
        const byDay = new Map(rows.map((r) => [(r.date as Date).toISOString(), r]))
        let last: any
        for (const bucket of daily) {
            const row = byDay.get(bucket.start)
            const carried = row ?? last
            expect(bucket, bucket.start).to.deep.equal({
                start: bucket.start,
                volume: Number(units(row?.volume_quote ?? '0', quoteDecimals)),
                volume_exact: units(row?.volume_quote ?? '0', quoteDecimals),
                swaps: row?.swaps ?? 0,
                volume_token0: units(row?.volume_token0 ?? '0', pair.d0),
                volume_token1: units(row?.volume_token1 ?? '0', pair.d1),
                reserve0: units(carried?.reserve0 ?? '0', pair.d0),
                reserve1: units(carried?.reserve1 ?? '0', pair.d1),
                liquidity_quote: Number(units(carried?.reserve_quote ?? '0', quoteDecimals)),
                liquidity_quote_exact: units(carried?.reserve_quote ?? '0', quoteDecimals),
                open: decimalText(row ? row.price_open : last?.price_close ?? null),
                high: decimalText(row ? row.price_high : last?.price_close ?? null),
                low: decimalText(row ? row.price_low : last?.price_close ?? null),
                close: decimalText(row ? row.price_close : last?.price_close ?? null),
            })
            if (row) last = row
        }
        expect(daily.slice(0, 2).map((b) => b.swaps), 'days before the pool traded').to.deep.equal([0, 0])
        expect(daily.reduce((sum, b) => sum + b.swaps, 0), 'every swap of the pool').to.equal(busiest.swaps_total)

        const bad = (query: string) => client.get(`/defi/pools/${busiest.address}/history?${query}`)
        expectError(await bad('interval=week'), 400, 'invalid_request')
        expectError(await bad(`from=${to}&to=${from}`), 400, 'invalid_request')
        expectError(await bad('interval=hour&from=2020-01-01'), 400, 'invalid_request')
        expectError(await bad('from=yesterday'), 400, 'invalid_request')
        expectError(await client.get(`/defi/pools/0x${'ab'.repeat(20)}/history`), 404, 'not_found')
    })

    it('lists the tokens of the pools with the indexer\'s price, liquidity and volume, and gives each with its daily history', async function () {
        const client = stack!.client()
        const reply = await client.get('/defi/tokens')
        expect(reply.status, reply.text).to.equal(200)
        const listed = reply.body.tokens as Record<string, any>[]
        const { rows } = await db.query(
            `SELECT t.id, t.symbol, t.name, t.decimals, t.derived_quote::text, t.trade_volume::text, t.trade_volume_quote::text, t.swap_count, t.total_liquidity::text
             FROM token t WHERE t.id IN (SELECT token0_id FROM pair UNION SELECT token1_id FROM pair)`)
        expect(listed.map((t) => t.address).sort()).to.deep.equal(rows.map((r) => r.id).sort())
        const quoteDecimals = rows.find((r) => r.id === chain.contracts.stable.toLowerCase())!.decimals
        const volumes = listed.map((t) => parseUnits(t.volume_quote_exact, quoteDecimals))
        expect(volumes, 'by volume, largest first').to.deep.equal([...volumes].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)))
        for (const token of listed) {
            const row = rows.find((r) => r.id === token.address)!
            expect(token).to.include({
                symbol: row.symbol, name: row.name, decimals: row.decimals, price_quote: decimalText(row.derived_quote), quote_symbol: 'STABLE',
                liquidity: units(row.total_liquidity, row.decimals), volume: units(row.trade_volume, row.decimals),
                volume_quote_exact: units(row.trade_volume_quote, quoteDecimals), swaps: row.swap_count,
            })
            expect(token.volume_quote).to.equal(Number(token.volume_quote_exact))
            expect(token.liquidity_quote).to.equal(Number(token.liquidity_quote_exact))
            const one = await client.get(`/defi/tokens/${token.address}`)
            expect(one.body, token.symbol).to.deep.equal(token)
        }
        expect(listed.find((t) => t.address === chain.contracts.stable.toLowerCase())!.price_quote).to.equal('1')

        const busiest = listed[0]
        const history = await client.get(`/defi/tokens/${busiest.address}/history`)
        expect(history.status, history.text).to.equal(200)
        const days = history.body.days as Record<string, any>[]
        expect(days).to.have.length(30)
        expect(days[29].date).to.equal(new Date().toISOString().slice(0, 10))
        expect(days.reduce((sum, d) => sum + d.swaps, 0), 'every swap of the token in the seed\'s days').to.equal(busiest.swaps)
        const { rows: dayRows } = await db.query(`SELECT "date", swaps, price_close::text FROM token_day_data WHERE token_id = $1 ORDER BY "date"`, [busiest.address])
        const lastRow = dayRows[dayRows.length - 1]
        expect(days.find((d) => d.date === (lastRow.date as Date).toISOString().slice(0, 10))!.close).to.equal(decimalText(lastRow.price_close))
        expect(days[29].close, 'today closes at the last price').to.equal(decimalText(lastRow.price_close))

        expectError(await client.get(`/defi/tokens/0x${'cd'.repeat(20)}`), 404, 'not_found')
        expectError(await client.get('/defi/tokens/GOLD'), 400, 'invalid_request')
        expectError(await client.get(`/defi/tokens/${busiest.address}/history?from=2020-01-01`), 400, 'invalid_request')
    })

    it('counts each routed trade once in trade_volume and trades, beside the per-hop volume, over days or a date range', async function () {
        const client = stack!.client()
        const { reply, now } = await inOneWindow(DAY, () => client.get('/defi/volume?days=30'))
        expect(reply.status, reply.text).to.equal(200)
        const days = reply.body as Record<string, any>[]
        const { rows: [trades] } = await db.query(`SELECT count(*)::int AS n, COALESCE(sum(volume_quote), 0)::text AS volume, count(*) FILTER (WHERE hops > 1)::int AS routed FROM trade`)
        const { rows: [swaps] } = await db.query('SELECT count(*)::int AS n FROM swap')
        expect(trades.routed, 'the seed routes trades through more than one pool').to.be.greaterThan(0)
        expect(days.reduce((sum, d) => sum + d.trades, 0)).to.equal(trades.n)
        expect(days.reduce((sum, d) => sum + d.swaps, 0)).to.equal(swaps.n)
        expect(trades.n, 'fewer trades than hops').to.be.lessThan(swaps.n)
        const quoteDecimals = (await db.query(`SELECT decimals FROM token WHERE id = $1`, [chain.contracts.stable.toLowerCase()])).rows[0].decimals
        const { rows: tradeDays } = await db.query('SELECT id, trade_volume_quote::text, trades FROM dex_day_data')
        for (const row of tradeDays) {
            const day = days.find((d) => d.date === row.id)
            if (!day) continue
            expect(day, row.id).to.include({ trades: row.trades, trade_volume_exact: units(row.trade_volume_quote, quoteDecimals) })
            expect(day.trade_volume).to.equal(Number(day.trade_volume_exact))
        }
        // A range gives the same days as the window that holds them.
        const from = days[25].date
        const to = days[29].date
        const range = await client.get(`/defi/volume?from=${from}&to=${to}`)
        expect(range.status, range.text).to.equal(200)
        if (Math.floor(Date.now() / DAY) === Math.floor(now / DAY)) expect(range.body).to.deep.equal(days.slice(25))
        expectError(await client.get(`/defi/volume?days=3&from=${from}`), 400, 'invalid_request')
        expectError(await client.get('/defi/volume?from=2020-01-01&to=2026-01-01'), 400, 'invalid_request')
    })

    describe('the pools in Blockscout\'s contract-info shape (/api/v1/chains/{chainId}/pools)', function () {
        const CHAIN = '/v1/chains/3009/pools'
        const bySize = (a: bigint, b: bigint) => (a > b ? -1 : a < b ? 1 : 0)

        /** What the list must hold for the 24 hours from `since`, most liquid first: recomputed from the replayed logs. */
        function expectedItems(since: number) {
            const figures = new Map(expectedPools(replay, since).map((p) => [p.address, p]))
            const quoteDecimals = replay.tokens.get(replay.stable)!.decimals
            return [...replay.pairs.values()].map((pair) => {
                const quoteIs1 = [replay.stable, replay.wnative].find((t) => t === pair.token0 || t === pair.token1) !== pair.token0
                const [base, baseReserve, quote, quoteReserve] = quoteIs1
                    ? [pair.token0, pair.reserve0, pair.token1, pair.reserve1] : [pair.token1, pair.reserve1, pair.token0, pair.reserve0]
                const f = figures.get(pair.address)!
                return {
                    liquidity: parseUnits(f.liquidity_quote_exact, quoteDecimals),
                    item: {
                        pool_id: pair.address, is_contract: true, chain_id: '3009',
                        base_token_address: base, base_token_symbol: replay.tokens.get(base)!.symbol, base_token_icon_url: null,
                        quote_token_address: quote, quote_token_symbol: replay.tokens.get(quote)!.symbol, quote_token_icon_url: null,
                        base_token_fully_diluted_valuation_usd: null, base_token_market_cap_usd: null,
                        quote_token_fully_diluted_valuation_usd: null, quote_token_market_cap_usd: null,
                        liquidity: f.liquidity_quote_exact,
                        dex: { id: 'amm', name: 'AMM' }, fee: '0.2', coin_gecko_terminal_url: '',
                        base_token_reserve: formatUnits(baseReserve, replay.tokens.get(base)!.decimals),
                        quote_token_reserve: formatUnits(quoteReserve, replay.tokens.get(quote)!.decimals),
                        volume_24h: f.volume_24h_exact, swaps_24h: f.swaps_24h, value_symbol: 'STABLE',
                    },
                }
            }).sort((a, b) => bySize(a.liquidity, b.liquidity) || (a.item.pool_id < b.item.pool_id ? -1 : 1)).map((e) => e.item)
        }

        /** Every page from the first, following next_page_params as the frontend does. */
        async function allPages(query: string, pageSize: number) {
            const client = stack!.client()
            const items: { pool_id: string }[] = []
            let params: string | null = `page_size=${pageSize}${query}`
            let pages = 0
            while (params !== null) {
                const reply: Reply = await client.get(`${CHAIN}?${params}`)
                expect(reply.status, reply.text).to.equal(200)
                expect(reply.body.items.length).to.be.at.most(pageSize)
                items.push(...reply.body.items)
                const next: { page_token: string; page_size: number } | null = reply.body.next_page_params
                if (next) expect(next.page_size).to.equal(pageSize)
                params = next ? `page_size=${next.page_size}&page_token=${encodeURIComponent(next.page_token)}${query}` : null
                pages++
            }
            return { ids: items.map((i) => i.pool_id), pages }
        }

        it('lists every pool as the frontend\'s Pool type, with liquidity, reserves and 24-hour volume recomputed from the raw logs, most liquid first', async function () {
            const { reply, now } = await inOneWindow(HOUR, () => stack!.client().request('GET', CHAIN, { headers: { Origin: 'https://explorer.example.org' } }))
            expect(reply.status, reply.text).to.equal(200)
            expect(reply.headers.get('access-control-allow-origin'), 'the frontend calls from its own origin').to.equal('*')
            const items = reply.body.items as Record<string, unknown>[]
            for (const item of items) FrontendPool.parse(item)
            expect(reply.body.next_page_params).to.equal(null)
            expect(items).to.deep.equal(expectedItems(Math.floor(now / HOUR) * HOUR - 23 * HOUR))
            expect(items.some((i) => i.swaps_24h as number > 0), 'the seed traded in the last 24 hours').to.equal(true)
            // Liquidity is both reserves' value: twice the quote side where the quote token is STABLE itself.
            const stableQuoted = items.filter((i) => i.quote_token_address === replay.stable)
            expect(stableQuoted).to.not.be.empty
            const decimals = replay.tokens.get(replay.stable)!.decimals
            for (const i of stableQuoted) expect(parseUnits(i.liquidity as string, decimals)).to.equal(2n * parseUnits(i.quote_token_reserve as string, decimals))
            expect(items.some((i) => i.quote_token_address === replay.wnative), 'a pool without STABLE is quoted in WNATIVE').to.equal(true)
        })

        it('pages by page_token across every page with no gap or repeat, alone and with a search', async function () {
            const { reply: all } = await inOneWindow(HOUR, () => stack!.client().get(CHAIN))
            const ids = (all.body.items as { pool_id: string }[]).map((i) => i.pool_id)
            expect(ids).to.have.length(5)
            for (const size of [1, 2, 4]) {
                const { ids: paged, pages } = await inOneWindow(HOUR, () => allPages('', size)).then((r) => r.reply)
                expect(paged, `page_size=${size}`).to.deep.equal(ids)
                expect(pages).to.equal(Math.ceil(ids.length / size))
            }
            const stable = `&query=${replay.tokens.get(replay.stable)!.symbol.toLowerCase()}`
            const { reply: searched } = await inOneWindow(HOUR, () => stack!.client().get(`${CHAIN}?${stable.slice(1)}`))
            const { reply: paged } = await inOneWindow(HOUR, () => allPages(stable, 1))
            expect(searched.body.items.length).to.be.greaterThan(1)
            expect(paged.ids).to.deep.equal(searched.body.items.map((i: { pool_id: string }) => i.pool_id))
        })

        it('searches by token symbol, name, address, a BASE/QUOTE pair and the pool address', async function () {
            const client = stack!.client()
            const search = async (query: string) => {
                const reply = await client.get(`${CHAIN}?query=${encodeURIComponent(query)}`)
                expect(reply.status, reply.text).to.equal(200)
                return (reply.body.items as { pool_id: string }[]).map((i) => i.pool_id).sort()
            }
            const holding = (token: string) => [...replay.pairs.values()].filter((p) => p.token0 === token || p.token1 === token).map((p) => p.address).sort()
            const wnative = replay.tokens.get(replay.wnative)!.symbol
            const stable = replay.tokens.get(replay.stable)!.symbol
            expect(await search(wnative.toLowerCase()), 'a symbol, any case').to.deep.equal(holding(replay.wnative))
            expect(await search(replay.stable), 'a token address').to.deep.equal(holding(replay.stable))
            const { rows: [named] } = await db.query('SELECT name FROM token WHERE id = $1', [replay.stable])
            expect(await search(` ${named.name.slice(1, -1).toUpperCase()} `), 'part of a name').to.deep.equal(holding(replay.stable))
            const pair = [...replay.pairs.values()].find((p) => [p.token0, p.token1].sort().join() === [replay.stable, replay.wnative].sort().join())!
            expect(await search(`${wnative}/${stable}`), 'a pair').to.deep.equal([pair.address])
            expect(await search(`${stable} / ${wnative}`), 'a pair either way round').to.deep.equal([pair.address])
            expect(await search(pair.address.toUpperCase().replace('0X', '0x')), 'the pool').to.deep.equal([pair.address])
            expect(await search('no-such-token'), 'nothing').to.deep.equal([])
            const empty = await client.get(`${CHAIN}?query=no-such-token`)
            expect(empty.body).to.deep.equal({ items: [], next_page_params: null })
        })

        it('gives one pool as its list item, and 404 for another chain or an unknown pool', async function () {
            const client = stack!.client()
            const { reply: all } = await inOneWindow(HOUR, () => client.get(CHAIN))
            for (const item of all.body.items as { pool_id: string }[]) {
                const { reply } = await inOneWindow(HOUR, () => client.get(`${CHAIN}/${item.pool_id.toUpperCase().replace('0X', '0x')}`))
                expect(reply.status, reply.text).to.equal(200)
                FrontendPool.parse(reply.body)
                const listed = (await inOneWindow(HOUR, () => client.get(CHAIN))).reply.body.items.find((p: { pool_id: string }) => p.pool_id === item.pool_id)
                expect(reply.body).to.deep.equal(listed)
            }
            expectError(await client.get(`${CHAIN}/0x${'ab'.repeat(20)}`), 404, 'not_found')
            expectError(await client.get('/v1/chains/1/pools'), 404, 'not_found')
            expectError(await client.get(`/v1/chains/1/pools/${all.body.items[0].pool_id}`), 404, 'not_found')
        })

        it('answers the contract-info routes it does not serve 404 with CORS, so the frontend\'s token pages render without verified info', async function () {
            // NEXT_PUBLIC_CONTRACT_INFO_API_HOST also turns on the frontend's verified token info: it does not retry a 4xx
            // it can read, whereas an answer without CORS is a network error to the browser, retried.
            const reply = await stack!.client().request('GET', `/v1/chains/3009/token-infos/${replay.stable}`, { headers: { Origin: 'https://explorer.example.org' } })
            expectError(reply, 404, 'not_found')
            expect(reply.headers.get('access-control-allow-origin')).to.equal('*')
        })

        it('refuses bad input with 400', async function () {
            const client = stack!.client()
            for (const query of ['page_size=0', 'page_size=101', 'page_size=ten', 'page_token=abc', `page_token=1:0x${'ab'.repeat(19)}`, `query=${'x'.repeat(101)}`]) {
                expectError(await client.get(`${CHAIN}?${query}`), 400, 'invalid_request')
            }
            expectError(await client.get('/v1/chains/ethereum/pools'), 400, 'invalid_request')
            expectError(await client.get(`${CHAIN}/0x1234`), 400, 'invalid_request')
        })
    })

    it('shows watched addresses with the native balance the indexer holds', async function () {
        const { token } = await verifiedAccount(stack!)
        const client = stack!.client()
        const trader = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 10 }).address
        const unseen = '0x' + '5e'.repeat(20)
        expect((await client.post('/watchlist', { address: trader, name: 'trader' }, token)).status).to.equal(201)
        expect((await client.post('/watchlist', { address: unseen }, token)).status).to.equal(201)
        const list = await client.get('/watchlist', token)
        const [watched, other] = list.body.items
        const onChain = await chain.client.getBalance({ address: trader })
        expect(onChain > 0n).to.equal(true)
        expect(watched).to.include({ address: trader.toLowerCase(), name: 'trader', balance: onChain.toString() })
        expect(watched.balance_block).to.be.a('number')
        expect(other).to.include({ address: unseen, balance: null })
    })

    it('answers 503 for the DeFi routes when no contract addresses are configured', async function () {
        // An empty data directory: no deployment file, and no addresses in the environment.
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'explorer-no-contracts-'))
        const bare = await startExplorerStack({ env: { DATA_DIR: dataDir } })
        try {
            const error = expectError(await bare.client().get('/defi/pools'), 503, 'not_configured')
            // The configuration error names a path of the host: it goes to the log, the answer is ours.
            expect(error.message).to.not.include(dataDir)
            expectError(await bare.client().get('/defi/volume'), 503, 'not_configured')
            expectError(await bare.client().get('/v1/chains/3009/pools'), 503, 'not_configured')
        } finally {
            await bare.stop()
            fs.rmSync(dataDir, { recursive: true, force: true })
        }
    })
})
