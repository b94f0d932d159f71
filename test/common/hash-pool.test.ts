import { expect } from 'chai'
import { HashPool, HashPoolBusyError } from '../../common/hash-pool'
import { HttpError } from '../../common/service/http-error'

/** A job that finishes when the test says so. */
function gate() {
    let open!: () => void
    const opened = new Promise<void>((resolve) => (open = resolve))
    return { open, job: () => opened }
}

describe('HashPool', function () {
    it('runs `concurrency` jobs, queues `queue` more in order, and refuses the next with a 503 busy', async function () {
        const pool = new HashPool({ concurrency: 1, queue: 1 })
        const order: string[] = []
        const first = gate()
        const running = pool.run(async () => { await first.job(); order.push('first') })
        const queued = pool.run(async () => { order.push('second') })
        const refused = await pool.run(async () => 'ran').catch((err) => err)
        expect(refused).to.be.instanceOf(HashPoolBusyError).and.instanceOf(HttpError)
        expect(refused).to.include({ status: 503, code: 'busy' })
        expect(refused.headers).to.deep.equal({ 'Retry-After': '1' })

        first.open()
        await Promise.all([running, queued])
        expect(order).to.deep.equal(['first', 'second'])
        // Every slot is free again, also after a job that throws.
        await pool.run(async () => { throw new Error('boom') }).catch(() => undefined)
        expect(await Promise.all([pool.run(async () => 1), pool.run(async () => 2)])).to.deep.equal([1, 2])
        expect(await pool.run(async () => 3).catch((err) => err)).to.equal(3)
    })
})
