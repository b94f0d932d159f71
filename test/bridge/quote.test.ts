import { expect } from 'chai'
import * as fs from 'fs'
import { Pool } from 'pg'
import { parseUnits } from 'viem'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, balanceOf, BridgeChains, BridgeProcess, bridgeEnv, createSwap, fundVaults, send, startBridge, startBridgeChains, tempDir, waitForStatus,
} from './support'

/**
 * GET /api/swap/quote against the real bridge: what a swap would pay, with its fees and bounds,
 * refused as creation refuses, and reserving nothing (no swap, no deposit address, no pending
 * count). The vault-capacity refusal is in failures.test.ts, whose vault is kept short.
 */
describe('bridge: quotes', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let dir: string
    let db: Pool

    const nativeToUsdt = { source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'ETHEREUM', target_token: 'USDT' }
    const polToStable = { source_chain: 'POLYGON', source_token: 'POL', target_chain: 'NATIVECHAIN', target_token: 'STABLE' }
    const quote = (params: Record<string, string>) => api(bridge, 'GET', `/api/swap/quote?${new URLSearchParams(params)}`)

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_quote')
        db = new Pool({ connectionString: databaseUrl, max: 2 })
        w = await startBridgeChains()
        dir = tempDir()
        bridge = await startBridge({ ...bridgeEnv(w, databaseUrl, dir), BRIDGE_QUOTE_LIMIT: '5000' })
        await fundVaults(w, bridge)
    })

    after(async function () {
        await bridge?.stop()
        await w?.stop()
        await db?.end()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    it('states the estimate, the rate, each fee and the bounds of a pool route and of a reference-priced route', async function () {
        const pooled = await quote({ ...nativeToUsdt, source_token_amount: '1' })
        expect(pooled.status, JSON.stringify(pooled.body)).to.equal(200)
        expect(pooled.headers.get('cache-control')).to.equal('no-store')
        const q = pooled.body
        expect(q).to.include({ ...nativeToUsdt, source_token_amount: '1', fee_percent: '2.50', max_amount: '50' })
        expect(q.fees.bridge).to.deep.equal({ percent: '2.50', amount: '0.025', token: 'NATIVE' })
        // One pool leg (NATIVE's dollar price is BSC's WNATIVE/USDT pool), its 0.2% taken on the 0.975 NATIVE it trades.
        expect(q.fees.pools).to.have.length(1)
        expect(q.fees.pools[0]).to.include({ pool: 'bsc-wnative-usdt', chain: 'BSC', percent: '0.20', amount: '0.00195' })
        expect(q.fees.provider).to.equal(null)
        expect(q.fees.network).to.include({ deducted: false })
        expect(q.fees.network.payout).to.include({ chain: 'ETHEREUM', token: 'ETH' })
        const estimate = parseUnits(q.estimated_target_amount, 6)
        expect(estimate > 0n).to.equal(true)
        expect(parseUnits(q.min_target_amount, 6)).to.equal((estimate * 9_700n) / 10_000n)
        expect(parseUnits(q.max_target_amount, 6)).to.equal((estimate * 10_300n) / 10_000n)
        expect(q.route.kind).to.be.oneOf(['pool', 'multi_hop'])

        const referenced = (await quote({ ...polToStable, source_token_amount: '100' })).body
        // 100 POL less 2.5% at 0.25 USD: 24.375 STABLE, no pool.
        expect(referenced).to.include({ estimated_target_amount: '24.375', rate: '0.25', min_amount: '5', max_amount: '400000' })
        expect(referenced.fees.pools).to.deep.equal([])
    })

    it('refuses what creation refuses, with the same codes and fields', async function () {
        const cases: [Record<string, string>, number, string, string | undefined][] = [
            [{ ...nativeToUsdt, source_token_amount: '100' }, 400, 'amount_out_of_range', 'source_token_amount'],
            [{ ...nativeToUsdt, source_token_amount: 'abc' }, 400, 'invalid_request', 'source_token_amount'],
            [{ ...nativeToUsdt, target_chain: 'MARS', source_token_amount: '1' }, 400, 'invalid_request', 'target_chain'],
            [{ ...nativeToUsdt, target_chain: 'NATIVECHAIN', target_token: 'NATIVE', source_token_amount: '1' }, 400, 'no_route', undefined],
        ]
        for (const [params, status, code, field] of cases) {
            const res = await quote(params)
            expect(res.status, JSON.stringify(params)).to.equal(status)
            expect(res.body.error.code).to.equal(code)
            if (field) expect(res.body.error.field).to.equal(field)
        }
        const { source_token_amount: _left, ...missing } = { ...nativeToUsdt, source_token_amount: '1' }
        expect((await quote(missing)).body.error).to.include({ code: 'invalid_request', field: 'source_token_amount' })
        expect((await quote({ ...nativeToUsdt, source_token_amount: '1', extra: 'x' })).status).to.equal(400)
    })

    it('reserves nothing: 1,000 quotes leave the swaps, the deposit index and the pending count as they were', async function () {
        const counts = async () => (await db.query(
            `SELECT (SELECT count(*) FROM bridge_swap)::int AS swaps,
                    (SELECT count(*) FROM bridge_swap WHERE status = 'pending_deposit')::int AS pending,
                    (SELECT last_value FROM bridge_deposit_index_seq)::text AS deposit_index`)).rows[0]
        const before = await counts()
        for (let batch = 0; batch < 50; batch++) {
            const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => quote({ ...polToStable, source_token_amount: String(10 + batch * 20 + i) })))
            expect(answers.map((a) => a.status)).to.deep.equal(Array(20).fill(200))
        }
        expect(await counts()).to.deep.equal(before)
    })

    it('a swap created at once for the quoted amount carries the quote, and is paid within the quoted minimum', async function () {
        const q = (await quote({ ...nativeToUsdt, source_token_amount: '0.5' })).body
        const receiver = account(21).address
        const swap = await createSwap(bridge, { ...nativeToUsdt, source_token_amount: '0.5', target_wallet: receiver, refund_address: account(5).address })
        expect(swap.estimated_target_amount).to.equal(q.estimated_target_amount)
        expect(swap.min_target_amount).to.equal(q.min_target_amount)
        const usdt = w.chains.ETHEREUM.tokens.USDT
        const before = await balanceOf(w.chains.ETHEREUM, receiver, usdt)
        await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('0.5', 18))
        const done = await waitForStatus(bridge, swap.id, ['completed'])
        const paid = parseUnits(done.target_token_amount, 6)
        expect(paid >= parseUnits(q.min_target_amount, 6)).to.equal(true)
        expect(paid <= parseUnits(q.max_target_amount, 6)).to.equal(true)
        expect(await balanceOf(w.chains.ETHEREUM, receiver, usdt) - before).to.equal(paid)
    })
})
