import { expect } from 'chai'
import { CoalescedRunner } from '../../common/coalesced-runner'

/** A pass that waits until the test lets it finish, counting how many started. */
function gatedPasses() {
    let started = 0
    const releases: (() => void)[] = []
    const pass = () => {
        started++
        return new Promise<void>((resolve) => releases.push(resolve))
    }
    const finishOne = async () => {
        releases.shift()!()
        // Lets the runner see the pass end and decide whether to start another.
        await new Promise((r) => setImmediate(r))
    }
    return { pass, finishOne, started: () => started, waiting: () => releases.length }
}

describe('CoalescedRunner', function () {
    it('runs one pass at a time, and exactly one more for any number of asks during a pass', async function () {
        const g = gatedPasses()
        const runner = new CoalescedRunner(g.pass)
        runner.run()
        for (let i = 0; i < 10; i++) runner.run()
        expect(g.started()).to.equal(1)
        await g.finishOne()
        expect(g.started()).to.equal(2)
        await g.finishOne()
        expect(g.started()).to.equal(2)
        expect(g.waiting()).to.equal(0)
        runner.run()
        expect(g.started()).to.equal(3)
        await g.finishOne()
    })

    it('once stopped starts nothing, not even the pass asked for during the last one, and stop waits for the pass in flight', async function () {
        const g = gatedPasses()
        const runner = new CoalescedRunner(g.pass)
        runner.run()
        runner.run()
        let stopped = false
        const stopping = runner.stop().then(() => (stopped = true))
        await new Promise((r) => setImmediate(r))
        expect(stopped).to.equal(false)
        await g.finishOne()
        await stopping
        expect(g.started()).to.equal(1)
        runner.run()
        expect(g.started()).to.equal(1)
    })
})
