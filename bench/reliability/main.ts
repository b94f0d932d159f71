import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { mochaHooks } from '../../test/support/postgres'
import { machine } from '../report'
import { CRASH_SCENARIOS } from './crash-scenarios'
import { NODE_LIMIT_SCENARIOS } from './node-limit-scenarios'
import { HEAD_SCENARIOS } from './head-scenarios'
import { REORG_SCENARIOS } from './reorg-scenarios'
import { Outcome, SCENARIOS } from './scenarios'
import { renderScore, replaceSection, ScenarioScore } from './score'

/**
 * npm run reliability [-- --runs 3 --only rpc-stall,sigterm --fault-seconds 30 --head-seconds 300
 * --quiet-seconds 120 --label current]:
 * runs the catalogue's scenarios against the real indexer and writes the score table into
 * docs/RELIABILITY.md (the section named by --label, replaced if it exists).
 */

function option(name: string): string | undefined {
    const i = process.argv.indexOf(`--${name}`)
    return i >= 0 ? process.argv[i + 1] : undefined
}

async function main(): Promise<void> {
    const runs = Number(option('runs') ?? 3)
    const only = option('only')?.split(',')
    const faultMs = Number(option('fault-seconds') ?? 30) * 1000
    const headMs = Number(option('head-seconds') ?? 300) * 1000
    const quietMs = Number(option('quiet-seconds') ?? 120) * 1000
    const label = option('label') ?? 'current'
    const file = path.resolve(option('out') ?? path.resolve(__dirname, '../../../docs/RELIABILITY.md'))
    const all = [...SCENARIOS, ...REORG_SCENARIOS, ...CRASH_SCENARIOS, ...NODE_LIMIT_SCENARIOS, ...HEAD_SCENARIOS]
    const scenarios = all.filter((s) => !only || only.includes(s.id))
    if (scenarios.length === 0) throw new Error(`no scenario matches ${only}; known: ${all.map((s) => s.id).join(', ')}`)

    const scores: ScenarioScore[] = []
    try {
        for (const scenario of scenarios) {
            const outcomes: Outcome[] = []
            for (let run = 1; run <= runs; run++) {
                const started = Date.now()
                const outcome = await scenario.run({ faultMs, headMs, quietMs }).catch((err): Outcome => ({
                    checks: [{ name: 'scenario ran to the end', pass: false, detail: String(err?.message ?? err).split('\n')[0] }],
                    measures: {},
                }))
                outcomes.push(outcome)
                const failed = outcome.checks.filter((c) => !c.pass)
                console.log(`${scenario.id} run ${run}/${runs} (${Math.round((Date.now() - started) / 1000)} s): ${failed.length ? 'FAIL' : 'pass'}`)
                for (const c of outcome.checks) console.log(`  ${c.pass ? 'ok  ' : 'FAIL'} ${c.name}${c.detail ? `: ${c.detail}` : ''}`)
                console.log(`  ${JSON.stringify(outcome.measures)}`)
                if (failed.length && outcome.output) {
                    const log = path.join(os.tmpdir(), `reliability-${scenario.id}-${run}.log`)
                    fs.writeFileSync(log, outcome.output)
                    console.log(`  indexer output: ${log}`)
                }
            }
            scores.push({ scenario, outcomes })
        }
    } finally {
        await mochaHooks.afterAll()
    }
    const section = renderScore(label, scores, { runs, faultMs, machine: machine() })
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Indexer reliability\n'
    fs.writeFileSync(file, replaceSection(text, label, section))
    console.log(`score written to ${file} (section "${label}")`)
}

main().then(() => process.exit(0), (err) => {
    console.error(err)
    process.exit(1)
})
