import { Client } from 'pg'
import { applyMigrations } from '../db/migrate'
import { ApiProcess, startApi } from '../test/support/api'
import { createDatabase, runOnBenchPostgres } from './bench-postgres'
import { appendBenchmark, machine } from './report'
import { Measurement, measureRoute, showMeasurement } from './route-measurement'

/**
 * npm run bench:defi — the DeFi routes and the stats service's lines (docs/stats-api.md) over a small
 * and a large history, side by side: docs/testing.md#benchmarks. Each swap stands for a transaction
 * of the chain too: the stats lines' per-day rows are made from the same history.
 */

const SIZES = [Number(process.env.BENCH_DEFI_SMALL ?? 10_000), Number(process.env.BENCH_DEFI_LARGE ?? 1_000_000)]
const CONNECTIONS = 10
const SECONDS = Number(process.env.BENCH_DEFI_SECONDS ?? 10)
const WARMUP_SECONDS = 2
const LOAD = { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS }
/** Target: each route's latency with the large history at most this many times the small one's (DeFi routes and stats lines alike). */
const MAX_RATIO = 1.2
const HISTORY_DAYS = 365
/**
 * Both histories end with the same recent activity (these swaps over these days) and differ only
 * in how much older history lies before it: the routes must not slow down as history grows.
 */
const RECENT_SWAPS = 5_000
const RECENT_DAYS = 7

const log = (message: string) => process.stdout.write(`${message}\n`)
const hex = (n: number) => `0x${n.toString(16).padStart(40, '0')}`

const STABLE = hex(0x5ab1e)
const WNATIVE = hex(0xe7e7)
const TOKENS = Array.from({ length: 8 }, (_, i) => hex(0x7000 + i))
/** 20 pairs: each token with STABLE and with WNATIVE, WNATIVE/STABLE, and three token/token pairs. */
const PAIRS: [string, string][] = [
    ...TOKENS.map((t): [string, string] => [t, STABLE]),
    ...TOKENS.map((t): [string, string] => [t, WNATIVE]),
    [WNATIVE, STABLE],
    [TOKENS[0], TOKENS[1]], [TOKENS[2], TOKENS[3]], [TOKENS[4], TOKENS[5]],
]

const ROUTES = [
    '/api/defi/pools', '/api/defi/volume?days=30', '/api/defi/volume?days=365',
    // The stats lines at each kind of aggregation (sum, cumulative, average, weekly distinct) over the whole year.
    '/api/v1/lines/newTxns', '/api/v1/lines/txnsGrowth?resolution=WEEK', '/api/v1/lines/averageGasPrice?resolution=MONTH',
    '/api/v1/lines/activeAccounts?resolution=WEEK', '/api/v1/lines/dexVolume?resolution=MONTH', '/api/v1/pages/main',
]
const BASELINE = '/api/v2/config/backend-version'

/**
 * `swaps` swaps round the pairs, the newest RECENT_SWAPS over the last RECENT_DAYS days and the
 * rest spread evenly over the days before, back to HISTORY_DAYS, and the aggregates
 * the indexer keeps from them (pair_hour_data, dex_day_data, pair totals), made in SQL in the indexer's
 * shapes: the DeFi routes read only the aggregates, whose size is what grows with history.
 */
