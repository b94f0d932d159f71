#!/usr/bin/env node
// Runs the test suites (docs/testing.md). Plain JS so it needs no build: the unit suite runs from
// the TypeScript sources and must answer before tsc would have finished.
//
//   node scripts/test.mjs                        unit, then integration, then e2e
//   node scripts/test.mjs --suite unit           one suite
//   node scripts/test.mjs <file>... [mocha options]
//       each file (test/x.test.ts or lib/test/x.test.js) in its own suite's way; options such as
//       --grep go to mocha. With --suite, every file must belong to that suite.
//
// mocha is run with --no-config and the files named: a config naming `spec` would add its whole
// glob to files given on the command line (mochajs/mocha#5412).
import { spawn } from 'child_process'
import * as fs from 'fs'
import { createRequire } from 'module'
import * as path from 'path'

const require = createRequire(import.meta.url)
const { ROOT, SUITES, ORDER, classify, testFiles, sourceOf, runPath } = require('./test-suites.cjs')
const MOCHA = require.resolve('mocha/bin/mocha.js', { paths: [ROOT] })

// mocha options that take a value: the value is not a file even when it ends in .js.
const VALUED = new Set(['--grep', '-g', '--fgrep', '-f', '--timeout', '-t', '--slow', '-s', '--reporter', '-R',
    '--reporter-option', '--reporter-options', '-O', '--require', '-r', '--retries', '--jobs', '-j', '--ui', '-u',
    '--file', '--extension', '--ignore', '--exclude', '--spec', '--config', '--package', '--node-option', '-n'])

function fail(message) {
    console.error(`scripts/test.mjs: ${message}`)
    process.exit(2)
}

function parse(argv) {
    let suite
    const files = []
    const options = []
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i]
        if (arg === '--suite') suite = argv[++i]
        else if (arg.startsWith('--suite=')) suite = arg.slice('--suite='.length)
        else if (VALUED.has(arg)) options.push(arg, argv[++i])
        else if (!arg.startsWith('-') && /\.(ts|js)$/.test(arg)) files.push(arg)
        else options.push(arg)
    }
    if (suite !== undefined && !SUITES[suite]) fail(`no suite "${suite}" (${ORDER.join(', ')})`)
    return { suite, files, options }
}

/** The suites to run, each with the test sources it runs. */
function plan({ suite, files }, bySuite) {
    if (!files.length) return (suite ? [suite] : ORDER).map((s) => [s, bySuite[s]])
    const chosen = new Map()
    for (const arg of files) {
        const source = sourceOf(arg)
        const owner = ORDER.find((s) => bySuite[s].includes(source))
        if (!owner) fail(`${arg} is not a test file (test/**/*.test.ts, or its lib/test/**/*.test.js)`)
        if (suite && owner !== suite) fail(`${arg} belongs to the ${owner} suite: run it with \`npm test -- ${arg}\` or \`npm run test:${owner} -- ${arg}\``)
        if (!chosen.has(owner)) chosen.set(owner, [])
        chosen.get(owner).push(source)
    }
    return ORDER.filter((s) => chosen.has(s)).map((s) => [s, chosen.get(s)])
}

/**
 * Without --suite, the integration and e2e files share one pool of workers (their mocha options
 * are the same): the e2e suite's long files (faults, crashes, the launcher) then overlap with the
 * integration files instead of starting when the last of those ends. Unit still runs first, alone.
 */
function pooled(runs) {
    const integration = runs.find(([s]) => s === 'integration')
    const e2e = runs.find(([s]) => s === 'e2e')
    if (!integration || !e2e) return runs
    const order = testFiles()
    const sources = [...integration[1], ...e2e[1]].sort((a, b) => order.indexOf(a) - order.indexOf(b))
    return [...runs.filter(([s]) => s !== 'integration' && s !== 'e2e'), ['integration', sources, 'integration + e2e']]
}

/**
 * mocha's parallel mode for a suite with `jobs` and more than one file: each file runs whole in one
 * of that many worker processes. TEST_JOBS overrides the number (TEST_JOBS=1: one file after
 * another in one process, as before); --parallel or --jobs given by hand win.
 */
function workers(suite, files, options) {
    if (options.some((o) => o === '--parallel' || o === '-p' || o === '--jobs' || o === '-j')) return []
    const jobs = process.env.TEST_JOBS ? Number(process.env.TEST_JOBS) : SUITES[suite].jobs
    if (process.env.TEST_JOBS && !(Number.isInteger(jobs) && jobs >= 1)) fail(`TEST_JOBS must be a whole number of at least 1, not "${process.env.TEST_JOBS}"`)
    if (!jobs || jobs < 2 || files < 2) return []
    return ['--parallel', '--jobs', String(Math.min(jobs, files))]
}

function runMocha(suite, sources, options, label = suite) {
    const paths = sources.map((source) => runPath(suite, source))
    if (!SUITES[suite].fromSource) {
        const missing = paths.filter((p) => !fs.existsSync(path.join(ROOT, p)))
        if (missing.length) fail(`the ${suite} suite runs the build: ${missing[0]}${missing.length > 1 ? ` and ${missing.length - 1} more are` : ' is'} missing; run \`npm run build:all\` first`)
    }
    const args = [MOCHA, ...SUITES[suite].mocha, ...workers(suite, paths.length, options), ...options, ...paths]
    const parallel = args.indexOf('--jobs')
    console.log(`\n=== ${label}: ${paths.length} file${paths.length === 1 ? '' : 's'}${parallel > 0 ? `, ${args[parallel + 1]} workers` : ''}`)
    const started = Date.now()
    return new Promise((resolve) => {
        const env = parallel > 0 ? { ...process.env, TEST_WORKERS: args[parallel + 1] } : process.env
        const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit', env })
        // Ctrl-C reaches the child through the terminal's process group: wait for it to stop what
        // it started instead of returning the prompt while it still cleans up. A plain kill (CI's
        // timeout) reaches only this process: pass it on.
        const onInt = () => { interrupted = true }
        const onTerm = () => { interrupted = true; child.kill('SIGTERM') }
        process.on('SIGINT', onInt)
        process.on('SIGTERM', onTerm)
        child.on('exit', (code, signal) => {
            process.off('SIGINT', onInt)
            process.off('SIGTERM', onTerm)
            resolve({ label, files: paths.length, code: code ?? 1, signal, seconds: (Date.now() - started) / 1000 })
        })
    })
}

const args = parse(process.argv.slice(2))
let bySuite
try {
    bySuite = classify()
} catch (error) {
    fail(error.message)
}
let interrupted = false
const results = []
const runs = plan(args, bySuite)
for (const [suite, sources, label] of args.suite ? runs : pooled(runs)) {
    if (!sources.length) continue
    results.push(await runMocha(suite, sources, args.options, label))
    if (interrupted) break
}
if (results.length > 1) {
    console.log('\n=== suites')
    for (const r of results) {
        const outcome = r.code === 0 ? 'passed' : r.signal ? `killed by ${r.signal}` : `failed (exit ${r.code})`
        console.log(`${r.label.padEnd(18)} ${String(r.files).padStart(4)} files  ${r.seconds.toFixed(1).padStart(8)} s  ${outcome}`)
    }
}
process.exit(interrupted ? 130 : results.every((r) => r.code === 0) ? 0 : 1)
