import { expect } from 'chai'
import pino from 'pino'
import { PassThrough, Writable } from 'stream'
import { indexerHeights } from '../../launcher/indexing-progress'
import { ProgressLine } from '../../launcher/progress-line'

/** A logger whose lines land in an array, and a terminal (or not) whose writes do too. */
function capture(isTTY: boolean) {
    const logged: string[] = []
    const log = pino({ base: undefined }, new Writable({ write(chunk, _enc, done) { logged.push(JSON.parse(String(chunk)).msg); done() } }))
    const written: string[] = []
    const out = Object.assign(new PassThrough(), { isTTY })
    out.on('data', (chunk) => written.push(String(chunk)))
    let now = 0
    return { logged, written, log, out, clock: { now: () => now, advance: (ms: number) => { now += ms } } }
}

const flush = () => new Promise((resolve) => setImmediate(resolve))

describe('npm start: progress lines', () => {
    it('on a terminal, rewrites one line in place (at most 10 times a second) and clears it at the end', async () => {
        const c = capture(true)
        const line = new ProgressLine('seeding', c.log, { out: c.out, now: c.clock.now })
        c.clock.advance(1000)
        line.update(12, 720, 'day 1 of 30')
        line.update(13, 720, 'day 1 of 30') // within 100 ms: not drawn
        c.clock.advance(150)
        line.update(360, 720, 'day 15 of 30')
        line.done()
        await flush()
        expect(c.written).to.deep.equal([
            '\r\x1b[2Kseeding: [........................] 1% (day 1 of 30)',
            '\r\x1b[2Kseeding: [############............] 50% (day 15 of 30)',
            '\r\x1b[2K',
        ])
        expect(c.logged).to.deep.equal([])
    })

    it('elsewhere, logs a line at most every few seconds and the outcome, and writes nothing raw', async () => {
        const c = capture(false)
        const line = new ProgressLine('indexing', c.log, { out: c.out, now: c.clock.now, logEveryMs: 5000 })
        c.clock.advance(10_000)
        line.update(100, 1000, 'block 100 of 1000')
        c.clock.advance(1000)
        line.update(200, 1000, 'block 200 of 1000')
        c.clock.advance(5000)
        line.update(900, 1000, 'block 900 of 1000')
        line.done('caught up')
        await flush()
        expect(c.logged).to.deep.equal(['indexing: 10% (block 100 of 1000)', 'indexing: 90% (block 900 of 1000)', 'indexing: caught up'])
        expect(c.written).to.deep.equal([])
    })

    it('stays off the terminal when asked, even on one', async () => {
        const c = capture(true)
        const line = new ProgressLine('indexing', c.log, { out: c.out, now: c.clock.now, inPlace: false })
        c.clock.advance(10_000)
        line.update(1, 2, 'block 1 of 2')
        await flush()
        expect(c.written).to.deep.equal([])
        expect(c.logged).to.deep.equal(['indexing: 50% (block 1 of 2)'])
    })

    it("reads the indexer's heights from its Prometheus text, labelled or not, and nothing from a text without both", () => {
        const text = [
            '# HELP indexer_head_height The node\'s head block',
            '# TYPE indexer_head_height gauge',
            'indexer_head_height{service="indexer"} 1030',
            'indexer_indexed_height_other 5',
            'indexer_indexed_height{service="indexer"} 612',
        ].join('\n')
        expect(indexerHeights(text)).to.deep.equal({ indexed: 612, head: 1030 })
        expect(indexerHeights('indexer_head_height 9\nindexer_indexed_height 8\n')).to.deep.equal({ indexed: 8, head: 9 })
        expect(indexerHeights('indexer_head_height 9\n')).to.equal(undefined)
    })
})
