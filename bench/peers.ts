import { spawnSync } from 'child_process'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { INDEXER_NODE_OPTIONS } from '../launcher/services'
import { freePort } from '../test/support/ports'
import { indexerBackfillEnv, serveSyntheticChain } from './bench-chain'
import { createDatabase, runOnBenchPostgres } from './bench-postgres'
import { countRows, Run, runMeasured, Servers } from './measured-process'
import { appendBenchmark, machine } from './report'

/**
 * npm run bench:peers — this repository's indexer (the full backfill, without and with call traces)
 * and Ponder (every ERC-20 Transfer and AMM Swap into two tables) index the same cached chain to the
 * same end block, one after the other on the same Postgres and anvil: docs/testing.md#benchmarks
 */

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20_000)
/** Ponder's rate limiter works per URL; 16 URLs of the one anvil lift it off the machine's CPU (64 are no faster). */
const PONDER_URLS = Number(process.env.BENCH_PONDER_RPC_URLS ?? 16)
/** Target: our blocks/s at least this many times Ponder's. */
const GOAL = 3
/** Confirmations before a block is final: Ponder assumes 30 on a chain it does not know; the indexer's default is 10. */
const PONDER_FINALITY = 30
const INDEXER_FINALITY = 10
const LIB = path.resolve(__dirname, '..')
const PONDER_DIR = path.resolve(LIB, '../bench/peers/ponder')
const PONDER_SCHEMA = 'ponder'

const log = (message: string) => process.stdout.write(`${message}\n`)
const round1 = (n: number) => Number(n.toFixed(1))

/** Ponder's own dependencies, installed into bench/peers/ponder/node_modules from its lock file when missing. */
function ensurePonderInstalled(): string {
    const manifest = path.join(PONDER_DIR, 'node_modules/ponder/package.json')
    const wanted = JSON.parse(fs.readFileSync(path.join(PONDER_DIR, 'package.json'), 'utf8')).dependencies.ponder
    if (!fs.existsSync(manifest) || JSON.parse(fs.readFileSync(manifest, 'utf8')).version !== wanted) {
        log(`installing Ponder ${wanted} into ${path.relative(process.cwd(), PONDER_DIR)}/node_modules`)
        const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PONDER_DIR, stdio: 'inherit' })
        if (npm.status !== 0) throw new Error(`npm ci in ${PONDER_DIR} failed (${npm.status ?? npm.signal})`)
    }
    const bin = JSON.parse(fs.readFileSync(manifest, 'utf8')).bin.ponder
    return path.join(PONDER_DIR, 'node_modules/ponder', bin)
}

/** Rows in Ponder's two tables, and in its sync store (the raw blocks, transactions and logs it caches). */
async function ponderRows(databaseUrl: string): Promise<{ tables: number; syncStore: number }> {
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        const tables = await db.query(`SELECT (SELECT count(*) FROM ${PONDER_SCHEMA}.transfer) + (SELECT count(*) FROM ${PONDER_SCHEMA}.swap) AS n`)
        return { tables: Number(tables.rows[0].n), syncStore: await countRows(databaseUrl, 'ponder_sync') }
    } finally {
        await db.end()
    }
}

/** One indexer's run over the chain, as reported. */
interface Measured {
    name: string
    job: string
    run: Run
    /** Rows in its own tables. */
    rows: number
    /** Spawn to the first block fetched. */
    startupMs: number
}

/** Milliseconds from a run's spawn to its first JSON log line containing `marker` (0 when none does). */
function msUntilLogLine(run: Run, marker: string): number {
    const line = run.output.split('\n').find((l) => l.includes(marker))
    if (!line) return 0
    const { time } = JSON.parse(line)
    return (typeof time === 'number' ? time : Date.parse(time)) - run.started
}

/** Ponder keeps serving once its end block is indexed; this log line says every block is in and its indexes are built. */
const ponderDone = (output: string) => output.includes('"msg":"Completed indexing across all chains"')

