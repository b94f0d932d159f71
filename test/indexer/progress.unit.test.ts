import { expect } from 'chai'
import pino from 'pino'
import { Writable } from 'stream'
import { BackfillProgress } from '../../indexer/progress'

/** The backfill's progress line: blocks done of the head, pace, and when it catches up. */
describe('indexer: backfill progress (unit)', () => {
    function logged() {
        const lines: any[] = []
        const stream = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(chunk.toString())), done()) })
        return { log: pino({ level: 'info' }, stream), lines }
    }

    it('logs every interval with the pace since the last line and the time left at that pace', async () => {
        const { log, lines } = logged()
        let now = 0
        const progress = new BackfillProgress(log, async () => 100_000, 10, 10_000, () => now)
        await progress.committed(1_000)
        now = 5_000
        await progress.committed(6_000)
        expect(lines).to.have.length(0)
        now = 10_000
        await progress.committed(11_000)
        await new Promise((resolve) => setImmediate(resolve))
        expect(lines).to.have.length(1)
        expect(lines[0]).to.include({ indexed: 11_000, head: 100_000, behind: 89_000, blocksPerSecond: 1_000, etaSeconds: 89, percent: 11 })
        expect(lines[0].msg).to.equal('backfill 11000 of 100000 (89000 behind), 1000 blocks/s, caught up in 89 s')
    })

    it('is silent once within the following distance of the head, and says so when the node does not answer', async () => {
        const { log, lines } = logged()
        let now = 0
        let head: number | undefined = 5_005
        const progress = new BackfillProgress(log, async () => {
            if (head === undefined) throw new Error('node down')
            return head
        }, 10, 10_000, () => now)
        await progress.committed(4_000)
        now = 10_000
        await progress.committed(5_000)
        expect(lines).to.have.length(0)
        head = undefined
        now = 20_000
        await progress.committed(5_010)
        expect(lines.map((l) => [l.msg, l.indexed])).to.deep.equal([['backfill progress (the node did not say its head)', 5_010]])
    })
})
