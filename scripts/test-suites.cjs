// The three test suites and which test file belongs to which (docs/testing.md). Plain CommonJS so
// that the runner (scripts/test.mjs, no build needed) and a unit test (test/build/) share it.
'use strict'
const fs = require('fs')
const path = require('path')

const ROOT = path.resolve(__dirname, '..')

/** What the integration and e2e runs share: one Postgres cluster, one port allocator (test/support/). */
const RUN_FIXTURES = ['--require', 'lib/test/support/postgres.js', '--require', 'lib/test/support/ports.js']

const MOCHA_COMMON = ['--timeout', '120000', '--slow', '10000', '--exit', '--enable-source-maps']

/**
 * unit: from the TypeScript sources (tsx), no build, no Postgres, under the unit guard.
 * integration and e2e: from lib/ after `npm run build:all`, with the run's embedded Postgres, their
 * files spread over `jobs` mocha workers (processes) when more than one file runs. Most of their
 * time is spent waiting on chains, processes and sockets, not computing, which is why there are
 * more workers than the machine's two cores (docs/testing.md#parallel-workers).
 */
const SUITES = {
    unit: {
        fromSource: true,
        // No Postgres require: the guard refuses it. A pure test that needs more than 20 s is a bug.
        mocha: ['--no-config', '--require', 'tsx/cjs', '--require', 'test/support/unit-guard.ts', '--timeout', '20000', '--slow', '1000', '--exit'],
        matches: (file) => /\.unit\.test\.ts$/.test(file),
    },
    integration: {
        fromSource: false,
        mocha: ['--no-config', ...RUN_FIXTURES, ...MOCHA_COMMON],
        jobs: 6,
        matches: (file) =>
            /\.test\.ts$/.test(file) && !/\.(unit|e2e)\.test\.ts$/.test(file),
    },
    e2e: {
        fromSource: false,
        mocha: ['--no-config', ...RUN_FIXTURES, ...MOCHA_COMMON],
        jobs: 6,
        matches: (file) => /\.e2e\.test\.ts$/.test(file),
    },
}
const ORDER = ['unit', 'integration', 'e2e']

/**
 * Files that take minutes, run first: mocha's parallel mode hands files to free workers in the
 * order given, so a long file started last would leave the other workers idle while it finishes.
 * Measured on the 2-core machine (docs/testing.md#counts-and-times); a file missing here only
 * costs time.
 */
const LONGEST_FIRST = [
    'test/indexer/reliability-crashes.e2e.test.ts',
    'test/bridge/faults.e2e.test.ts',
    'test/bridge/crash.e2e.test.ts',
    'test/indexer/reliability-process.e2e.test.ts',
    'test/launcher/start.e2e.test.ts',
    'test/bridge/extra-deposits.test.ts',
    'test/indexer/reliability-reorgs.e2e.test.ts',
    'test/indexer/log-range.test.ts',
    'test/bridge/failures.test.ts',
    'test/bridge/settlement.test.ts',
    'test/bridge/webhooks.test.ts',
    'test/build/production.test.ts',
    'test/bridge/pool-legs.test.ts',
    'test/bridge/networks.test.ts',
    'test/bridge/ledger-guard-nonevm.test.ts',
    'test/api/platform/durability.e2e.test.ts',
    'test/api/chain/contract-verification.test.ts',
    'test/bridge/swap-page.e2e.test.ts',
    'test/bridge/late.test.ts',
    'test/bridge/lifecycle.test.ts',
    'test/indexer/restart.e2e.test.ts',
    'test/bridge/restart.test.ts',
    'test/bridge/prices.test.ts',
    'test/bridge/fee-bump.test.ts',
    'test/bridge/ledger-guard.test.ts',
    'test/bridge/api.test.ts',
    'test/bridge/quote.test.ts',
]

/** Every test source, repo-relative with forward slashes: LONGEST_FIRST, then the rest sorted. */
function testFiles() {
    const out = []
    const walk = (dir) => {
        for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
            const rel = `${dir}/${entry.name}`
            if (entry.isDirectory()) walk(rel)
            else if (entry.name.endsWith('.test.ts')) out.push(rel)
        }
    }
    walk('test')
    const rank = (file) => {
        const i = LONGEST_FIRST.indexOf(file)
        return i < 0 ? LONGEST_FIRST.length : i
    }
    return out.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
}

/**
 * Each test file's suite; throws when a file belongs to no suite or to more than one, so no test
 * is silently dropped from `npm test` if a suite's rule is ever changed.
 */
function classify() {
    const files = testFiles()
    const bySuite = { unit: [], integration: [], e2e: [] }
    const problems = []
    for (const file of files) {
        const suites = ORDER.filter((s) => SUITES[s].matches(file))
        if (suites.length !== 1) problems.push(`${file} matches ${suites.length ? suites.join(' and ') : 'no suite'}`)
        else bySuite[suites[0]].push(file)
    }
    if (problems.length) throw new Error(`test suites: ${problems.join('; ')}`)
    return bySuite
}

/** A test file's source path (test/x.test.ts) from a source or compiled (lib/test/x.test.js) path. */
function sourceOf(arg) {
    let rel = path.relative(ROOT, path.resolve(arg)).split(path.sep).join('/')
    if (rel.startsWith('lib/') && rel.endsWith('.js')) rel = rel.slice('lib/'.length, -'.js'.length) + '.ts'
    return rel
}

/** The path mocha is given for a test source in a suite: the source, or its compiled file. */
function runPath(suite, source) {
    return SUITES[suite].fromSource ? source : `lib/${source.replace(/\.ts$/, '.js')}`
}

module.exports = { ROOT, SUITES, ORDER, LONGEST_FIRST, testFiles, classify, sourceOf, runPath }
