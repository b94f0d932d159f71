import { applyMigrations } from '../db/migrate'
import { ApiProcess, startApi } from '../test/support/api'
import { cpuText, LoadShape, measure, Measurement, measurementText } from './load'
import { PAGE_SIZE, pageUrls } from './list-pages'
import * as path from 'path'
import { PROJECT_DIR } from '../db/migrate'
import { runOnBenchPostgres, runOnKeptPostgres } from './bench-postgres'
import { runLive } from './api-live'
import { appendBenchmark, machine } from './report'
import { checkSyntheticRows, loadSyntheticRows, SyntheticDataset, TRANSACTIONS_PER_BLOCK } from './synthetic-rows'

/** npm run bench:api — the list routes at page 1 and page 1,000 over a million synthetic transactions (ten million with --scale 10m), with and without the rendered-item cache: docs/testing.md#benchmarks */

const argValue = (name: string) => {
    const i = process.argv.indexOf(name)
    return i < 0 ? undefined : process.argv[i + 1]
}
/** `--scale 10m` (or BENCH_API_SCALE=10m): ten million transactions, loaded once into a kept cluster (BENCH_API_DATASET_DIR) and reused by later runs. */
const SCALE = argValue('--scale') ?? process.env.BENCH_API_SCALE
if (SCALE !== undefined && SCALE !== '1m' && SCALE !== '10m') throw new Error(`--scale takes 1m or 10m, not ${SCALE}`)
const BLOCKS = Number(process.env.BENCH_API_BLOCKS ?? (SCALE === '10m' ? 1_000_000 : 100_000))
/** Where the loaded cluster is kept between runs: unset, each run loads into a temporary cluster. */
const DATASET_DIR = process.env.BENCH_API_DATASET_DIR ?? (SCALE === '10m' ? path.join(PROJECT_DIR, 'bench', '.cache', `api-${BLOCKS}-blocks`) : undefined)
const CONNECTIONS = 10
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 10)
const WARMUP_SECONDS = 2
const DEEP_PAGE = Number(process.env.BENCH_API_PAGES ?? 1_000)
/** Targets of the design: every list route at least this share of the baseline's req/s ... */
const MIN_SHARE_OF_BASELINE = 0.25
/** ... and page 1,000 at most this many times page 1's p50 latency. */
const MAX_DEEP_PAGE_RATIO = 1.5

const log = (message: string) => process.stdout.write(`${message}\n`)

const SHAPE: LoadShape = { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS }

async function measured(route: string, page: number, url: string, counted: Record<string, number>): Promise<Measurement> {
    const m = await measure(route, page, url, SHAPE, counted)
    log(`  ${measurementText(m)}`)
    return m
}

function listRoutes(dataset: SyntheticDataset): { route: string; path: string }[] {
    return [
        { route: '/blocks', path: '/blocks' },
        { route: '/transactions', path: '/transactions' },
        { route: '/addresses/{hot}/transactions', path: `/addresses/${dataset.hotAddress}/transactions` },
        { route: '/tokens/{token}/holders', path: `/tokens/${dataset.token}/holders` },
    ]
}

/** A list URL measured, and the baseline measured right before it. */
interface Paired {
    list: Measurement
    baseline: Measurement
}

/** One api process measured: every list URL, each after its own baseline. */
interface Run {
    label: string
    /** Put before the names of this run's figures in docs/BENCHMARKS.md. */
    figurePrefix: string
    pairs: Paired[]
    apiOutput: string
}

/** URLs under the api's /api/v2, resolved once and measured on every api started. */
interface Target {
    route: string
    page: number
    path: string
}

/**
 * The two configurations measured: as deployed, where a list item rendered once is reused until
 * the indexed head moves (api/chain/rendered-items.ts), and with that off, every item read and
 * rendered from Postgres on each request. The targets are judged on the first; the second shows
 * what rendering costs.
 */
const CONFIGURATIONS: { label: string; figurePrefix: string; env: Record<string, string> }[] = [
    { label: 'as deployed (rendered-item cache on)', figurePrefix: '', env: {} },
    { label: 'rendered-item cache off (CHAIN_API_ITEM_CACHE_MB=0)', figurePrefix: 'cache off: ', env: { CHAIN_API_ITEM_CACHE_MB: '0' } },
]

