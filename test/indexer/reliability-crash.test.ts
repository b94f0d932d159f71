import { expect } from 'chai'
import { CRASH_SCENARIOS } from '../../bench/reliability/crash-scenarios'

/**
 * The fast subset of the reliability catalogue's crash-recovery and data-fidelity scenarios
 * (docs/RELIABILITY.md), one run each; `npm run reliability` runs them three times, with the
 * Postgres restart during a backfill too.
 */

const FAST = ['postgres-restart-head', 'sigkill', 'data-fidelity']

describe('indexer reliability: crashes and awkward values', function () {
    this.timeout(300_000)

    for (const id of FAST) {
        const scenario = CRASH_SCENARIOS.find((s) => s.id === id)!
        it(`${id}: ${scenario.title}`, async () => {
            const { checks } = await scenario.run({ faultMs: 10_000 })
            expect(checks.filter((c) => !c.pass)).to.deep.equal([])
            expect(checks.length, 'checks').to.be.at.least(3)
        })
    }
})