async function loadHistory(databaseUrl: string, swaps: number): Promise<Record<string, number>> {
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        await db.query(`SET TimeZone = 'UTC'`)
        const tokens = [[STABLE, 'STABLE', 6], [WNATIVE, 'WNATIVE', 18], ...TOKENS.map((t, i) => [t, `T${i}`, 18])]
        for (const [id, symbol, decimals] of tokens) {
            await db.query(
                `INSERT INTO token (id, type, name, symbol, decimals, total_supply, holder_count, transfer_count, first_block,
                                    trade_volume, trade_volume_quote, swap_count, total_liquidity)
                 VALUES ($1, 'ERC-20', $2, $2, $3, 0, 0, 0, 0, 0, 0, 0, 0)`, [id, symbol, decimals])
        }
        for (const [i, [token0, token1]] of PAIRS.entries()) {
            await db.query(
                `INSERT INTO pair (id, token0_id, token1_id, reserve0, reserve1, created_block, created_transaction, volume_total, swaps_total,
                                   reserve0_decimal, reserve1_decimal, reserve_quote, volume_token0, volume_token1, total_supply)
                 VALUES ($1, $2, $3, $4, $5, 0, $6, 0, 0, 0, 0, 0, 0, 0, 0)`,
                [hex(0xaa00 + i), token0, token1, (10n ** 24n).toString(), (10n ** 12n * BigInt(i + 1)).toString(), hex(i)])
        }
        await db.query(
            `INSERT INTO swap (id, trade_id, trader, pair_id, block_number, timestamp, log_index, transaction_hash, sender, "to",
                               amount0_in, amount1_in, amount0_out, amount1_out, volume)
             SELECT i || '-0', i || '-0', $4, ($1::text[])[1 + i % ${PAIRS.length}], i,
                    CASE WHEN i > $2::bigint - ${RECENT_SWAPS}
                         THEN now() - make_interval(secs => ($2::bigint - i) * ${(RECENT_DAYS * 86_400) / RECENT_SWAPS}::float8)
                         ELSE now() - make_interval(days => ${RECENT_DAYS}) - make_interval(secs => ($2::bigint - ${RECENT_SWAPS} - i) * $3::float8)
                    END, 0,
                    md5(i::text), $4, $4, 1000000 * (i % 1000 + 1), 0, 0, 990000 * (i % 1000 + 1), 1000000 * (i % 1000 + 1)
             FROM generate_series(1, $2::bigint) AS i`,
            [PAIRS.map((_, i) => hex(0xaa00 + i)), swaps, ((HISTORY_DAYS - RECENT_DAYS) * 86_400) / (swaps - RECENT_SWAPS), hex(0xbeef)])
        await db.query(
            `INSERT INTO pair_hour_data (id, pair_id, hour, volume, swaps, volume_token0, volume_token1, reserve0, reserve1, reserve0_decimal, reserve1_decimal, reserve_quote)
             SELECT pair_id || '-' || extract(epoch FROM date_trunc('hour', timestamp))::bigint, pair_id, date_trunc('hour', timestamp), sum(volume), count(*), 0, 0, 0, 0, 0, 0, 0
             FROM swap GROUP BY pair_id, date_trunc('hour', timestamp)`)
        await db.query(
            `INSERT INTO dex_day_data (id, date, volume, swaps, trade_volume_quote, trades, liquidity_quote, pair_count)
             SELECT to_char(date_trunc('day', timestamp), 'YYYY-MM-DD'), date_trunc('day', timestamp), sum(volume), count(*), sum(volume), count(*), 0, ${PAIRS.length}
             FROM swap GROUP BY date_trunc('day', timestamp)`)
        // The stats lines' rows, in the indexer's shapes: a day's swaps as its transactions (one a block),
        // and the sender facts, one per transaction, whose table grows with history as the indexer's does.
        await db.query(
            `INSERT INTO daily_chain_activity (id, date, blocks, transactions, gas_used, fees, block_size, gas_price, active_accounts,
                                               active_accounts_week, new_accounts, new_contracts, verified_contracts, coin_supply, coin_holders)
             SELECT to_char(day, 'YYYY-MM-DD'), day, n, n, 100000 * n, 100000 * 1000000000::numeric * n, 600 * n, 1000000000::numeric * n,
                    least(n, 500), CASE WHEN extract(isodow FROM day) = 1 THEN least(n, 2000) ELSE 0 END, least(n, 50), n / 100, n / 1000,
                    10::numeric ^ 24, 1000
             FROM (SELECT date_trunc('day', timestamp) AS day, count(*) AS n FROM swap GROUP BY 1) d`)
        await db.query(`INSERT INTO account_activity (id) SELECT 'D:' || to_char(timestamp, 'YYYY-MM-DD') || ':' || id FROM swap`)
        await db.query(
            `UPDATE pair SET volume_total = s.volume, swaps_total = s.swaps
             FROM (SELECT pair_id, sum(volume) AS volume, count(*) AS swaps FROM swap GROUP BY pair_id) s WHERE s.pair_id = pair.id`)
        await db.query('ANALYZE')
        const rows: Record<string, number> = {}
        for (const table of ['swap', 'pair_hour_data', 'dex_day_data', 'pair', 'daily_chain_activity', 'account_activity']) {
            rows[table] = Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)
        }
        return rows
    } finally {
        await db.end()
    }
}

/** Rounds of small, then large, per route: the machine's speed drifts, so each size keeps its best round. */
const ROUNDS = 2

