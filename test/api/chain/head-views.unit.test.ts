import { expect } from 'chai'
import { Response } from 'express'
import { gunzipSync } from 'zlib'
import { HeadViews } from '../../../api/chain/head-views'

/** What a route sent through a stand-in for express's Response: the bytes, decoded when gzipped. */
function capture(acceptsGzip = true) {
    const sent: { text?: string; gzipped?: boolean } = {}
    const headers: Record<string, string> = {}
    const res = {
        req: { acceptsEncodings: (encoding: string) => (acceptsGzip && encoding === 'gzip' ? encoding : false) },
        type: () => res,
        set: (name: string, value: string) => ((headers[name] = value), res),
        send: (body: Buffer | string) => {
            sent.gzipped = headers['Content-Encoding'] === 'gzip'
            sent.text = sent.gzipped ? gunzipSync(body as Buffer).toString() : body.toString()
            return res
        },
    }
    return { res: res as unknown as Response, sent }
}

describe('chain API: views made once per indexed head (unit)', () => {
    const head = { number: 7, get: async () => ({ number: head.number }) }

    it('concurrent requests at one head share one answer; a new head makes it again', async () => {
        const views = new HeadViews(head, 60_000, 16)
        let made = 0
        const make = async () => Buffer.from(JSON.stringify({ head: head.number, made: ++made, pad: 'x'.repeat(5000) }))
        const requests = Array.from({ length: 20 }, () => capture())
        await Promise.all(requests.map((r) => views.send(r.res, 'blocks', make)))
        expect(made).to.equal(1)
        expect(requests.every((r) => r.sent.gzipped && JSON.parse(r.sent.text!).made === 1)).to.equal(true)
        // A client that does not take gzip gets the same answer as it is.
        const plain = capture(false)
        await views.send(plain.res, 'blocks', make)
        expect([plain.sent.gzipped, JSON.parse(plain.sent.text!).made]).to.deep.equal([false, 1])
        head.number = 8
        const after = capture()
        await views.send(after.res, 'blocks', make)
        expect(JSON.parse(after.sent.text!)).to.include({ head: 8, made: 2 })
    })

    it('views are kept apart by name, and with no time to live every request makes its own', async () => {
        const views = new HeadViews(head, 60_000, 16)
        const a = capture()
        const b = capture()
        await views.send(a.res, 'blocks', async () => Buffer.from('["blocks"]'))
        await views.send(b.res, 'transactions', async () => Buffer.from('["transactions"]'))
        expect([a.sent.text, b.sent.text]).to.deep.equal(['["blocks"]', '["transactions"]'])

        const off = new HeadViews(head, 0, 16)
        let made = 0
        for (let i = 0; i < 3; i++) await off.send(capture().res, 'blocks', async () => Buffer.from(`[${++made}]`))
        expect(made).to.equal(3)
    })

    it('keeps at most maxViews, dropping the one asked least recently; 0 keeps none', async () => {
        const views = new HeadViews(head, 60_000, 2)
        const made: string[] = []
        const ask = (name: string) => views.send(capture().res, name, async () => (made.push(name), Buffer.from(`["${name}"]`)))
        await ask('a')
        await ask('b')
        await ask('a')
        // c drops b, asked less recently than a.
        await ask('c')
        await ask('a')
        await ask('b')
        expect(made).to.deep.equal(['a', 'b', 'c', 'b'])

        const none = new HeadViews(head, 60_000, 0)
        let count = 0
        for (let i = 0; i < 3; i++) await none.send(capture().res, 'blocks', async () => Buffer.from(`[${++count}]`))
        expect(count).to.equal(3)
    })

    it('a failed make fails its requests and is not kept', async () => {
        const views = new HeadViews(head, 60_000, 16)
        const failing = views.send(capture().res, 'blocks', async () => {
            throw new Error('statement timeout')
        })
        await failing.then(() => expect.fail('should fail'), (err) => expect(err.message).to.equal('statement timeout'))
        const next = capture()
        await views.send(next.res, 'blocks', async () => Buffer.from('["ok"]'))
        expect(next.sent.text).to.equal('["ok"]')
    })
})
