import { expect } from 'chai'
import { Stack } from '../../support/stack'
import { getOk, stack } from './helpers'
import * as S from './shapes'

describe('chain API: /stats, /main-page, /config, charts', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    it('/stats (as the frontend asks, with updated-gas-oracle: true): counters from the database, strings; block time in ms', async () => {
        const stats = await getOk('/stats', S.StatsWithOracle, undefined, { 'updated-gas-oracle': 'true' })
        const { rows: [db] } = await s.db.query(`SELECT (SELECT count(*) FROM block)::text AS blocks, (SELECT count(*) FROM transaction)::text AS transactions,
            (SELECT count(*) FROM address)::text AS addresses, (SELECT coalesce(sum(gas_used), 0) FROM block)::text AS gas,
            (SELECT average_block_time FROM chain_counters LIMIT 1) AS block_time`)
        expect(stats.total_blocks, 'total_blocks').to.equal(db.blocks)
        expect(stats.total_transactions, 'total_transactions').to.equal(db.transactions)
        expect(stats.total_addresses, 'total_addresses').to.equal(db.addresses)
        expect(stats.total_gas_used, 'total_gas_used').to.equal(db.gas)
        expect(stats.average_block_time, 'average_block_time (ms)').to.equal(db.block_time)
        expect(stats.network_utilization_percentage).to.be.within(0, 100)
    })

    it('/stats without the header: gas price tiers are plain numbers (or null)', async () => {
        await getOk('/stats', S.StatsPlain)
    })

    it('/main-page/indexing-status: synced, ratio "1" as a decimal string', async () => {
        const status = await getOk('/main-page/indexing-status', S.IndexingStatus)
        expect(status.finished_indexing_blocks).to.equal(true)
        expect(Number(status.indexed_blocks_ratio)).to.equal(1)
    })

    it('/config/backend-version: {backend_version: string|null}', async () => {
        await getOk('/config/backend-version', S.BackendVersion)
    })

    it('/stats/charts/transactions: daily counts from the database, newest first, dates unique', async () => {
        const chart = await getOk('/stats/charts/transactions', S.TransactionsChart)
        const rows = (await s.db.query(`SELECT to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, count(*)::int AS n FROM transaction GROUP BY 1`)).rows
        const byDate = new Map<string, number>(rows.map((r) => [r.date, r.n]))
        const dates = chart.chart_data.map((d) => d.date)
        expect(new Set(dates).size, 'unique dates').to.equal(dates.length)
        expect([...dates].sort().reverse(), 'newest first').to.deep.equal(dates)
        expect(dates.length).to.be.within(1, 31)
        for (const point of chart.chart_data) {
            expect(point.transactions_count, point.date).to.equal(byDate.get(point.date) ?? 0)
        }
        // [choice] every day with transactions in the window is there, except possibly today (Blockscout
        // charts complete days; including today is fine too).
        const today = new Date().toISOString().slice(0, 10)
        const oldest = dates[dates.length - 1]
        for (const [date] of byDate) {
            if (date < today && date >= oldest) expect(dates, `the chart has ${date}`).to.include(date)
        }
        const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
        if (byDate.has(yesterday)) expect(dates, 'yesterday is charted').to.include(yesterday)
    })
})
