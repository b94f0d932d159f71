import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { startEmbeddedPostgres } from '../db/postgres'
import { INDEXER_NODE_OPTIONS } from '../launcher/services'
import { freePort } from '../test/support/ports'
import { indexerBackfillEnv, serveSyntheticChain } from './bench-chain'
import { createDatabase } from './bench-postgres'
import { postmasterPid } from './cpu'
import { countRows, runMeasured, Servers } from './measured-process'
import { appendBenchmark, machine } from './report'
import { CACHE_DIR, SyntheticSenders } from './synthetic-chain'

/**
 * npm run bench:indexer — (a) fetch-only: the processor pulling every block, transaction, receipt
 * and log exactly as the indexer does, storing nothing; (b) a full backfill of the same chain
 * into an empty database by the real indexer process (with the Node options it is started with); both without call trees and then with them.
 * Prints blocks/s, logs/s, rows/s, the ratio (b)/(a), CPU-seconds of the indexer, Postgres and anvil,
 * peak RSS, and where the backfill's time went;
 * appends the figures to docs/BENCHMARKS.md. BENCH_INDEXER_TRACES=with|without runs one variant;
 * BENCH_INDEXER_NODE_OPTIONS passes Node options to the indexer process (a CPU profile:
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`); BENCH_INDEXER_SENDERS=fresh indexes a chain whose every
 * block also brings a new sender (the cost of the per-sender facts at many senders).
 */

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20_000)
/** `fresh`: a chain whose every block also brings a new sender (synthetic-chain.ts); `few` (default): the deployer and 20 traders. */
const SENDERS = senders(process.env.BENCH_INDEXER_SENDERS ?? 'few')
/** Which variants to run: `both` (default), `with` or `without` call trees. */
const VARIANTS = variants(process.env.BENCH_INDEXER_TRACES ?? 'both')
/** Node options added to the indexer's own (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), split on spaces. */
const EXTRA_NODE_OPTIONS = (process.env.BENCH_INDEXER_NODE_OPTIONS ?? '').split(' ').filter(Boolean)
const round1 = (n: number) => Number(n.toFixed(1))
const LIB = path.resolve(__dirname, '..')
/** The indexer's default INDEXER_FINALITY_CONFIRMATION. */
const FINALITY = 10

