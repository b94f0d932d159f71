import { expect } from 'chai'
import { REORG_SCENARIOS } from '../../bench/reliability/reorg-scenarios'

/**
 * The reorganisations of the reliability catalogue (docs/RELIABILITY.md), one run each;
 * `npm run reliability` runs them three times.
 */

const REORGS = ['reorg-values', 'reorg-removes', 'reorg-deep', 'reorg-while-down', 'reorg-while-down-deep', 'reorg-thrice', 'reorg-backfill', 'reorg-hash-vanishes']

describe('indexer reliability: reorganisations', function () {
    this.timeout(300_000)

    for (const id of REORGS) {
        const scenario = REORG_SCENARIOS.find((s) => s.id === id)!
        it(`${id}: ${scenario.title}`, async () => {
            const { checks } = await scenario.run({ faultMs: 10_000 })
            expect(checks.filter((c) => !c.pass)).to.deep.equal([])
            expect(checks.length, 'checks').to.be.at.least(3)
        })
    }
})