async function load(databaseUrl: string): Promise<SyntheticDataset> {
    log(`loading ${BLOCKS} blocks, ${BLOCKS * TRANSACTIONS_PER_BLOCK} transactions`)
    await applyMigrations(databaseUrl)
    const dataset = await loadSyntheticRows(databaseUrl, BLOCKS, (m) => log(`  ${m}`))
    log(`loaded in ${(dataset.loadMs / 1000).toFixed(0)} s: ${Object.entries(dataset.rows).map(([t, n]) => `${t} ${n}`).join(', ')}`)
    const failures = await checkSyntheticRows(databaseUrl, dataset, DEEP_PAGE * PAGE_SIZE)
    if (failures.length) throw new Error(`the synthetic rows are inconsistent:\n  ${failures.join('\n  ')}`)
    return dataset
}

async function run(databaseUrl: string, postgresPid: number, dataset: SyntheticDataset, postgresSettings: string): Promise<void> {
    if (BLOCKS !== dataset.blocks) throw new Error(`the kept dataset has ${dataset.blocks} blocks, not BENCH_API_BLOCKS=${BLOCKS}`)
    // A kept cluster may predate migrations added since it was loaded.
    await applyMigrations(databaseUrl)
    let targets: Target[] | undefined
    const runs: Run[] = []
    for (const configuration of CONFIGURATIONS) {
        let api: ApiProcess | undefined
        try {
            api = await startApi({ databaseUrl, env: configuration.env })
            const base = `${api.explorerUrl}/api/v2`
            // Every URL is resolved (and each route checked) before anything is measured, so a
            // missing route stops the run in seconds.
            targets ??= await resolveTargets(base, dataset)
            log(`measuring ${configuration.label}: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up, ${SECONDS} s per URL`)
            const counted = { api: api.process.child.pid!, postgres: postgresPid }
            const pairs: Paired[] = []
            for (const t of targets) {
                // This machine's speed drifts by tens of percent over minutes (other tenants): each
                // list is compared with a baseline measured just before it, not one from minutes ago.
                const baseline = await measured('/config/backend-version', 0, `${base}/config/backend-version`, counted)
                pairs.push({ baseline, list: await measured(t.route, t.page, base + t.path, counted) })
            }
            runs.push({ label: configuration.label, figurePrefix: configuration.figurePrefix, pairs, apiOutput: api.output() })
        } finally {
            await api?.stop()
        }
    }
    report(dataset, runs, postgresSettings)
}

async function resolveTargets(base: string, dataset: SyntheticDataset): Promise<Target[]> {
    const targets: Target[] = []
    for (const { route, path: listPath } of listRoutes(dataset)) {
        log(`following ${route} to page ${DEEP_PAGE}`)
        targets.push({ route, page: 1, path: listPath })
        targets.push({ route, page: DEEP_PAGE, path: (await pageUrls(base + listPath, DEEP_PAGE, log))[DEEP_PAGE - 1].slice(base.length) })
    }
    return targets
}

