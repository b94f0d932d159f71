import { expect } from 'chai'
import { arrayBody, keptItem, listBody, rendered, RenderedItem, RenderedItems } from '../../../api/chain/rendered-items'
import { RenderingChanges } from '../../../api/chain/queries/rendering-changes'

/** A render function that records what it was asked for and renders `{"key": <key>}`. */
function recordingRender(calls: string[][]) {
    return async (missing: string[]) => {
        calls.push(missing)
        return new Map(missing.map((key) => [key, keptItem({ key })]))
    }
}

const text = (items: RenderedItem[]) => items.map((item) => item.toString())
const same = (key: string) => key

/**
 * What the commits changed, as a test sets it: `states` for the next move, `replaced` for a
 * reorganisation (queries/rendering-changes.ts reads both from Postgres).
 */
function changesAs(next: { states?: [string, string][]; replaced?: boolean } = {}) {
    return async (_since: unknown, head: number): Promise<RenderingChanges> => {
        const changes = { head: { number: head, hash: `h${head}`, checkedAt: new Date() }, replaced: next.replaced ?? false, states: new Map(next.states ?? []) }
        next.states = []
        next.replaced = false
        return changes
    }
}

/** An indexed head that a test moves by hand. */
function headAt(number: number) {
    const head = { number, get: async () => ({ number: head.number }) }
    return head
}

describe('chain API: rendered list items (unit)', function () {
    it('renders only the items it does not hold, once, and answers in the order asked', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024, changesAs())
        const calls: string[][] = []
        expect(text(await cache.items(['a', 'b'], same, recordingRender(calls)))).to.deep.equal(['{"key":"a"}', '{"key":"b"}'])
        expect(text(await cache.items(['c', 'b', 'a'], same, recordingRender(calls)))).to.deep.equal(['{"key":"c"}', '{"key":"b"}', '{"key":"a"}'])
        expect(calls).to.deep.equal([['a', 'b'], ['c']])
        await cache.items(['a', 'b', 'c'], same, recordingRender(calls))
        expect(calls).to.have.length(2)
    })

    it('requests at one head share a render in progress instead of each doing it again', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024, changesAs())
        let finish!: () => void
        const first: string[][] = []
        const slow = cache.items(['a', 'b'], same, async (missing) => {
            first.push(missing)
            await new Promise<void>((resolve) => (finish = resolve))
            return new Map(missing.map((key) => [key, keptItem({ key })]))
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
        const cache = new RenderedItems(head, 1024, changesAs())
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

    it('keeps items across heads, renders again those showing an address the commits changed, and everything after a reorganisation', async function () {
        const head = headAt(7)
        const next: { states?: [string, string][]; replaced?: boolean } = {}
        const cache = new RenderedItems(head, 1024, changesAs(next))
        const calls: string[][] = []
        // a shows address x as not a contract, b shows y; c shows x in the state the change brings.
        const render = async (missing: string[]) => {
            calls.push(missing)
            const shown: Record<string, [string, string][]> = { a: [['x', 'plain']], b: [['y', 'plain']], c: [['x', 'contract']] }
            return new Map(missing.map((key) => [key, keptItem({ key }, shown[key])]))
        }
        await cache.items(['a', 'b', 'c'], same, render)
        head.number = 8
        await cache.items(['a', 'b', 'c'], same, render)
        expect(calls, 'nothing changed: all kept').to.deep.equal([['a', 'b', 'c']])
        next.states = [['x', 'contract'], ['z', 'contract']]
        head.number = 9
        await cache.items(['a', 'b', 'c'], same, render)
        expect(calls, 'x became a contract: only a, which showed it otherwise').to.deep.equal([['a', 'b', 'c'], ['a']])
        next.replaced = true
        head.number = 10
        await cache.items(['a', 'b', 'c'], same, render)
        expect(calls, 'a reorganisation: everything').to.deep.equal([['a', 'b', 'c'], ['a'], ['a', 'b', 'c']])
    })

    it('writes a transaction item\'s confirmations at the head it is served at', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024, changesAs())
        const calls: string[][] = []
        const render = async (missing: string[], at: number) => {
            calls.push(missing)
            return new Map(missing.map((key) => [key, keptItem({ hash: key, name: '"confirmations":1', confirmations: at - 5 + 1, value: '1' }, [], 5)]))
        }
        expect(text(await cache.items(['t'], same, render))).to.deep.equal(['{"hash":"t","name":"\\"confirmations\\":1","confirmations":3,"value":"1"}'])
        head.number = 1_000
        expect(text(await cache.items(['t'], same, render))).to.deep.equal(['{"hash":"t","name":"\\"confirmations\\":1","confirmations":996,"value":"1"}'])
        expect(calls).to.have.length(1)
    })

    it('leaves out an item whose row vanished between the keyset query and the render, and keeps the others', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024, changesAs())
        const calls: string[][] = []
        const items = await cache.items(['a', 'gone', 'b'], same, async (missing) => {
            calls.push(missing)
            return new Map(missing.filter((k) => k !== 'gone').map((key) => [key, keptItem({ key })]))
        })
        expect(text(items)).to.deep.equal(['{"key":"a"}', '{"key":"b"}'])
        await cache.items(['a', 'b'], same, recordingRender(calls))
        expect(calls).to.have.length(1)
    })

    it('drops the oldest items beyond its byte budget, and with a budget of 0 keeps nothing', async function () {
        // Each item is 11 bytes: {"key":"a"}
        const head = headAt(7)
        const cache = new RenderedItems(head, 22, changesAs())
        const calls: string[][] = []
        await cache.items(['a', 'b', 'c'], same, recordingRender(calls))
        await cache.items(['b', 'c'], same, recordingRender(calls))
        expect(calls).to.deep.equal([['a', 'b', 'c']])
        await cache.items(['a'], same, recordingRender(calls))
        expect(calls).to.deep.equal([['a', 'b', 'c'], ['a']])

        const none = new RenderedItems(head, 0, changesAs())
        const uncached: string[][] = []
        await none.items(['a'], same, recordingRender(uncached))
        await none.items(['a'], same, recordingRender(uncached))
        expect(uncached).to.deep.equal([['a'], ['a']])
    })

    it('does not keep a render that finished after the head moved', async function () {
        const head = headAt(7)
        const cache = new RenderedItems(head, 1024, changesAs())
        // The cache reads its first head's changes before anything renders at it.
        await cache.items([], same, recordingRender([]))
        let finish!: () => void
        const slow = cache.items(['a'], same, async (missing) => {
            await new Promise<void>((resolve) => (finish = resolve))
            return new Map(missing.map((key) => [key, keptItem({ key, head: 7 })]))
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
