import { Outcome, Scenario } from './scenarios'

/** The score table of docs/RELIABILITY.md: one row per check, passes over runs, and the measures per run. */

export interface ScenarioScore {
    scenario: Scenario
    outcomes: Outcome[]
}

const HEADING = (label: string) => `## Score: ${label}`

export function renderScore(label: string, scores: ScenarioScore[], run: { runs: number; faultMs: number; machine: string }): string {
    const rows: string[] = []
    let passed = 0
    for (const { scenario, outcomes } of scores) {
        const names = [...new Set(outcomes.flatMap((o) => o.checks.map((c) => c.name)))]
        const all = outcomes.every((o) => o.checks.every((c) => c.pass))
        if (all) passed++
        const measures = outcomes.map((o, i) => `run ${i + 1}: ${Object.entries(o.measures).map(([k, v]) => `${k} ${v}`).join(', ')}`).join('<br>')
        rows.push(`| **${scenario.item}** ${scenario.id}: ${scenario.title} | **${all ? 'pass' : 'FAIL'}** | | ${measures} |`)
        for (const name of names) {
            const results = outcomes.map((o) => o.checks.find((c) => c.name === name))
            const passes = results.filter((c) => c?.pass).length
            const failures = [...new Set(results.filter((c) => c && !c.pass && c.detail).map((c) => c!.detail!))]
            const details = failures.length ? failures : [...new Set(results.map((c) => c?.detail).filter((d): d is string => !!d))]
            rows.push(`| ${name} | ${passes}/${outcomes.length} | ${details.map(escape).join('; ')} | |`)
        }
    }
    return [
        HEADING(label),
        '',
        `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${run.runs} run(s) per scenario, faults lasting ${run.faultMs / 1000} s. Machine: ${run.machine}.`,
        `Scenarios passing on every run: **${passed}/${scores.length}**.`,
        '',
        '| scenario / check | passes/runs | detail (failures first) | measures |',
        '|---|---|---|---|',
        ...rows,
        '',
    ].join('\n')
}

const escape = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

/** The document with the section of this label replaced, or appended when it is not there yet. */
export function replaceSection(text: string, label: string, section: string): string {
    const heading = HEADING(label)
    const start = text.indexOf(`${heading}\n`)
    if (start < 0) return `${text.trimEnd()}\n\n${section}`
    const next = text.indexOf('\n## ', start + heading.length)
    return `${text.slice(0, start)}${section}${next < 0 ? '' : `\n${text.slice(next + 1)}`}`
}