function report(dataset: SyntheticDataset, runs: Run[], postgresSettings: string): void {
    const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED')
    const rps = (m: Measurement) => Math.round(m.reqPerSec)
    const figures: Record<string, string | number> = {}
    const verdicts = runs.map((r) => {
        const prefix = r.figurePrefix
        const share = (p: Paired) => p.list.reqPerSec / p.baseline.reqPerSec
        const lists = r.pairs.map((p) => p.list)
        const routes = [...new Set(lists.map((m) => m.route))]
        const deepRatio = (route: string) => {
            const [first, deep] = [1, DEEP_PAGE].map((page) => lists.find((m) => m.route === route && m.page === page)!)
            // Latencies are whole milliseconds; a 0 ms page 1 is counted as 1 ms.
            return deep.p50 / Math.max(first.p50, 1)
        }

        const table = [
            ['route', 'page', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'of baseline', `target >= ${MIN_SHARE_OF_BASELINE * 100}%`],
            ...r.pairs.map((p) => [
                p.list.route, String(p.list.page), String(rps(p.list)), String(p.list.p50), String(p.list.p99), String(rps(p.baseline)),
                `${Math.round(share(p) * 100)}%`, mark(share(p) >= MIN_SHARE_OF_BASELINE),
            ]),
        ]
        const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)))
        log(`\n${r.label}`)
        for (const row of table) log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '))
        log('')
        for (const route of routes) {
            const ratio = deepRatio(route)
            log(`${route.padEnd(widths[0])}  page ${DEEP_PAGE} / page 1 p50: ${ratio.toFixed(2)}x  (target <= ${MAX_DEEP_PAGE_RATIO}x: ${mark(ratio <= MAX_DEEP_PAGE_RATIO)})`)
        }
        const shareMet = r.pairs.every((p) => share(p) >= MIN_SHARE_OF_BASELINE)
        const deepMet = routes.every((route) => deepRatio(route) <= MAX_DEEP_PAGE_RATIO)
        const verdict = shareMet && deepMet ? 'targets met' : 'TARGET MISSED'
        log(`targets: list routes >= ${MIN_SHARE_OF_BASELINE * 100}% of baseline req/s, page ${DEEP_PAGE} <= ${MAX_DEEP_PAGE_RATIO}x page 1 p50: ${verdict}`)
        if (r.apiOutput.trim()) log(`\napi output (warnings and errors):\n${r.apiOutput.trim().slice(-3000)}`)

        for (const p of r.pairs) {
            figures[`${prefix}${p.list.route} page ${p.list.page}`] =
                `${rps(p.list)} req/s, p50 ${p.list.p50} ms, p99 ${p.list.p99} ms, ${cpuText(p.list)}; baseline just before: ` +
                `${rps(p.baseline)} req/s, ${cpuText(p.baseline)}; ${Math.round(share(p) * 100)}% of baseline (${mark(share(p) >= MIN_SHARE_OF_BASELINE)})`
        }
        for (const route of routes) {
            const ratio = deepRatio(route)
            figures[`${prefix}${route} page ${DEEP_PAGE} / page 1 p50`] = `${ratio.toFixed(2)}x (${mark(ratio <= MAX_DEEP_PAGE_RATIO)})`
        }
        return verdict
    })
    figures['load of the synthetic rows (s)'] = Math.round(dataset.loadMs / 1000)
    appendBenchmark(`Chain data API (npm run bench:api${SCALE === '10m' ? ' -- --scale 10m' : ''})`, figures, [
        `Synthetic rows loaded through the indexer's handlers and writer: ${Object.entries(dataset.rows).map(([t, n]) => `${t} ${n}`).join(', ')}. ${postgresSettings}`,
        `autocannon on loopback, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ${SECONDS} s per URL; page ${DEEP_PAGE} reached by following next_page_params.`,
        `Each list URL is compared with a baseline (/config/backend-version) measured just before it. Measured twice: ${runs.map((r) => r.label).join(', then ')} (rows "cache off:").`,
        `Targets: each list route >= ${MIN_SHARE_OF_BASELINE * 100}% of the baseline's req/s, page ${DEEP_PAGE} <= ${MAX_DEEP_PAGE_RATIO}x page 1 p50 latency: ` +
            `${verdicts[0]} as deployed; ${verdicts[1]} with the cache off.`,
    ])
    log(`machine: ${machine()}`)
}

// The live mode measures as production runs: Postgres with fsync on.
if (process.argv.includes('--live') || process.env.BENCH_API_MODE === 'live') runOnBenchPostgres({ name: 'bench-api-live' }, runLive)
else if (DATASET_DIR) {
    runOnKeptPostgres(DATASET_DIR, load, (url, pid, dataset) => run(url, pid, dataset, `Cluster kept in ${DATASET_DIR} (loaded with fsync off), measured with fsync on.`))
} else runOnBenchPostgres({ name: 'bench-api', fast: true }, async (url, pid) => run(url, pid, await load(url), 'Postgres with fsync off.'))