runOnBenchPostgres({ name: 'bench-peers' }, async (serverUrl, postgresPid) => {
    const ponderBin = ensurePonderInstalled()
    const served = await serveSyntheticChain(BLOCKS, Math.max(PONDER_FINALITY, INDEXER_FINALITY), log)
    const { chain, anvil } = served
    try {
        const servers: Servers = { postgresPid, anvilPid: anvil.process.child.pid! }
        // Both index from block 0 to the synthetic chain's head.
        const blocks = chain.head + 1
        log(`chain: ${blocks} blocks, ${chain.transactions} synthetic transactions`)
        const load: string[] = []
        const noteLoad = (when: string) => {
            load.push(`${when} ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}`)
            log(`load average (1/5/15 min) ${load[load.length - 1]}`)
        }

        const measured: Measured[] = []
        for (const tracing of ['none', 'trace_block']) {
            const name = tracing === 'none' ? 'ours, no traces' : 'ours, call traces'
            noteLoad(`before ${name}:`)
            const databaseUrl = await createDatabase(serverUrl, `bench_ours_${tracing}`)
            const run = await runMeasured(process.execPath, [...INDEXER_NODE_OPTIONS, path.join(LIB, 'indexer/main.js')], {
                env: indexerBackfillEnv(served, databaseUrl, tracing, INDEXER_FINALITY),
                servers,
            })
            const rows = await countRows(databaseUrl)
            log(`${name}: ${(run.ms / 1000).toFixed(1)} s, ${rows} rows`)
            measured.push({ name, job: `full backfill, INDEXER_TRACING=${tracing}`, run, rows, startupMs: msUntilLogLine(run, '"indexer starting"') })
        }

        noteLoad('before Ponder:')
        const ponderUrl = await createDatabase(serverUrl, 'bench_ponder')
        const rpcUrls = Array.from({ length: PONDER_URLS }, (_, i) => `${anvil.url}/?url=${i}`)
        const run = await runMeasured(process.execPath, [ponderBin, 'start', '--log-format', 'json', '--schema', PONDER_SCHEMA, '--port', String(await freePort())], {
            cwd: PONDER_DIR,
            env: {
                DATABASE_URL: ponderUrl,
                PONDER_RPC_URLS: rpcUrls.join(','),
                PONDER_FACTORY_ADDRESS: chain.contracts.factory,
                PONDER_END_BLOCK: String(chain.head),
                PONDER_TELEMETRY_DISABLED: 'true',
            },
            servers,
            doneWhen: ponderDone,
        })
        const ponderWritten = await ponderRows(ponderUrl)
        log(`Ponder: ${(run.ms / 1000).toFixed(1)} s, ${ponderWritten.tables} rows in its tables, ${ponderWritten.syncStore} in its sync store`)
        noteLoad('after Ponder:')
        const ponder: Measured = { name: 'Ponder', job: 'ERC-20 Transfer + Swap', run, rows: ponderWritten.tables, startupMs: msUntilLogLine(run, '"Started backfill indexing"') }
        measured.push(ponder)

        const seconds = (m: Measured) => m.run.ms / 1000
        const bps = (m: Measured) => blocks / seconds(m)
        const verdicts = measured.slice(0, -1).map((m) => {
            const ratio = bps(m) / bps(ponder)
            return `${m.name} / Ponder blocks/s ${ratio.toFixed(2)}x (${ratio >= GOAL ? 'ok' : 'MISSED'})`
        })
        const each = (f: (m: Measured) => number | string) => measured.map(f)
        const figures: Record<string, (number | string)[]> = {
            job: each((m) => m.job),
            'wall time, spawn to done (s)': each((m) => round1(seconds(m))),
            // Process start, migrations or build, up to the first block fetched: a large share of a short chain's run.
            'start-up (s)': each((m) => round1(m.startupMs / 1000)),
            'blocks/s': each((m) => Math.round(bps(m))),
            'rows written (its tables)': each((m) => m.rows),
            'rows written/s': each((m) => Math.round(m.rows / seconds(m))),
            'CPU-s: indexer': each((m) => round1(m.run.cpuSeconds.script)),
            'CPU-s: postgres': each((m) => round1(m.run.cpuSeconds.postgres)),
            'CPU-s: anvil': each((m) => round1(m.run.cpuSeconds.anvil)),
            'CPU-s (indexer + postgres) per 1,000 blocks': each((m) => Number(((m.run.cpuSeconds.script + m.run.cpuSeconds.postgres) / (blocks / 1000)).toFixed(2))),
            'peak RSS, indexer (MiB)': each((m) => m.run.peakRssMb),
        }
        const verdict = `goal >= ${GOAL}x: ${verdicts.join('; ')}`
        log('')
        log(`${''.padEnd(46)} ${measured.map((m) => m.name).join(' | ')}`)
        for (const [k, v] of Object.entries(figures)) log(`${k.padEnd(46)} ${v.join(' | ')}`)
        log(`\n${verdict}`)
        appendBenchmark('Indexer vs Ponder (npm run bench:peers)', figures, [
            `The same cached synthetic chain of ${blocks} blocks (per block a disperse of 6 STABLE transfers and a two-hop swap) indexed from block 0 to ${chain.head} into empty databases of one Postgres (production settings): this repository's indexer without and then with call traces, then Ponder ${JSON.parse(fs.readFileSync(path.join(PONDER_DIR, 'package.json'), 'utf8')).dependencies.ponder}.`,
            `Ponder indexes every ERC-20 Transfer and every Swap of the factory's pairs into two tables (bench/peers/ponder), over ${PONDER_URLS} RPC URLs of the one anvil (it rate-limits each URL on its own); besides its tables it wrote ${ponderWritten.syncStore} rows to its sync store. Done is its "Completed indexing across all chains" (indexes built, /ready answering).`,
            `Target: ${verdict}.`,
            `Load average (1/5/15 min; other processes share the machine): ${load.join('; ')}.`,
        ], measured.map((m) => m.name))
        log(`machine: ${machine()}`)
    } finally {
        await anvil.stop()
    }
})