async function main(): Promise<void> {
    const log = (m: string) => process.stdout.write(`${m}\n`)
    const served = await serveSyntheticChain(BLOCKS, FINALITY, log, SENDERS)
    const { chain, anvil } = served
    const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pg-'))
    const pg = await startEmbeddedPostgres({ dir: pgDir, port: await freePort(), database: 'bench' })
    const servers: Servers = { postgresPid: postmasterPid(pgDir), anvilPid: anvil.process.child.pid! }
    try {
        const common = {
            RPC_URL: anvil.url,
            INDEXER_END_BLOCK: String(chain.head),
            INDEXER_FINALITY_CONFIRMATION: String(FINALITY),
            INDEXER_HEALTH_PORT: '0',
        }
        log(`chain: ${chain.head + 1} blocks, ${chain.transactions} synthetic transactions`)

        // Other processes share the machine: the load average is part of the result.
        const load: string[] = []
        const noteLoad = (when: string) => {
            load.push(`${when} ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}`)
            log(`load average (1/5/15 min) ${load[load.length - 1]}`)
        }
        // Each pair is measured without and then with call trees (INDEXER_TRACING=none vs trace_block),
        // into a database of its own, so both ratios come from the same run on the same machine.
        const results: Record<string, Record<string, number>> = {}
        const verdicts: string[] = []
        for (const traces of VARIANTS) {
            const name = traces ? 'with traces' : 'without traces'
            const databaseUrl = await createDatabase(pg.url, traces ? 'bench_traces' : 'bench_plain')
            noteLoad(`before (a) ${name}:`)
            const fetch = await runMeasured(process.execPath, [path.join(LIB, 'bench/fetch-only.js')], { env: { ...common, LOG_LEVEL: 'warn', BENCH_TRACES: traces ? '1' : '0' }, servers })
            const fetched = JSON.parse(fetch.output.trim().split('\n').filter((l) => l.startsWith('{"blocks"')).pop()!)
            log(`(a) fetch-only ${name}: ${fetched.blocks} blocks, ${fetched.logs} logs, ${fetched.frames} frames in ${(fetch.ms / 1000).toFixed(1)} s`)
            noteLoad(`after (a) ${name}:`)
            const backfill = await runMeasured(process.execPath, [...INDEXER_NODE_OPTIONS, ...EXTRA_NODE_OPTIONS, path.join(LIB, 'indexer/main.js')], {
                env: indexerBackfillEnv(served, databaseUrl, traces ? 'trace_block' : 'none', FINALITY),
                servers,
            })
            noteLoad(`after (b) ${name}:`)
            // Start-up: process start, migrations and the status read, up to the indexer's "indexer starting".
            const startLine = backfill.output.split('\n').find((l) => l.includes('"indexer starting"'))
            const startupMs = startLine ? Date.parse(JSON.parse(startLine).time) - backfill.started : 0
            const commits = backfill.output.split('\n').filter((l) => l.includes('"committed batch"')).map((l) => JSON.parse(l))
            const stages = commits[commits.length - 1]?.stages ?? { derive: 0, readAddresses: 0, write: 0 }
            const rows = await countRows(databaseUrl)
            const facts = await accountFacts(databaseUrl)
            log(`(b) backfill ${name}: ${(backfill.ms / 1000).toFixed(1)} s, ${rows} rows, ${commits.length} commits`)

            const seconds = (ms: number) => ms / 1000
            const fetchBps = fetched.blocks / seconds(fetch.ms)
            const backfillBps = fetched.blocks / seconds(backfill.ms)
            // What the stages leave: fetching, and the handler waiting for blocks (the processor
            // prefetches only a few ten-block splits, so fetching pauses during each commit).
            const stageOther = backfill.ms - startupMs - stages.derive - stages.readAddresses - stages.write
            results[name] = {
                blocks: fetched.blocks,
                logs: fetched.logs,
                'call frames': fetched.frames,
                transactions: fetched.transactions,
                'fetch-only blocks/s': Math.round(fetchBps),
                'fetch-only logs/s': Math.round(fetched.logs / seconds(fetch.ms)),
                'backfill blocks/s': Math.round(backfillBps),
                'backfill logs/s': Math.round(fetched.logs / seconds(backfill.ms)),
                'backfill rows written/s': Math.round(rows / seconds(backfill.ms)),
                'rows written': rows,
                'distinct senders (account_activity A: facts)': facts.ever,
                'account_activity rows (day, week and ever facts)': facts.all,
                'ratio (b)/(a)': Number((backfillBps / fetchBps).toFixed(2)),
                'backfill CPU-s: indexer': round1(backfill.cpuSeconds.script),
                'backfill CPU-s: postgres': round1(backfill.cpuSeconds.postgres),
                'backfill CPU-s: anvil': round1(backfill.cpuSeconds.anvil),
                'backfill CPU-s (indexer + postgres) per 1,000 blocks': Number(((backfill.cpuSeconds.script + backfill.cpuSeconds.postgres) / (fetched.blocks / 1000)).toFixed(2)),
                'fetch-only CPU-s: fetcher': round1(fetch.cpuSeconds.script),
                'fetch-only CPU-s: anvil': round1(fetch.cpuSeconds.anvil),
                'peak RSS, indexer (MiB)': backfill.peakRssMb,
                'peak RSS, fetch-only (MiB)': fetch.peakRssMb,
                'backfill time: start-up and migrations (s)': Number(seconds(startupMs).toFixed(1)),
                'backfill time: fetch and wait (s)': Number(seconds(stageOther).toFixed(1)),
                'backfill time: derive rows (s)': Number(seconds(stages.derive).toFixed(1)),
                'backfill time: read balances (s)': Number(seconds(stages.readAddresses).toFixed(1)),
                'backfill time: write (s)': Number(seconds(stages.write).toFixed(1)),
            }
            const met = results[name]['ratio (b)/(a)'] >= 0.5 && backfill.peakRssMb < 1024
            verdicts.push(`${name}: ${met ? 'targets met' : 'TARGET MISSED'}`)
        }
        const columns = Object.keys(results)
        const figures: Record<string, number[]> = {}
        for (const key of Object.keys(results[columns[0]])) figures[key] = columns.map((c) => results[c][key])
        log('')
        log(`${''.padEnd(56)} ${columns.join(' | ')}`)
        for (const [k, v] of Object.entries(figures)) log(`${k.padEnd(56)} ${v.join(' | ')}`)
        log(`\ntargets: ratio >= 0.5, peak RSS < 1 GiB: ${verdicts.join('; ')}`)
        appendBenchmark('Indexer backfill (npm run bench:indexer)', figures, [
            `The same chain fetched and indexed with INDEXER_TRACING=none, then with trace_block (every transaction's call tree, stored in internal_transaction, and the balance history built from it). Fetch-only (a) reads the call trees too when traces are on. With traces the handler reads the call trees itself, so "derive rows" includes that reading, and since derivation overlaps the previous batch's commit the remainder ("fetch and wait") can come out negative.`,
            `Synthetic chain of ${results[columns[0]].blocks} blocks: per block one disperse transaction (6 STABLE transfers) and one two-hop swap (7 logs)${SENDERS === 'fresh' ? ', and a plain transfer from a sender never seen before (BENCH_INDEXER_SENDERS=fresh)' : ', from the deployer and 20 traders'}; cached in ${path.relative(process.cwd(), CACHE_DIR)}.`,
            `Targets: ratio (b)/(a) >= 0.5 and peak RSS < 1 GiB: ${verdicts.join('; ')}.`,
            `Load average (1/5/15 min; other processes share the machine): ${load.join('; ')}.`,
        ], columns)
        log(`machine: ${machine()}`)
    } finally {
        await pg.stop()
        fs.rmSync(pgDir, { recursive: true, force: true })
        await anvil.stop()
    }
}

function senders(value: string): SyntheticSenders {
    if (value !== 'few' && value !== 'fresh') throw new Error(`BENCH_INDEXER_SENDERS takes few or fresh, not ${value}`)
    return value
}

/** The sender facts the stats lines' active accounts are counted from (indexer/stats: account_activity ids `A:`, `D:`, `W:`). */
async function accountFacts(databaseUrl: string): Promise<{ ever: number; all: number }> {
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        const { rows: [row] } = await db.query(`SELECT count(*) FILTER (WHERE id LIKE 'A:%')::int AS ever, count(*)::int AS all FROM account_activity`)
        return row
    } finally {
        await db.end()
    }
}

function variants(value: string): boolean[] {
    switch (value) {
        case 'both': return [false, true]
        case 'with': return [true]
        case 'without': return [false]
        default: throw new Error(`BENCH_INDEXER_TRACES must be both, with or without, not ${value}`)
    }
}

main().catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`)
    process.exit(1)
})
