import { expect } from 'chai'
import { Scenario } from '../../bench/reliability/scenarios'

/**
 * The fast subset of the reliability catalogue (docs/RELIABILITY.md) against the real indexer
 * process, one run each, faults of 10 s instead of 30 s and a quiet head of 20 s instead of 120 s;
 * `npm run reliability` runs the whole catalogue three times (and the Postgres restart during a
 * backfill and head latency, left out here for time). The subset is spread over three files
 * (reliability-*.e2e.test.ts), each a few minutes, so that parallel workers run them side by side.
 */
export interface ReliabilityGroup {
    title: string
    scenarios: Scenario[]
    ids: string[]
    /** Checks a scenario of the group makes at the least: a scenario that checks nothing fails. */
    minChecks: number
}

export function describeReliability(groups: ReliabilityGroup[], more?: () => void): void {
    describe('indexer reliability', function () {
        this.timeout(300_000)

        for (const group of groups) {
            describe(group.title, () => {
                for (const id of group.ids) {
                    const scenario = group.scenarios.find((s) => s.id === id)
                    it(`${id}: ${scenario?.title}`, async () => {
                        expect(scenario, `scenario ${id}`).to.not.equal(undefined)
                        const { checks } = await scenario!.run({ faultMs: 10_000 })
                        expect(checks.filter((c) => !c.pass)).to.deep.equal([])
                        expect(checks.length, 'checks').to.be.at.least(group.minChecks)
                    })
                }
            })
        }
        more?.()
    })
}
