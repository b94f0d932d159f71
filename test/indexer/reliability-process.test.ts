import { expect } from 'chai'
import { SCENARIOS } from '../../bench/reliability/scenarios'

/** The fast subset of the reliability catalogue (docs/RELIABILITY.md) about the process itself: one run each. */

describe('indexer reliability: the process', function () {
    this.timeout(300_000)

    for (const id of ['sigterm']) {
        const scenario = SCENARIOS.find((s) => s.id === id)!
        it(`${id}: ${scenario.title}`, async () => {
            const { checks } = await scenario.run({ faultMs: 10_000 })
            expect(checks.filter((c) => !c.pass)).to.deep.equal([])
            expect(checks.length, 'checks').to.be.at.least(3)
        })
    }
})
