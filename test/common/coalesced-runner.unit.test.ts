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

    it('deferred: the first pass waits a turn of the event loop, so the asks of one turn make one pass; stopped meanwhile, none', async function () {
        const g = gatedPasses()
        const runner = new CoalescedRunner(g.pass, { deferred: true })
        for (let i = 0; i < 5; i++) runner.run()
        expect(g.started()).to.equal(0)
        await new Promise((r) => setImmediate(r))
        expect(g.started()).to.equal(1)
        await g.finishOne()
        expect(g.started()).to.equal(1)
        expect(g.waiting()).to.equal(0)

        const stopping = new CoalescedRunner(g.pass, { deferred: true })
        stopping.run()
        await stopping.stop()
        expect(g.started()).to.equal(1)
    })

    it('rerunDue tells a pass that another follows it, and cancelRerun drops the asks made during it', async function () {
        const seen: boolean[] = []
        let passes = 0
        let release!: () => void
        const runner: CoalescedRunner = new CoalescedRunner(async () => {
            await new Promise<void>((resolve) => (release = resolve))
            seen.push(runner.rerunDue)
            if (++passes === 2) runner.cancelRerun()
        })
        runner.run()
        expect(runner.rerunDue).to.equal(false)
        runner.run()
        expect(runner.rerunDue).to.equal(true)
        release()
        await new Promise((r) => setImmediate(r))
        // The second pass, asked for again during it, drops that ask.
        runner.run()
        release()
        await new Promise((r) => setImmediate(r))
        expect(seen).to.deep.equal([true, true])
        expect(passes).to.equal(2)
        await runner.stop()
        expect(runner.rerunDue).to.equal(false)
    })

    it('idle resolves once no pass runs or is due, the one asked for meanwhile included', async function () {
        const g = gatedPasses()
        const runner = new CoalescedRunner(g.pass)
        await runner.idle()
        runner.run()
        runner.run()
        let idle = false
        const waiting = runner.idle().then(() => (idle = true))
        await g.finishOne()
        expect(g.started()).to.equal(2)
        expect(idle).to.equal(false)
        await g.finishOne()
        await waiting
        expect(idle).to.equal(true)
        expect(g.waiting()).to.equal(0)
    })
})
