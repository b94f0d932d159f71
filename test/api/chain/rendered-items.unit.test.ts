import { expect } from 'chai'
import { arrayBody, listBody, rendered, RenderedItem, RenderedItems } from '../../../api/chain/rendered-items'

/** A render function that records what it was asked for and renders `{"key": <key>}`. */
function recordingRender(calls: string[][]) {
    return async (missing: string[]) => {
        calls.push(missing)
        return new Map(missing.map((key) => [key, rendered({ key })]))
    }
}

const text = (items: RenderedItem[]) => items.map((item) => item.toString())
const same = (key: string) => key

/** An indexed head that a test moves by hand. */
function headAt(number: number) {
    const head = { number, get: async () => ({ number: head.number }) }
    return head
}

describe('chain API: rendered list items (unit)', function () {
    it('renders only the items it does not hold, once, and answers in the order asked', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024)
        const calls: string[][] = []
        expect(text(await cache.items(['a', 'b'], same, recordingRender(calls)))).to.deep.equal(['{"key":"a"}', '{"key":"b"}'])
        expect(text(await cache.items(['c', 'b', 'a'], same, recordingRender(calls)))).to.deep.equal(['{"key":"c"}', '{"key":"b"}', '{"key":"a"}'])
        expect(calls).to.deep.equal([['a', 'b'], ['c']])
        await cache.items(['a', 'b', 'c'], same, recordingRender(calls))
        expect(calls).to.have.length(2)
    })

    it('requests at one head share a render in progress instead of each doing it again', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024)
        let finish!: () => void
        const first: string[][] = []
        const slow = cache.items(['a', 'b'], same, async (missing) => {
            first.push(missing)
            await new Promise<void>((resolve) => (finish = resolve))
            return new Map(missing.map((key) => [key, rendered({ key })]))
        })
        await new Promise((resolve) => setImmediate(resolve))
        const calls: string[][] = []
        const second = cache.items(['c', 'a'], same, recordingRender(calls))
        await new Promise((resolve) => setImmediate(resolve))
        finish()
        expect(text(await second)).to.deep.equal(['{"key":"c"}', '{"key":"a"}'])
        expect(text(await slow)).to.deep.equal(['{"key":"a"}', '{"key":"b"}'])
        expect(first).to.deep.equal([['a', 'b']])
        expect(calls).to.deep.equal([['c']])
    })

    it('a render that fails fails its own request; a request that shared it renders the item itself', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024)
        let fail!: () => void
        const failing = cache.items(['a'], same, async () => {
            await new Promise<void>((resolve) => (fail = resolve))
            throw new Error('statement timeout')
        })
        await new Promise((resolve) => setImmediate(resolve))
        const calls: string[][] = []
        const sharing = cache.items(['a', 'b'], same, recordingRender(calls))
        await new Promise((resolve) => setImmediate(resolve))
        fail()
        await failing.then(() => expect.fail('the failed render should fail its request'), (err) => expect(err.message).to.equal('statement timeout'))
        expect(text(await sharing)).to.deep.equal(['{"key":"a"}', '{"key":"b"}'])
        expect(calls).to.deep.equal([['b'], ['a']])
    })

    it('renders everything again once the head has moved', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024)
        const calls: string[][] = []
        await cache.items(['a', 'b'], same, recordingRender(calls))
        head.number = 8
        await cache.items(['a', 'b'], same, recordingRender(calls))
        expect(calls).to.deep.equal([['a', 'b'], ['a', 'b']])
    })

    it('leaves out an item whose row vanished between the keyset query and the render, and keeps the others', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024)
        const calls: string[][] = []
        const items = await cache.items(['a', 'gone', 'b'], same, async (missing) => {
            calls.push(missing)
            return new Map(missing.filter((k) => k !== 'gone').map((key) => [key, rendered({ key })]))
        })
        expect(text(items)).to.deep.equal(['{"key":"a"}', '{"key":"b"}'])
        await cache.items(['a', 'b'], same, recordingRender(calls))
        expect(calls).to.have.length(1)
    })

    it('drops the oldest items beyond its byte budget, and with a budget of 0 keeps nothing', async function () {
        // Each item is 11 bytes: {"key":"a"}
        const head = headAt(7)
        const cache = new RenderedItems(head, 22)
        const calls: string[][] = []
        await cache.items(['a', 'b', 'c'], same, recordingRender(calls))
        await cache.items(['b', 'c'], same, recordingRender(calls))
        expect(calls).to.deep.equal([['a', 'b', 'c']])
        await cache.items(['a'], same, recordingRender(calls))
        expect(calls).to.deep.equal([['a', 'b', 'c'], ['a']])

        const none = new RenderedItems(head, 0)
        const uncached: string[][] = []
        await none.items(['a'], same, recordingRender(uncached))
        await none.items(['a'], same, recordingRender(uncached))
        expect(uncached).to.deep.equal([['a'], ['a']])
    })

    it('does not keep a render that finished after the head moved', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024)
        let finish!: () => void
        const slow = cache.items(['a'], same, async (missing) => {
            await new Promise<void>((resolve) => (finish = resolve))
            return new Map(missing.map((key) => [key, rendered({ key, head: 7 })]))
        })
        const calls: string[][] = []
        head.number = 8
        await cache.items(['b'], same, recordingRender(calls))
        finish()
        expect(text(await slow)).to.deep.equal(['{"key":"a","head":7}'])
        expect(text(await cache.items(['a'], same, recordingRender(calls)))).to.deep.equal(['{"key":"a"}'])
        expect(calls).to.deep.equal([['b'], ['a']])
    })

    it('joins rendered items into a Blockscout list and into a bare array', function () {
        const items = [rendered({ n: 1, s: 'x"y' }), rendered({ n: 2, s: null })]
        const next = { block_number: 5, index: 0, items_count: 50 }
        expect(JSON.parse(listBody(items, next).toString())).to.deep.equal({ items: [{ n: 1, s: 'x"y' }, { n: 2, s: null }], next_page_params: next })
        expect(JSON.parse(listBody([], null).toString())).to.deep.equal({ items: [], next_page_params: null })
        expect(JSON.parse(arrayBody(items).toString())).to.deep.equal([{ n: 1, s: 'x"y' }, { n: 2, s: null }])
        expect(JSON.parse(arrayBody([]).toString())).to.deep.equal([])
    })
})