async function run(serverUrl: string, postgresPid: number): Promise<void> {
    const histories: { swaps: number; rows: Record<string, number>; api: ApiProcess }[] = []
    try {
        for (const swaps of SIZES) {
            const databaseUrl = await createDatabase(serverUrl, `defi_${swaps}`)
            await applyMigrations(databaseUrl)
            const started = Date.now()
            const rows = await loadHistory(databaseUrl, swaps)
            log(`${swaps} swaps loaded in ${((Date.now() - started) / 1000).toFixed(0)} s: ${Object.entries(rows).map(([t, n]) => `${t} ${n}`).join(', ')}`)
            const api = await startApi({
                databaseUrl,
                // Every answer computed afresh: with the cache on, all but one request per window are a copy.
                env: {
                    EXPLORER_DEFI_CACHE_SECONDS: '0',
                    STABLE_ADDRESS: STABLE,
                    WNATIVE_ADDRESS: WNATIVE,
                    AMM_FACTORY_ADDRESS: hex(0xfac),
                    AMM_ROUTER_ADDRESS: hex(0x4047e4),
                },
            })
            histories.push({ swaps, rows, api })
        }
        const best = histories.map(() => ({} as Record<string, Measurement>))
        for (const route of [BASELINE, ...ROUTES]) {
            for (let round = 1; round <= ROUNDS; round++) {
                for (const [i, h] of histories.entries()) {
                    log(`${h.swaps} swaps, round ${round}:`)
                    const m = await measureRoute(`${h.api.explorerUrl}${route}`, h.api, postgresPid, LOAD)
                    if (!best[i][route] || m.average < best[i][route].average) best[i][route] = m
                }
            }
        }
        report(histories.map((h, i) => ({ swaps: h.swaps, rows: h.rows, byRoute: best[i] })))
    } finally {
        for (const h of histories) await h.api.stop()
    }
}

function report(results: { swaps: number; rows: Record<string, number>; byRoute: Record<string, Measurement> }[]): void {
    const [small, large] = results
    const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED')
    const cpu = (m: Measurement) => m.cpu.api + m.cpu.postgres
    const figures: Record<string, string[]> = {}
    const verdicts: string[] = []
    log('')
    for (const route of [BASELINE, ...ROUTES]) {
        const [s, l] = [small.byRoute[route], large.byRoute[route]]
        const ratio = l.average / s.average
        const cpuRatio = cpu(l) / cpu(s)
        const verdict = route === BASELINE ? `${ratio.toFixed(2)}x (baseline)` : `${ratio.toFixed(2)}x (${mark(ratio <= MAX_RATIO)}); CPU ${cpuRatio.toFixed(2)}x`
        figures[route] = [showMeasurement(s), showMeasurement(l), verdict]
        if (route !== BASELINE) verdicts.push(`${route} ${verdict}`)
        log(`${route.padEnd(30)} large/small mean latency ${verdict}${route === BASELINE ? '' : ` (target <= ${MAX_RATIO}x)`}`)
    }
    appendBenchmark('DeFi routes and stats lines over history (npm run bench:defi)', figures, [
        `Two databases side by side: ${results.map((r) => `${r.swaps} swaps (${Object.entries(r.rows).map(([t, n]) => `${t} ${n}`).join(', ')})`).join('; ')}; the newest ${RECENT_SWAPS} swaps over the last ${RECENT_DAYS} days in both, the rest spread evenly over the year before, round ${PAIRS.length} pairs; the aggregates made from them in SQL in the indexer's shapes (the stats lines' per-day rows with each swap as a transaction, and a sender fact per transaction). Postgres with fsync on.`,
        `One api process per database, both up at once, with EXPLORER_DEFI_CACHE_SECONDS=0 (every answer computed; as deployed, all but one request per window are a cached copy). autocannon on loopback, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up, ${SECONDS} s per URL, ${ROUNDS} rounds alternating the sizes; each size keeps its best round. The ratio compares mean latencies (autocannon's percentiles are whole milliseconds); CPU is the api's and Postgres's per request.`,
        `Target: each DeFi route's and stats line's latency with the large history <= ${MAX_RATIO}x the small one's: ${verdicts.join('; ')}.`,
    ], [`${small.swaps} swaps`, `${large.swaps} swaps`, 'large / small'])
    log(`machine: ${machine()}`)
}

runOnBenchPostgres({ name: 'bench-defi' }, run)
