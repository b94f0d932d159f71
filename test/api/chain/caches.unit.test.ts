import { expect } from 'chai'
import { PerHead } from '../../../api/chain/caches'

describe('chain API: caches owned by the chain context (unit)', () => {
    const head = { number: 7, get: async () => ({ number: head.number }) }

    it('PerHead: concurrent callers at one head share one read; a new head reads again', async () => {
        head.number = 7
        const cache = new PerHead<number>(head, 60_000)
        let reads = 0
        const read = async () => ++reads
        expect(await Promise.all(Array.from({ length: 5 }, () => cache.get(read)))).to.deep.equal([1, 1, 1, 1, 1])
        expect(await cache.get(read)).to.equal(1)
        head.number = 8
        expect(await cache.get(read)).to.equal(2)
        expect(await cache.get(read)).to.equal(2)
    })

    it('PerHead: at the same head, a value older than its TTL is read again (a reorg to the same height)', async () => {
        head.number = 7
        const cache = new PerHead<number>(head, 20)
        let reads = 0
        const read = async () => ++reads
        expect(await cache.get(read)).to.equal(1)
        await new Promise((resolve) => setTimeout(resolve, 30))
        expect(await cache.get(read)).to.equal(2)
    })

    it('PerHead: a failed read is not kept', async () => {
        head.number = 7
        const cache = new PerHead<number>(head, 60_000)
        const failed = await cache.get(async () => Promise.reject(new Error('cancelled'))).then(() => undefined, (e: Error) => e.message)
        expect(failed).to.equal('cancelled')
        expect(await cache.get(async () => 3)).to.equal(3)
    })
})
