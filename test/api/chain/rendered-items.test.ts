import { expect } from 'chai'
import { getContractAddress } from 'viem'
import { arrayBody, listBody, rendered, RenderedItem, RenderedItems } from '../../../api/chain/rendered-items'
import { ApiProcess, startApi } from '../../support/api'
import { UNVERIFIED_INIT_CODE } from '../../support/stack'
import { expectStatus, stack, v2 } from './helpers'

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

describe('chain API: rendered list items against a live chain', function () {
    this.timeout(300_000)
    let uncached: ApiProcess | undefined

    before(async function () {
        const s = await stack()
        uncached = await startApi({ databaseUrl: s.databaseUrl, rpcUrl: s.chain.url, contracts: s.contracts, env: { CHAIN_API_ITEM_CACHE_MB: '0' } })
    })

    after(async function () {
        await uncached?.stop()
    })

    it('every list answers byte for byte what an api without the cache answers, the first time and when reused', async function () {
        const s = await stack()
        const first = await v2('/transactions')
        const blocks = await v2('/blocks')
        const bigBlock = await v2(`/blocks/${s.extras.bigBlock.number}/transactions`)
        const holders = await v2(`/tokens/${s.tokens.STABLE}/holders`)
        const miner = (blocks.body.items[0].miner.hash as string).toLowerCase()
        const paths = [
            '/transactions',
            `/transactions?${new URLSearchParams(first.body.next_page_params)}`,
            '/blocks',
            `/blocks?${new URLSearchParams(blocks.body.next_page_params)}`,
            `/blocks/${s.extras.bigBlock.number}/transactions`,
            `/blocks/${s.extras.bigBlock.number}/transactions?${new URLSearchParams(bigBlock.body.next_page_params)}`,
            `/addresses/${s.account(0).address}/transactions`,
            `/addresses/${s.account(0).address}/transactions?sort=value&order=asc`,
            `/addresses/${s.account(2).address}/transactions?filter=to`,
            `/addresses/${miner}/blocks-validated`,
            `/tokens/${s.tokens.STABLE}/holders`,
            `/tokens/${s.tokens.STABLE}/holders?${new URLSearchParams(holders.body.next_page_params)}`,
            '/main-page/transactions',
            '/main-page/blocks',
        ]
        for (const path of paths) {
            const [fresh, reused, reference] = [await v2(path), await v2(path), await fetch(`${uncached!.explorerUrl}/api/v2${path}`)]
            expectStatus(fresh, 200, path)
            expect(reference.status, path).to.equal(200)
            const referenceText = await reference.text()
            expect(JSON.parse(referenceText).items ?? JSON.parse(referenceText), path).to.not.be.empty
            expect(fresh.text, `${path}, first answer`).to.equal(referenceText)
            expect(reused.text, `${path}, answered again`).to.equal(referenceText)
        }
    })

    it('an item rendered before an address became a contract is rendered again once the head moves: to.is_contract, contract_call', async function () {
        const s = await stack()
        // A contract's address is known before its creation (sender, nonce): pay it first, deploy after.
        const deployer = s.account(37)
        const future = getContractAddress({ from: deployer.address, nonce: BigInt(await s.client.getTransactionCount({ address: deployer.address })) })
        const payment = await s.send(s.account(1), { to: future, value: 1n })
        const transfer = async () => {
            const res = expectStatus(await v2(`/addresses/${future}/transactions`), 200, 'the future contract\'s transactions')
            return res.body.items.find((t: { hash: string }) => t.hash === payment.transactionHash)
        }
        // The api learns of a new head by NOTIFY, or within half a second by reading it.
        const eventually = async (done: (item: any) => boolean) => {
            let item = await transfer()
            for (const deadline = Date.now() + 10_000; !done(item) && Date.now() < deadline;) {
                await new Promise((resolve) => setTimeout(resolve, 100))
                item = await transfer()
            }
            return item
        }
        const before = await eventually((t) => t.confirmations === 1)
        expect(before.confirmations, 'the payment is in the head block').to.equal(1)
        expect(before.to.is_contract).to.equal(false)
        expect(before.transaction_types).to.deep.equal(['coin_transfer'])
        expect((await transfer()).to.is_contract, 'answered again at the same head').to.equal(false)

        const creation = await s.send(deployer, { data: UNVERIFIED_INIT_CODE })
        expect(creation.contractAddress?.toLowerCase()).to.equal(future.toLowerCase())
        const after = await eventually((t) => t.confirmations === 2)
        expect(after.confirmations, 'the creation is the next block').to.equal(2)
        expect(after.to.is_contract).to.equal(true)
        expect(after.transaction_types).to.deep.equal(['coin_transfer', 'contract_call'])
    })
})
