import { expect } from 'chai'
import { ChainCaches, PerHead } from '../../../api/chain/caches'
import { Db } from '../../../api/chain/db'

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

    it('the coin supply is summed once for both APIs, whichever pool asks first, until the head moves', async () => {
        head.number = 7
        // The rendered items' changes are not read here.
        const caches = new ChainCaches(head, 1024, { query: async () => expect.fail('not read here') } as never)
        const statements: string[] = []
        // The indexed head is read afresh from the asking pool; only the sums are counted.
        const pool = (name: string, total: string): Db => ({
            query: async (text: string) => /chain_counters/.test(text)
                ? { rows: [{ last_block: head.number }] } as never
                : (statements.push(`${name}: ${text}`), { rows: [{ total }] } as never),
        })
        const v2 = pool('v2', '100')
        const etherscan = pool('etherscan', '200')
        expect(await caches.coinSupply(v2)).to.equal('100')
        expect(await caches.coinSupply(etherscan)).to.equal('100')
        expect(statements).to.have.length(1)
        expect(statements[0]).to.match(/^v2: SELECT .*sum\(balance\)/i)
        head.number = 8
        expect(await caches.coinSupply(etherscan)).to.equal('200')
        expect(statements).to.have.length(2)
    })
})
