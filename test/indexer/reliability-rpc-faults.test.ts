import { expect } from 'chai'
import { SCENARIOS } from '../../bench/reliability/scenarios'

/**
 * The fast subset of the reliability catalogue (docs/RELIABILITY.md): one run each, faults of 10 s
 * instead of 30 s. `npm run reliability` runs the whole catalogue three times.
 */

const FAST = ['rpc-rpc-error', 'rpc-stall']

describe('indexer reliability: RPC faults mid-sync', function () {
    this.timeout(300_000)

    for (const id of FAST) {
        const scenario = SCENARIOS.find((s) => s.id === id)!
        it(`${id}: ${scenario.title}`, async () => {
            const { checks } = await scenario.run({ faultMs: 10_000 })
            expect(checks.filter((c) => !c.pass)).to.deep.equal([])
            expect(checks.length, 'checks').to.be.greaterThan(3)
        })
    }
})
