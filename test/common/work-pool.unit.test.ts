import { expect } from 'chai'
import { WorkPool, WorkPoolBusyError } from '../../common/work-pool'

/** A job that runs until its release() is called. */
function job(): { run: () => Promise<string>; release: () => void; started: boolean } {
    let release!: () => void
    const done = new Promise<void>((resolve) => (release = resolve))
    const j = {
        started: false,
        release: () => release(),
        run: async () => {
            j.started = true
            await done
            return 'hashed'
        },
    }
    return j
}

describe('WorkPool', function () {
    it('runs `concurrency` at once, queues `queue` more, and refuses the next at once with a 503', async function () {
        const pool = new WorkPool({ concurrency: 1, queue: 1 })
        const first = job()
        const second = job()
        const a = pool.run(first.run)
        const b = pool.run(second.run)
        expect(first.started).to.equal(true)
        expect(second.started).to.equal(false)
        expect(pool.load).to.deep.equal({ running: 1, waiting: 1 })

        let ran = false
        const refused = await pool.run(async () => (ran = true)).catch((e) => e)
        expect(refused).to.be.instanceOf(WorkPoolBusyError)
        expect(refused.status).to.equal(503)
        expect(refused.code).to.equal('busy')
        expect(refused.headers).to.deep.equal({ 'Retry-After': '1' })
        expect(ran).to.equal(false)

        first.release()
        expect(await a).to.equal('hashed')
        expect(second.started).to.equal(true)
        second.release()
        expect(await b).to.equal('hashed')
        expect(pool.load).to.deep.equal({ running: 0, waiting: 0 })
    })

    it('frees the slot when a run throws', async function () {
        const pool = new WorkPool({ concurrency: 1, queue: 0 })
        await pool.run(async () => {
            throw new Error('argon2 failed')
        }).catch(() => undefined)
        expect(await pool.run(async () => 'again')).to.equal('again')
        expect(pool.load).to.deep.equal({ running: 0, waiting: 0 })
    })

    it('tryRun admits at once, or answers undefined without running the job when the pool and its queue are full', async function () {
        const pool = new WorkPool({ concurrency: 1, queue: 1 })
        const first = job()
        const second = job()
        const a = pool.tryRun(first.run)
        const b = pool.tryRun(second.run)
        expect(a).to.be.instanceOf(Promise)
        expect(b).to.be.instanceOf(Promise)
        expect(pool.load).to.deep.equal({ running: 1, waiting: 1 })
        let ran = false
        expect(pool.tryRun(async () => (ran = true))).to.equal(undefined)
        expect(ran).to.equal(false)
        first.release()
        second.release()
        expect([await a, await b]).to.deep.equal(['hashed', 'hashed'])
        expect(pool.load).to.deep.equal({ running: 0, waiting: 0 })
        expect(await pool.tryRun(async () => 'again')).to.equal('again')
    })
})
