import { expect } from 'chai'
import { SCENARIOS } from '../../bench/reliability/scenarios'

/**
 * The fast subset of the reliability catalogue (docs/RELIABILITY.md): the node faults that used to
 * end the process, and a stalled node (the request timeout), one run each, faults of 10 s instead of 30 s. `npm run reliability` runs the
 * whole catalogue three times.
 */

const FAST = ['rpc-rpc-error', 'rpc-stall', 'receipt-logs-twice']

describe('indexer reliability: node faults', function () {
    this.timeout(300_000)

    for (const id of FAST) {
        const scenario = SCENARIOS.find((s) => s.id === id)!
        it(`${id}: ${scenario.title}`, async () => {
            const { checks } = await scenario.run({ faultMs: 10_000 })
            expect(checks.filter((c) => !c.pass)).to.deep.equal([])
            expect(checks.length, 'checks').to.be.at.least(2)
        })
    }
})
