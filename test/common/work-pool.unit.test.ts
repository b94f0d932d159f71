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

    it('tryRun admits at once, or answers queue_full without running the job when the pool and its queue are full', async function () {
        const pool = new WorkPool({ concurrency: 1, queue: 1 })
        const first = job()
        const second = job()
        const a = pool.tryRun(first.run)
        const b = pool.tryRun(second.run)
        expect(a).to.be.instanceOf(Promise)
        expect(b).to.be.instanceOf(Promise)
        expect(pool.load).to.deep.equal({ running: 1, waiting: 1 })
        let ran = false
        expect(pool.tryRun(async () => (ran = true))).to.equal('queue_full')
        expect(ran).to.equal(false)
        first.release()
        second.release()
        expect([await a, await b]).to.deep.equal(['hashed', 'hashed'])
        expect(pool.load).to.deep.equal({ running: 0, waiting: 0 })
        expect(await pool.tryRun(async () => 'again')).to.equal('again')
    })

    it('tryRun with a key caps that key\'s jobs, running and waiting, and says which limit refused', async function () {
        const pool = new WorkPool({ concurrency: 1, queue: 2, perKey: 2 })
        const first = job()
        const second = job()
        const third = job()
        const a = pool.tryRun(first.run, 'client')
        const b = pool.tryRun(second.run, 'client')
        let ran = false
        expect(pool.tryRun(async () => (ran = true), 'client')).to.equal('key_full')
        expect(ran).to.equal(false)
        // Another key has its own share, up to the pool's bound.
        const c = pool.tryRun(third.run, 'other')
        expect(c).to.be.instanceOf(Promise)
        expect(pool.tryRun(async () => (ran = true), 'another')).to.equal('queue_full')
        expect(pool.load).to.deep.equal({ running: 1, waiting: 2 })
        first.release()
        expect(await a).to.equal('hashed')
        // The finished job gave its key's place back.
        const fourth = job()
        const d = pool.tryRun(fourth.run, 'client')
        expect(d).to.be.instanceOf(Promise)
        expect(pool.tryRun(async () => (ran = true), 'client')).to.equal('key_full')
        second.release()
        third.release()
        fourth.release()
        expect([await b, await c, await d]).to.deep.equal(['hashed', 'hashed', 'hashed'])
        expect(await pool.tryRun(async () => 'again', 'client')).to.equal('again')
        expect(ran).to.equal(false)
        expect(pool.load).to.deep.equal({ running: 0, waiting: 0 })
    })

    it('frees a key\'s place when its job throws', async function () {
        const pool = new WorkPool({ concurrency: 1, queue: 0, perKey: 1 })
        const failed = pool.tryRun(async () => {
            throw new Error('compile failed')
        }, 'client')
        expect(await (failed as Promise<unknown>).catch((e) => e.message)).to.equal('compile failed')
        expect(await pool.tryRun(async () => 'again', 'client')).to.equal('again')
    })

    it('close refuses the jobs waiting and those asked for later; the running one finishes', async function () {
        const pool = new WorkPool({ concurrency: 1, queue: Infinity })
        const first = job()
        const waiting = job()
        const a = pool.run(first.run)
        const b = pool.run(waiting.run).catch((e) => e.message)
        pool.close(new Error('closed'))
        expect(await b).to.equal('closed')
        expect(waiting.started).to.equal(false)
        expect(await pool.run(async () => 'later').catch((e) => e.message)).to.equal('closed')
        first.release()
        expect(await a).to.equal('hashed')
        expect(pool.load).to.deep.equal({ running: 0, waiting: 0 })
    })
})
