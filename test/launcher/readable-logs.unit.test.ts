import { expect } from 'chai'
import { PassThrough } from 'stream'
import { readableLine, readableLogs, relayReadable } from '../../launcher/readable-logs'

/** 03:04:05.006 on this machine's clock, as an ISO time (the readable line shows local time). */
const TIME = new Date(2026, 0, 2, 3, 4, 5, 6).toISOString()

describe('npm start: readable log lines', () => {
    it('prints time, level, service/component, message, then the fields', () => {
        const line = JSON.stringify({
            level: 30, time: TIME, pid: 4242, service: 'indexer', component: 'sqd:processor', rpcUrl: 'http://127.0.0.1:8545',
            blocks: 12, note: 'two words', empty: '', nested: { a: [1, 2] }, password: '[redacted]', msg: '3 blocks/sec',
        })
        expect(readableLine(line)).to.equal(
            '03:04:05.006 INFO  indexer/sqd:processor 3 blocks/sec  rpcUrl=http://127.0.0.1:8545 blocks=12 note="two words" empty="" nested={"a":[1,2]} password=[redacted]',
        )
    })

    it('names a service once when its logger is its own, and shows every level by name', () => {
        const line = (level: number) => JSON.stringify({ level, time: TIME, pid: 1, service: 'api', component: 'api', msg: 'listening' })
        expect([10, 20, 30, 40, 50, 60].map((level) => readableLine(line(level)).slice(13, 19))).to.deep.equal(['TRACE ', 'DEBUG ', 'INFO  ', 'WARN  ', 'ERROR ', 'FATAL '])
        expect(readableLine(line(30))).to.equal('03:04:05.006 INFO  api listening')
    })

    it('prints an error\'s stack indented below its line, and what else it carries as fields', () => {
        const line = JSON.stringify({
            level: 50, time: TIME, pid: 1, service: 'bridge', component: 'monitor',
            err: { type: 'Error', message: 'connect ECONNREFUSED', stack: 'Error: connect ECONNREFUSED\n    at connect (net.js:1:1)', code: 'ECONNREFUSED' },
            msg: 'cycle failed',
        })
        expect(readableLine(line).split('\n')).to.deep.equal([
            '03:04:05.006 ERROR bridge/monitor cycle failed  err.code=ECONNREFUSED',
            '    Error: connect ECONNREFUSED',
            '        at connect (net.js:1:1)',
        ])
    })

    it('leaves a line that is not one of ours as it is', () => {
        for (const line of ['(node:12) Warning: something', '{"not":"a log line"}', '[1,2]', 'null', '']) expect(readableLine(line)).to.equal(line)
    })

    it('colours the level and the source on a terminal', () => {
        const line = JSON.stringify({ level: 40, time: TIME, pid: 1, service: 'api', component: 'prices', stale: true, msg: 'old price' })
        expect(readableLine(line, true)).to.equal('03:04:05.006 \x1b[1;33mWARN \x1b[0m \x1b[1;34mapi/prices\x1b[0m old price  \x1b[2mstale=true\x1b[0m')
    })

    it('is readable on a terminal and JSON elsewhere, unless LOG_FORMAT says', () => {
        expect(readableLogs(undefined, { isTTY: true })).to.equal(true)
        expect(readableLogs(undefined, {})).to.equal(false)
        expect(readableLogs('json', { isTTY: true })).to.equal(false)
        expect(readableLogs('pretty', { isTTY: false })).to.equal(true)
    })

    it('relays a child\'s output line by line, a line split across chunks included', async () => {
        const from = new PassThrough()
        const to = new PassThrough()
        let written = ''
        to.on('data', (chunk) => (written += String(chunk)))
        relayReadable(from, to, false)
        const json = JSON.stringify({ level: 30, time: TIME, pid: 1, service: 'platform', component: 'platform', msg: 'up' })
        from.write(`${json.slice(0, 10)}`)
        from.write(`${json.slice(10)}\nplain text\n`)
        from.end()
        await new Promise((resolve) => from.on('end', resolve))
        await new Promise((resolve) => setImmediate(resolve))
        expect(written).to.equal('03:04:05.006 INFO  platform up\nplain text\n')
    })
})
