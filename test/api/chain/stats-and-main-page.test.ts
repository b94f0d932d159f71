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

    /** The oracle's tiers as computed from the database: effective gas price percentiles over the last 200 blocks. */
    async function expectedTiers() {
        const { rows: [r] } = await s.db.query(`SELECT percentile_disc(ARRAY[0.35, 0.6, 0.9]) WITHIN GROUP (ORDER BY effective_gas_price)::text[] AS p,
                (SELECT base_fee_per_gas::text FROM block ORDER BY number DESC LIMIT 1) AS base_fee
            FROM transaction WHERE block_number > (SELECT max(number) FROM block) - 200`)
        const [slow, average, fast] = (r.p as string[]).map(BigInt)
        return { tiers: { slow, average, fast }, baseFee: BigInt(r.base_fee ?? 0) }
    }
    const ceilGwei = (wei: bigint) => Number((wei + 9_999_999n) / 10_000_000n) / 100

    it('/stats gas_prices: tier objects with or without the updated-gas-oracle header, values from the oracle', async () => {
        const { tiers, baseFee } = await expectedTiers()
        for (const headers of [{ 'updated-gas-oracle': 'true' }, undefined]) {
            const what = headers ? 'with the header' : 'without the header'
            let stats = await getOk('/stats', S.StatsWithOracle, undefined, headers)
            // The oracle is reused for 5 s: a block an earlier suite sent may not be in it yet.
            if (stats.gas_prices?.fast?.wei !== String(tiers.fast)) {
                await new Promise((resolve) => setTimeout(resolve, 5_500))
                stats = await getOk('/stats', S.StatsWithOracle, undefined, headers)
            }
            for (const name of ['slow', 'average', 'fast'] as const) {
                const tier = stats.gas_prices![name]!
                const wei = tiers[name]
                const priority = wei > baseFee ? wei - baseFee : 0n
                expect(tier.wei, `${what}: ${name}.wei`).to.equal(String(wei))
                expect(tier.price, `${what}: ${name}.price (gwei, rounded up to 2 decimals)`).to.equal(ceilGwei(wei))
                expect(tier.base_fee, `${what}: ${name}.base_fee`).to.equal(ceilGwei(baseFee))
                expect(tier.priority_fee_wei, `${what}: ${name}.priority_fee_wei`).to.equal(String(priority))
                expect(tier.priority_fee, `${what}: ${name}.priority_fee`).to.equal(ceilGwei(priority))
                expect(tier.fiat_price, `${what}: ${name}.fiat_price (no price feed)`).to.equal(null)
            }
        }
    })

    it('/main-page/indexing-status: synced, ratio "1" as a decimal string', async () => {
        const status = await getOk('/main-page/indexing-status', S.IndexingStatus)
        expect(status.finished_indexing_blocks).to.equal(true)
        expect(Number(status.indexed_blocks_ratio)).to.equal(1)
    })

    it('/main-page/indexing-status: internal transactions as far as the blocks with a tracing node, "0" without one; finished with the blocks', async () => {
        const { rows: [saved] } = await s.db.query(`SELECT tracing FROM chain_counters WHERE id = 'chain'`)
        try {
            const cases: [string | null, boolean][] = [['trace_block', true], ['debug_traceBlockByHash', true], ['none', false], [null, false]]
            for (const [tracing, traced] of cases) {
                await s.db.query(`UPDATE chain_counters SET tracing = $1 WHERE id = 'chain'`, [tracing])
                const status = await getOk('/main-page/indexing-status', S.IndexingStatus)
                const what = `tracing ${tracing}`
                expect(status.indexed_internal_transactions_ratio, what).to.equal(traced ? status.indexed_blocks_ratio : '0')
                expect(status.finished_indexing, what).to.equal(status.finished_indexing_blocks)
            }
        } finally {
            await s.db.query(`UPDATE chain_counters SET tracing = $1 WHERE id = 'chain'`, [saved.tracing])
        }
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
