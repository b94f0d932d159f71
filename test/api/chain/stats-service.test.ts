import { expect } from 'chai'
import { formatUnits } from 'viem'
import { z } from 'zod'
import * as Stats from '../../../api/stats-service/schemas'
import { VerificationStore } from '../../../api/chain/verification/store'
import { Stack } from '../../support/stack'
import { call, expectStatus, shape, stack } from './helpers'

/**
 * Blockscout's stats service API (/api/v1, docs/stats-api.md) on the seeded stack: shapes of the
 * service's proto, every figure recomputed from the raw rows (blocks, transactions, addresses,
 * trades), resolutions as sums and averages of their days, from/to bounds and the service's errors.
 */
describe('stats service API: /api/v1 counters, lines, pages', function () {
    this.timeout(600_000)
    let s: Stack
    const DAY = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`

    before(async () => {
        s = await stack()
    })

    async function getV1<T extends z.ZodTypeAny>(path: string, schema: T, query?: Record<string, unknown>): Promise<z.infer<T>> {
        const res = expectStatus(await call(`/api/v1${path}`, { query }), 200, `GET /api/v1${path}`)
        return shape(schema, res.body, `GET /api/v1${path}`)
    }

    const line = (name: string, query?: Record<string, unknown>) => getV1(`/lines/${name}`, Stats.LineChart, query)

    /** The raw rows' figure per UTC day, as a map day -> text. */
    async function perDay(sql: string): Promise<Map<string, string>> {
        const { rows } = await s.db.query<{ day: string; v: string }>(sql)
        return new Map(rows.map((r) => [r.day, String(r.v)]))
    }

    /** A DAY line's points, every day from the first block's to today present, as day -> value. */
    async function dayPoints(name: string): Promise<Map<string, string>> {
        const { chart } = await line(name)
        const { rows: [{ first }] } = await s.db.query(`SELECT min(${DAY('timestamp')}) AS first FROM block`)
        expect(chart[0]?.date, `${name}: first point`).to.equal(first)
        expect(chart[chart.length - 1].date, `${name}: last point`).to.equal(new Date().toISOString().slice(0, 10))
        for (const p of chart) expect(p.date_to, `${name} ${p.date}: date_to`).to.equal(p.date)
        for (let i = 1; i < chart.length; i++) {
            expect(Date.parse(chart[i].date) - Date.parse(chart[i - 1].date), `${name}: consecutive days`).to.equal(86_400_000)
        }
        return new Map(chart.map((p) => [p.date, p.value]))
    }

    function expectDays(points: Map<string, string>, expected: Map<string, string>, what: string, missing = '0'): void {
        for (const [day, value] of points) expect(value, `${what} on ${day}`).to.equal(expected.get(day) ?? missing)
        for (const day of expected.keys()) expect(points.has(day), `${what}: ${day} has a point`).to.equal(true)
    }

    it('/counters: the service\'s shape and order, each figure counted from the rows', async () => {
        const { counters } = await getV1('/counters', Stats.Counters)
        expect(counters.map((c) => c.id)).to.deep.equal([
            'averageBlockTime', 'lastNewContracts', 'lastNewVerifiedContracts', 'totalAccounts', 'totalAddresses', 'totalBlocks',
            'totalContracts', 'totalNativeCoinHolders', 'totalTokens', 'totalTxns', 'totalVerifiedContracts',
            'newTxns24h', 'txnsFee24h', 'averageTxnFee24h',
        ])
        const value = (id: string) => counters.find((c) => c.id === id)!.value
        const { rows: [db] } = await s.db.query(`SELECT (SELECT count(*) FROM block)::text AS blocks, (SELECT count(*) FROM transaction)::text AS txns,
            (SELECT count(*) FROM address)::text AS addresses, (SELECT count(DISTINCT "from") FROM transaction)::text AS accounts,
            (SELECT count(*) FROM address WHERE balance > 0)::text AS holders, (SELECT count(*) FROM token)::text AS tokens,
            (SELECT count(*) FROM verified_contract)::text AS verified, (SELECT count(*) FROM address WHERE is_contract)::text AS contracts,
            (SELECT average_block_time FROM chain_counters) AS block_time_ms`)
        expect(value('totalBlocks'), 'totalBlocks').to.equal(db.blocks)
        expect(value('totalTxns'), 'totalTxns').to.equal(db.txns)
        expect(value('totalAddresses'), 'totalAddresses').to.equal(db.addresses)
        expect(value('totalAccounts'), 'totalAccounts: distinct senders').to.equal(db.accounts)
        expect(value('totalNativeCoinHolders'), 'holders').to.equal(db.holders)
        expect(value('totalTokens'), 'totalTokens').to.equal(db.tokens)
        expect(value('totalVerifiedContracts'), 'totalVerifiedContracts').to.equal(db.verified)
        expect(value('totalContracts'), 'totalContracts').to.equal(db.contracts)
        expect(value('averageBlockTime'), 'averageBlockTime in seconds').to.equal(formatUnits(BigInt(db.block_time_ms), 3))
        expect(counters.find((c) => c.id === 'averageBlockTime')!.units).to.equal('s')
        expect(counters.find((c) => c.id === 'totalBlocks')!).to.not.have.property('units')
    })

    it('/lines: the sections and charts with their resolutions; CORS for the frontend\'s origin', async () => {
        const res = await call('/api/v1/lines', { headers: { origin: 'http://frontend.example' } })
        expectStatus(res, 200, 'GET /api/v1/lines')
        expect(res.headers.get('access-control-allow-origin')).to.equal('*')
        const { sections } = shape(Stats.LineCharts, res.body, '/lines')
        expect(sections.map((x) => x.id)).to.deep.equal(['accounts', 'transactions', 'blocks', 'tokens', 'gas', 'contracts', 'dex'])
        const charts = new Map(sections.flatMap((x) => x.charts).map((c) => [c.id, c]))
        for (const id of ['accountsGrowth', 'activeAccounts', 'newAccounts', 'averageTxnFee', 'newTxns', 'txnsFee', 'txnsGrowth', 'averageBlockSize',
            'newBlocks', 'nativeCoinHoldersGrowth', 'nativeCoinSupply', 'averageGasPrice', 'gasUsedGrowth', 'contractsGrowth', 'newContracts',
            'newVerifiedContracts', 'verifiedContractsGrowth', 'dexVolume', 'dexSwaps']) {
            expect(charts.has(id), id).to.equal(true)
        }
        expect(charts.get('activeAccounts')!.resolutions).to.deep.equal(['DAY', 'WEEK'])
        expect(charts.get('newTxns')!.resolutions).to.deep.equal(['DAY', 'WEEK', 'MONTH', 'YEAR'])
        expect(charts.get('averageGasPrice')!.units).to.equal('Gwei')
    })

    it('DAY lines: each day\'s point equals a count over that day\'s blocks, transactions and trades', async () => {
        expectDays(await dayPoints('newTxns'), await perDay(`SELECT ${DAY('timestamp')} AS day, count(*) AS v FROM transaction GROUP BY 1`), 'newTxns')
        expectDays(await dayPoints('newBlocks'), await perDay(`SELECT ${DAY('timestamp')} AS day, count(*) AS v FROM block GROUP BY 1`), 'newBlocks')
        expectDays(await dayPoints('activeAccounts'),
            await perDay(`SELECT ${DAY('timestamp')} AS day, count(DISTINCT "from") AS v FROM transaction GROUP BY 1`), 'activeAccounts')
        expectDays(await dayPoints('newAccounts'),
            await perDay(`SELECT day, count(*) AS v FROM (SELECT "from", min(${DAY('timestamp')}) AS day FROM transaction GROUP BY 1) f GROUP BY 1`), 'newAccounts')
        const fees = await perDay(`SELECT ${DAY('timestamp')} AS day, sum(fee)::text AS v FROM transaction GROUP BY 1`)
        expectDays(await dayPoints('txnsFee'), new Map([...fees].map(([d, v]) => [d, formatUnits(BigInt(v), 18)])), 'txnsFee')
        const prices = await perDay(`SELECT ${DAY('timestamp')} AS day, (sum(effective_gas_price) / count(*))::numeric(78,0)::text AS v FROM transaction GROUP BY 1`)
        const gasPoints = await dayPoints('averageGasPrice')
        for (const [day, wei] of prices) {
            // Postgres rounds numeric division, the API truncates to whole wei: at most one wei apart.
            const gwei = gasPoints.get(day)!
            const apiWei = BigInt(Math.round(Number(gwei) * 1e9))
            expect(Number(apiWei - BigInt(wei)), `averageGasPrice on ${day}`).to.be.within(-1, 1)
        }
        expectDays(await dayPoints('averageBlockSize'),
            await perDay(`SELECT ${DAY('timestamp')} AS day, round(avg(size))::text AS v FROM block GROUP BY 1`), 'averageBlockSize')
        expectDays(await dayPoints('dexSwaps'), await perDay(`SELECT ${DAY('timestamp')} AS day, count(*) AS v FROM trade GROUP BY 1`), 'dexSwaps')
        const { rows: [stable] } = await s.db.query('SELECT decimals FROM token WHERE id = $1', [s.contracts.stable.toLowerCase()])
        const volume = await perDay(`SELECT ${DAY('timestamp')} AS day, sum(volume_quote)::text AS v FROM trade GROUP BY 1`)
        expectDays(await dayPoints('dexVolume'), new Map([...volume].map(([d, v]) => [d, formatUnits(BigInt(v), stable.decimals)])), 'dexVolume')
        // A transaction's creation is also its call tree's top frame: each (transaction, contract) once.
        expectDays(await dayPoints('newContracts'), await perDay(`SELECT day, count(*) AS v FROM (
            SELECT ${DAY('timestamp')} AS day, id AS tx, created_contract FROM transaction WHERE created_contract IS NOT NULL AND status = 1
            UNION SELECT ${DAY('timestamp')}, transaction_hash, created_contract FROM internal_transaction WHERE created_contract IS NOT NULL AND error IS NULL) c
            GROUP BY 1`), 'newContracts')
        expectDays(await dayPoints('newVerifiedContracts'),
            await perDay(`SELECT ${DAY('verified_at')} AS day, count(*) AS v FROM verified_contract GROUP BY 1`), 'newVerifiedContracts')
    })

    it('a verification the API records counts on its day once: a full match replacing a partial one is not a new verified contract', async () => {
        const store = new VerificationStore(s.db)
        const address = `0x${'5e'.repeat(20)}`
        const today = new Date().toISOString().slice(0, 10)
        const todayPoint = async () => (await line('newVerifiedContracts', { from: today, to: today })).chart[0].value
        const verified = { address, name: 'Probe', sourceName: 'Probe.sol', compilerVersion: 'v0.8.24+commit.e11b9ed9', settings: {}, sources: { 'Probe.sol': '' }, abi: [], constructorArgs: null }
        const before = BigInt(await todayPoint())
        try {
            expect(await store.save({ ...verified, match: 'partial' }), 'recorded').to.equal(true)
            expect(await todayPoint(), 'after the first verification').to.equal(String(before + 1n))
            expect(await store.save({ ...verified, match: 'full' }), 'full replaces partial').to.equal(true)
            expect(await store.save({ ...verified, match: 'full' }), 'full does not replace full').to.equal(false)
            expect(await todayPoint(), 'a replaced verification is not counted again').to.equal(String(before + 1n))
        } finally {
            await s.db.query('DELETE FROM verified_contract WHERE id = $1', [address])
            await s.db.query('UPDATE verified_contract_day SET count = count - 1 WHERE id = $1', [today])
        }
    })

    it('growth lines: the running total of the days, ending at the table\'s total; supply and holders end at today\'s figures', async () => {
        const txns = await dayPoints('txnsGrowth')
        const daily = await dayPoints('newTxns')
        let total = 0n
        for (const [day, value] of daily) {
            total += BigInt(value)
            expect(txns.get(day), `txnsGrowth on ${day}`).to.equal(String(total))
        }
        const { rows: [db] } = await s.db.query(`SELECT (SELECT count(*) FROM transaction)::text AS txns, (SELECT sum(gas_used) FROM block)::text AS gas,
            (SELECT count(DISTINCT "from") FROM transaction)::text AS accounts, (SELECT sum(balance) FROM address)::text AS supply,
            (SELECT count(*) FROM address WHERE balance > 0)::text AS holders`)
        const last = (points: Map<string, string>) => [...points.values()].pop()
        expect(last(txns), 'txnsGrowth today').to.equal(db.txns)
        expect(last(await dayPoints('gasUsedGrowth')), 'gasUsedGrowth today').to.equal(db.gas)
        expect(last(await dayPoints('accountsGrowth')), 'accountsGrowth today').to.equal(db.accounts)
        const supply = await line('nativeCoinSupply')
        expect(supply.chart[supply.chart.length - 1].value, 'supply today').to.equal(formatUnits(BigInt(db.supply), 18))
        const holders = await line('nativeCoinHoldersGrowth')
        expect(holders.chart[holders.chart.length - 1].value, 'holders today').to.equal(db.holders)
    })

    it('WEEK, MONTH and YEAR: a sum line\'s point is the sum of its days, an average weighted by them, a growth line its last day', async () => {
        const days = [...(await dayPoints('newTxns'))]
        for (const resolution of ['WEEK', 'MONTH', 'YEAR'] as const) {
            const { chart } = await line('newTxns', { resolution })
            expect(chart.length, resolution).to.be.greaterThan(0)
            for (const p of chart) {
                const sum = days.filter(([d]) => d >= p.date && d <= p.date_to).reduce((a, [, v]) => a + BigInt(v), 0n)
                expect(p.value, `${resolution} ${p.date}..${p.date_to}`).to.equal(String(sum))
            }
            const growth = await line('txnsGrowth', { resolution })
            const cumulative = await dayPoints('txnsGrowth')
            for (const p of growth.chart) {
                const lastDay = [...cumulative.keys()].filter((d) => d <= p.date_to).pop()!
                expect(p.value, `txnsGrowth ${resolution} ${p.date}`).to.equal(cumulative.get(lastDay))
            }
        }
        const weeks = (await line('newTxns', { resolution: 'WEEK' })).chart
        for (const p of weeks) {
            expect(new Date(`${p.date}T00:00:00Z`).getUTCDay(), `${p.date} is a Monday`).to.equal(1)
            expect(Date.parse(p.date_to) - Date.parse(p.date), 'a week is 7 days').to.equal(6 * 86_400_000)
        }
        expect(weeks[weeks.length - 1].is_approximate, 'the current week is not complete').to.equal(true)
        const { rows: [{ size }] } = await s.db.query(`SELECT round(avg(size))::text AS size FROM block
            WHERE timestamp >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`)
        const months = (await line('averageBlockSize', { resolution: 'MONTH' })).chart
        expect(months[months.length - 1].value, 'this month\'s average block size: over its blocks').to.equal(size)
        const activeWeeks = (await line('activeAccounts', { resolution: 'WEEK' })).chart
        const weekly = await perDay(`SELECT to_char(date_trunc('week', timestamp AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, count(DISTINCT "from") AS v FROM transaction GROUP BY 1`)
        for (const p of activeWeeks) expect(p.value, `activeAccounts week of ${p.date}: distinct senders`).to.equal(weekly.get(p.date) ?? '0')
    })

    it('from and to: inclusive days, clamped to the chain\'s days; a period is whole', async () => {
        const days = [...(await dayPoints('newTxns'))]
        const [day, value] = days[days.length - 1]
        const one = await line('newTxns', { from: day, to: day })
        expect(one.chart.map((p) => [p.date, p.value])).to.deep.equal([[day, value]])
        expect(one.info).to.include({ id: 'newTxns', title: 'New transactions' })
        expect((await line('newTxns', { from: '2000-01-01', to: '2000-01-31' })).chart, 'before the chain').to.deep.equal([])
        expect((await line('newTxns', { from: day, to: days[0][0] })).chart.length, 'from after to').to.equal(days[0][0] === day ? 1 : 0)
        const all = await line('newTxns', { from: '1999-01-01', to: '2999-01-01' })
        expect(all.chart.length, 'clamped to first day..today').to.equal(days.length)
        expect((await line('newTxns', { from: day, to: day, resolution: 'RESOLUTION_UNSPECIFIED' })).chart, 'the proto\'s unset resolution is DAY')
            .to.deep.equal(one.chart)
        const week = await line('newTxns', { from: day, to: day, resolution: 'WEEK' })
        expect(week.chart.length).to.equal(1)
        expect(week.chart[0].date <= day && week.chart[0].date_to >= day, 'the week holding the day').to.equal(true)
    })

    it('bad input: unknown line 404, a resolution the line lacks 404, bad dates and resolutions 400, in the service\'s error body', async () => {
        const expectError = async (path: string, query: Record<string, unknown> | undefined, status: number, code: number) => {
            const res = await call(`/api/v1${path}`, { query })
            expectStatus(res, status, `GET /api/v1${path} ${JSON.stringify(query)}`)
            const body = shape(Stats.StatsError, res.body, 'error body')
            expect(body.code).to.equal(code)
        }
        await expectError('/lines/noSuchLine', undefined, 404, 5)
        await expectError('/lines/activeAccounts', { resolution: 'MONTH' }, 404, 5)
        for (const from of ['2026-13-01', '2026-02-30', 'yesterday', '2026-1-1', '']) {
            if (from) await expectError('/lines/newTxns', { from }, 400, 3)
        }
        await expectError('/lines/newTxns', { to: '20260101' }, 400, 3)
        await expectError('/lines/newTxns', { resolution: 'HOUR' }, 400, 3)
        await expectError('/lines/newTxns', { resolution: 'day' }, 400, 3)
    })

    it('/pages/main, /pages/transactions and /pages/contracts: the figures of the counters and the chain API', async () => {
        const main = await getV1('/pages/main', Stats.MainPageStats)
        const { rows: [db] } = await s.db.query(`SELECT (SELECT count(*) FROM block)::text AS blocks, (SELECT count(*) FROM transaction)::text AS txns,
            (SELECT count(*) FROM transaction WHERE timestamp >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 day'
                AND timestamp < date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')::text AS yesterday`)
        expect(main.total_blocks?.value).to.equal(db.blocks)
        expect(main.total_transactions?.value).to.equal(db.txns)
        expect(main.yesterday_transactions?.value).to.equal(db.yesterday)
        const window = main.daily_new_transactions!
        expect(window.info.id).to.equal('newTxnsWindow')
        const today = new Date().toISOString().slice(0, 10)
        expect(window.chart.every((p) => p.date < today), 'the window leaves today out').to.equal(true)
        expect(window.chart.length).to.be.at.most(30)
        const daily = await dayPoints('newTxns')
        for (const p of window.chart) expect(p.value, `window ${p.date}`).to.equal(daily.get(p.date))

        const txPage = await getV1('/pages/transactions', Stats.TransactionsPageStats)
        const v2 = expectStatus(await call('/api/v2/transactions/stats'), 200, '/api/v2/transactions/stats').body
        expect(txPage.transactions_24h?.value).to.equal(v2.transactions_count_24h)
        expect(txPage.transactions_fee_24h?.value).to.equal(formatUnits(BigInt(v2.transaction_fees_sum_24h), 18))
        expect(txPage.average_transactions_fee_24h?.value).to.equal(formatUnits(BigInt(v2.transaction_fees_avg_24h), 18))

        const contractsPage = await getV1('/pages/contracts', Stats.ContractsPageStats)
        const counters = expectStatus(await call('/api/v2/smart-contracts/counters'), 200, '/api/v2/smart-contracts/counters').body
        expect(contractsPage.total_contracts?.value).to.equal(counters.smart_contracts)
        expect(contractsPage.new_contracts_24h?.value).to.equal(counters.new_smart_contracts_24h)
        expect(contractsPage.total_verified_contracts?.value).to.equal(counters.verified_smart_contracts)
        expect(contractsPage.new_verified_contracts_24h?.value).to.equal(counters.new_verified_smart_contracts_24h)
    })
})
