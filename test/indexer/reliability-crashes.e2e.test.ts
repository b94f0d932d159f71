import { expect } from 'chai'
import { CRASH_SCENARIOS } from '../../bench/reliability/crash-scenarios'
import { HEAD_SCENARIOS } from '../../bench/reliability/head-scenarios'
import { NODE_LIMIT_SCENARIOS } from '../../bench/reliability/node-limit-scenarios'
import { describeReliability } from './reliability'

describeReliability([
    { title: 'crashes and awkward values', scenarios: CRASH_SCENARIOS, ids: ['postgres-restart-head', 'sigkill', 'data-fidelity'], minChecks: 3 },
    // A node without eth_getBlockReceipts, losing it, or limiting its batches: fall back, narrow, widen again.
    { title: 'a node that does less than asked', scenarios: NODE_LIMIT_SCENARIOS, ids: ['no-block-receipts', 'block-receipts-lost', 'batch-limit'], minChecks: 4 },
], () => {
    describe('a quiet head', () => {
        it('quiet-head: follows again after 20 s without a block, ready throughout', async () => {
            const scenario = HEAD_SCENARIOS.find((s) => s.id === 'quiet-head')!
            const { checks } = await scenario.run({ faultMs: 10_000, quietMs: 20_000 })
            // How soon it follows again is npm run reliability's measure; here only that it does.
            expect(checks.filter((c) => !c.pass && !c.timing)).to.deep.equal([])
            expect(checks.map((c) => c.name)).to.include.members([
                'the process survives',
                'readiness: 200 during the silence and after (a quiet chain is not behind)',
                'loses nothing, applies nothing twice',
            ])
        })
    })
})
