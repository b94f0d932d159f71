import { expect } from 'chai'
import * as fs from 'fs'
import { createTestDatabase } from '../support/postgres'
import { account, api, BridgeChains, BridgeProcess, bridgeEnv, createSwap, fundVaults, startBridge, startBridgeChains, tempDir } from './support'

/** GET /api/swaps: a target wallet's or a refund address's swaps, newest first, keyset-paginated (docs/bridge/lifecycle.md). */
describe('bridge: listing swaps by target wallet or refund address', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let dir: string
    const target = account(5).address
    const refund = account(6).address
    const otherTarget = account(7).address
    const otherRefund = account(8).address
    const mine: string[] = []
    const others: string[] = []

    const body = (targetWallet: string, refundAddress: string) => ({
        source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
        source_token_amount: 10, target_wallet: targetWallet, refund_address: refundAddress,
    })

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_history')
        w = await startBridgeChains()
        dir = tempDir()
        bridge = await startBridge(bridgeEnv(w, databaseUrl, dir))
        await fundVaults(w, bridge)
        for (let i = 0; i < 7; i++) {
            mine.push((await createSwap(bridge, body(target, refund))).id)
            if (i % 3 === 0) others.push((await createSwap(bridge, body(otherTarget, otherRefund))).id)
        }
    })

    after(async function () {
        await bridge?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const list = (query: Record<string, string>) => api(bridge, 'GET', `/api/swaps?${new URLSearchParams(query)}`)

    /** Every page of a listing with `limit`, calling `between` after the first page. */
    async function pages(query: Record<string, string>, between?: () => Promise<void>): Promise<{ ids: string[]; count: number }> {
        const ids: string[] = []
        let cursor: string | null = null
        let count = 0
        do {
            const res = await list(cursor ? { ...query, cursor } : query)
            expect(res.status, JSON.stringify(res.body)).to.equal(200)
            expect(res.headers.get('cache-control')).to.equal('no-store')
            expect(res.headers.get('ratelimit-limit')).to.match(/^\d+$/)
            ids.push(...res.body.swaps.map((s: any) => s.id))
            cursor = res.body.next_cursor
            if (count++ === 0 && between) await between()
        } while (cursor)
        return { ids, count }
    }

    it('pages a target wallet\'s swaps newest first, every one once, while another swap is created between two reads', async function () {
        let added = ''
        const { ids, count } = await pages({ target_wallet: target, limit: '3' }, async () => {
            added = (await createSwap(bridge, body(target, refund))).id
        })
        expect(count).to.equal(3)
        expect(ids).to.deep.equal([...mine].reverse())
        mine.push(added)
        // A fresh listing starts with it; items are the detail view of GET /api/swap/:id.
        const first = await list({ target_wallet: target, limit: '2' })
        expect(first.body.swaps.map((s: any) => s.id)).to.deep.equal([added, mine[mine.length - 2]])
        const detail = await api(bridge, 'GET', `/api/swap/${added}`)
        const { late_deposits: _late, ...view } = detail.body
        expect(first.body.swaps[0]).to.deep.equal(view)
        expect(first.body.next_cursor).to.be.a('string')
    })

    it('matches the address as creation stored it: lowercase finds the checksummed form; chain narrows', async function () {
        const { ids } = await pages({ target_wallet: target.toLowerCase(), limit: '100' })
        expect(ids).to.deep.equal([...mine].reverse())
        expect((await pages({ target_wallet: target, chain: 'NATIVECHAIN' })).ids).to.have.length(mine.length)
        expect((await list({ target_wallet: target, chain: 'BSC' })).body).to.deep.equal({ swaps: [], next_cursor: null })
        const other = await list({ target_wallet: otherTarget })
        expect(other.body.swaps.map((s: any) => s.id)).to.deep.equal([...others].reverse())
        expect(other.body.next_cursor).to.equal(null)
        expect((await list({ target_wallet: account(9).address })).body).to.deep.equal({ swaps: [], next_cursor: null })
    })

    it('pages a refund address\'s swaps the same way', async function () {
        const { ids, count } = await pages({ refund_address: refund, limit: '3' })
        expect(count).to.equal(3)
        expect(ids).to.deep.equal([...mine].reverse())
        const { ids: otherIds } = await pages({ refund_address: otherRefund.toLowerCase(), chain: 'BSC', limit: '1' })
        expect(otherIds).to.deep.equal([...others].reverse())
    })

    it('refuses what it cannot answer with a 400 naming the parameter', async function () {
        const cases: [Record<string, string>, string][] = [
            [{}, 'target_wallet'],
            [{ target_wallet: target, refund_address: refund }, 'refund_address'],
            [{ target_wallet: 'nope' }, 'target_wallet'],
            [{ target_wallet: target.toLowerCase().replace(/[a-f]/, (c) => c.toUpperCase()) }, 'target_wallet'],
            [{ target_wallet: target, chain: 'MARS' }, 'chain'],
            [{ target_wallet: target, limit: '0' }, 'limit'],
            [{ target_wallet: target, limit: '101' }, 'limit'],
            [{ target_wallet: target, limit: 'ten' }, 'limit'],
            [{ target_wallet: target, cursor: 'not-a-cursor' }, 'cursor'],
            [{ target_wallet: target, cursor: Buffer.from('12:zz').toString('base64url') }, 'cursor'],
            [{ target_wallet: target, page: '2' }, 'page'],
        ]
        for (const [query, field] of cases) {
            const res = await list(query)
            expect(res.status, JSON.stringify(query)).to.equal(400)
            expect(res.body.error.code).to.equal('invalid_request')
            expect(res.body.error.field, JSON.stringify(query)).to.equal(field)
        }
        const twice = await api(bridge, 'GET', `/api/swaps?target_wallet=${target}&target_wallet=${target}`)
        expect(twice.status).to.equal(400)
    })
})
