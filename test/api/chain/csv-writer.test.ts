import { expect } from 'chai'
import express from 'express'
import * as http from 'http'
import { AddressInfo } from 'net'
import { CsvOutcome, csvLine, keysetPages, streamCsv } from '../../../api/chain/csv/writer'
import { waitFor } from '../../../common/processes'

/**
 * The shared CSV writer (api/chain/csv/writer.ts) behind a real HTTP server and client: it reads a
 * page only once the client has taken the previous ones (backpressure), and stops reading when the
 * client goes away. The export routes' own behaviour: test/api/chain/csv-export.test.ts.
 */

const PAGE_BYTES = 256 * 1024
const PAGES = 400

/** A source of PAGES pages of one 256 KiB row each, counting what was read and whether the walk was ended. */
function countingSource() {
    const state = { read: 0, ended: false }
    async function* pages() {
        try {
            for (let i = 0; i < PAGES; i++) {
                state.read++
                yield [{ n: i, filler: 'x'.repeat(PAGE_BYTES) }]
            }
        } finally {
            state.ended = true
        }
    }
    return { state, pages: pages() }
}

describe('CSV writer: backpressure and a client that leaves', function () {
    this.timeout(60_000)
    let server: http.Server
    let port: number
    let source: ReturnType<typeof countingSource>
    let outcome: Promise<CsvOutcome>

    before(async () => {
        const app = express()
        app.get('/export', (_req, res) => {
            outcome = streamCsv(res, {
                columns: [{ header: 'N', value: (r) => r.n }, { header: 'Filler', value: (r) => r.filler }],
                pages: source.pages,
                maxRows: PAGES,
                fileName: 'test.csv',
            })
        })
        server = app.listen(0, '127.0.0.1')
        await new Promise((resolve) => server.once('listening', resolve))
        port = (server.address() as AddressInfo).port
    })

    after(() => new Promise((resolve) => server.close(resolve)))

    /** Waits until the source has read no further page for a while: what the writer reads without the client reading. */
    async function settledReads(): Promise<number> {
        let last = -1
        await waitFor('the writer to stop reading pages', async () => {
            const now = source.state.read
            const settled = now === last
            last = now
            return settled
        }, 10_000, 300)
        return source.state.read
    }

    it('reads the next page only when the client takes the previous ones; all of it arrives once the client reads', async () => {
        source = countingSource()
        const res = await new Promise<http.IncomingMessage>((resolve) => http.get({ port, host: '127.0.0.1', path: '/export' }, resolve))
        res.pause()
        expect(res.headers['content-type']).to.match(/^text\/csv/)
        const whilePaused = await settledReads()
        // 100 MiB in all; what the socket buffers hold while the client reads nothing is a few MiB.
        expect(whilePaused, 'pages read while the client reads nothing').to.be.below(PAGES / 4)
        let bytes = 0
        let lines = 0
        res.on('data', (chunk: Buffer) => {
            bytes += chunk.length
            for (const b of chunk) if (b === 10) lines++
        })
        res.resume()
        await new Promise((resolve) => res.once('end', resolve))
        expect(lines).to.equal(PAGES + 1)
        expect(bytes).to.be.greaterThan(PAGES * PAGE_BYTES)
        expect(await outcome).to.deep.equal({ rows: PAGES, aborted: false })
        expect(source.state.ended).to.equal(true)
    })

    it('stops reading pages, and ends the source, when the client goes away', async () => {
        source = countingSource()
        await new Promise<void>((resolve) => {
            const req = http.get({ port, host: '127.0.0.1', path: '/export' }, (res) => {
                res.once('data', () => {
                    req.destroy()
                    resolve()
                })
            })
            req.on('error', () => undefined)
        })
        const result = await outcome
        expect(result.aborted).to.equal(true)
        expect(source.state.ended, 'the source was ended').to.equal(true)
        expect(source.state.read, 'pages read before the client left').to.be.below(PAGES / 4)
        expect(await settledReads()).to.equal(source.state.read)
    })

    it('quotes fields as RFC 4180 does, and ends each record with CRLF', () => {
        expect(csvLine(['plain', 'a,b', 'say "hi"', 'two\r\nlines', null, undefined, 12, 10n ** 30n]))
            .to.equal('plain,"a,b","say ""hi""","two\r\nlines",,,12,1000000000000000000000000000000\r\n')
    })

    it('keysetPages ends at a short page, or at the first row past the period, without reading further', async () => {
        const reads: number[] = []
        const rows = Array.from({ length: 10 }, (_, i) => 100 - i)
        const walk = (past?: (n: number) => boolean) => keysetPages<number, number>({
            first: 101,
            read: async (below) => (reads.push(below), rows.filter((n) => n < below).slice(0, 4)),
            next: (last) => last,
            full: 4,
            past,
        })
        const all: number[][] = []
        for await (const page of walk()) all.push(page)
        expect(all).to.deep.equal([[100, 99, 98, 97], [96, 95, 94, 93], [92, 91]])
        reads.length = 0
        const some: number[][] = []
        for await (const page of walk((n) => n < 95)) some.push(page)
        expect(some).to.deep.equal([[100, 99, 98, 97], [96, 95]])
        expect(reads).to.deep.equal([101, 97])
    })
})
