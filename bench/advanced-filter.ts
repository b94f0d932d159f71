import { applyMigrations } from '../db/migrate'
import { ApiProcess, startApi } from '../test/support/api'
import { createDatabase, runOnBenchPostgres } from './bench-postgres'
import { appendBenchmark, machine } from './report'
import { Measurement, measureRoute, showMeasurement } from './route-measurement'
import { loadSyntheticRows, SyntheticDataset, syntheticBlockTimeMs, TRANSACTIONS_PER_BLOCK } from './synthetic-rows'

/**
 * npm run bench:advanced-filter — GET /api/v2/advanced-filters over a small and a large history side
 * by side (bench:defi's method): docs/testing.md#benchmarks. Each size is the synthetic chain of
 * bench:api (ten transactions a block, a HOT address in 20% of them, BIG minted in one of ten),
 * loaded through the indexer's own write path.
 */

const SIZES = [Number(process.env.BENCH_FILTER_SMALL ?? 10_000), Number(process.env.BENCH_FILTER_LARGE ?? 1_000_000)]
const CONNECTIONS = 10
const SECONDS = Number(process.env.BENCH_FILTER_SECONDS ?? 10)
const WARMUP_SECONDS = 2
const LOAD = { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS }
/** Rounds of small, then large, per URL: the machine's speed drifts, so each size keeps its best round. */
const ROUNDS = 2
/** Target: each filter's latency on the large history at most this many times the small one's. */
const MAX_RATIO = 1.5
const BASELINE = '/api/v2/config/backend-version'
/** mint(address,uint256), the selector of every BIG mint of the synthetic chain. */
const MINT = '0x40c10f19'

const log = (message: string) => process.stdout.write(`${message}\n`)

/** The typical filters, by name: the page the frontend opens, and one per access path (docs/chain-api.md#advanced-filter). */
function filters(d: SyntheticDataset): Record<string, string> {
    const dayBefore = new Date(syntheticBlockTimeMs(d.head) - 86_400_000).toISOString()
    return {
        'no filter': '',
        'from an address': `from_address_hashes_to_include=${d.hotAddress}`,
        'a token, ERC-20': `transaction_types=ERC-20&token_contract_address_hashes_to_include=${d.token}`,
        'a method': `methods=${MINT}`,
        'last day, coin transfers from 0.001': `age_from=${dayBefore}&transaction_types=coin_transfer&amount_from=0.001`,
    }
}

/** A full first page of every filter: a filter that finds nothing would measure nothing. */
async function checkPages(api: ApiProcess, byName: Record<string, string>): Promise<void> {
    for (const [name, query] of Object.entries(byName)) {
        const res = await fetch(`${api.explorerUrl}/api/v2/advanced-filters?${query}`)
        const body = await res.json() as { items?: unknown[] }
        if (res.status !== 200 || body.items?.length !== 50) throw new Error(`${name}: HTTP ${res.status}, ${body.items?.length} items: ${JSON.stringify(body).slice(0, 400)}`)
    }
}

async function run(serverUrl: string, postgresPid: number): Promise<void> {
    const histories: { transactions: number; dataset: SyntheticDataset; api: ApiProcess; urls: Record<string, string> }[] = []
    try {
        for (const transactions of SIZES) {
            const databaseUrl = await createDatabase(serverUrl, `filter_${transactions}`)
            await applyMigrations(databaseUrl)
            const dataset = await loadSyntheticRows(databaseUrl, Math.ceil(transactions / TRANSACTIONS_PER_BLOCK), (m) => log(`  ${m}`))
            log(`${transactions} transactions loaded in ${(dataset.loadMs / 1000).toFixed(0)} s: ${Object.entries(dataset.rows).map(([t, n]) => `${t} ${n}`).join(', ')}`)
            // No node: the chain API reads only Postgres for these routes.
            const api = await startApi({ databaseUrl })
            const byName = filters(dataset)
            await checkPages(api, byName)
            const urls = Object.fromEntries([['baseline', BASELINE], ...Object.entries(byName).map(([n, q]) => [n, `/api/v2/advanced-filters${q ? `?${q}` : ''}`])])
            histories.push({ transactions, dataset, api, urls })
        }
        const names = Object.keys(histories[0].urls)
        const best = histories.map(() => ({} as Record<string, Measurement>))
        for (const name of names) {
            for (let round = 1; round <= ROUNDS; round++) {
                for (const [i, h] of histories.entries()) {
                    log(`${name}, ${h.transactions} transactions, round ${round}:`)
                    const m = await measureRoute(`${h.api.explorerUrl}${h.urls[name]}`, h.api, postgresPid, LOAD)
                    if (!best[i][name] || m.average < best[i][name].average) best[i][name] = m
                }
            }
        }
        report(histories.map((h, i) => ({ transactions: h.transactions, rows: h.dataset.rows, byName: best[i] })), names)
    } finally {
        for (const h of histories) await h.api.stop()
    }
}

function report(results: { transactions: number; rows: Record<string, number>; byName: Record<string, Measurement> }[], names: string[]): void {
    const [small, large] = results
    const figures: Record<string, string[]> = {}
    const verdicts: string[] = []
    log('')
    for (const name of names) {
        const [s, l] = [small.byName[name], large.byName[name]]
        const ratio = l.average / s.average
        const verdict = name === 'baseline' ? `${ratio.toFixed(2)}x (baseline)` : `${ratio.toFixed(2)}x (${ratio <= MAX_RATIO ? 'ok' : 'MISSED'})`
        figures[name] = [showMeasurement(s), showMeasurement(l), verdict]
        if (name !== 'baseline') verdicts.push(`${name} ${verdict}`)
        log(`${name.padEnd(40)} large/small mean latency ${verdict}`)
    }
    appendBenchmark('Advanced filter over history (npm run bench:advanced-filter)', figures, [
        `Two databases side by side: ${results.map((r) => `${r.transactions} transactions (${Object.entries(r.rows).map(([t, n]) => `${t} ${n}`).join(', ')})`).join('; ')}, the synthetic chain of bench:api loaded through the indexer's write path (no call trees: no internal transactions). Postgres with fsync on.`,
        `One api process per database, both up at once. autocannon on loopback, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up, ${SECONDS} s per URL, ${ROUNDS} rounds alternating the sizes; each size keeps its best round. The baseline is ${BASELINE}.`,
        `Target: each filter's first page on the large history <= ${MAX_RATIO}x the small one's: ${verdicts.join('; ')}.`,
    ], [`${small.transactions} transactions`, `${large.transactions} transactions`, 'large / small'])
    log(`machine: ${machine()}`)
}

runOnBenchPostgres({ name: 'bench-advanced-filter' }, run)
