import { expect } from 'chai'
import * as fs from 'fs'
import { Client } from 'pg'
import { Address, parseUnits } from 'viem'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, BridgeChains, BridgeProcess, bridgeEnv, createSwap, eventsOf, fundVaults, giveTokens, insertWaitingSwaps, send, startBridge,
    startBridgeChains, tempDir, waitForStatus, WATCHED,
} from './support'

describe('bridge: the monitor with 10,000 waiting swaps on one chain; pending swaps per client IP', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let dir: string
    let databaseUrl: string

    before(async function () {
        databaseUrl = await createTestDatabase('bridge_scale')
        w = await startBridgeChains()
        dir = tempDir()
        bridge = await startBridge({ ...bridgeEnv(w, databaseUrl, dir), BRIDGE_MAX_PENDING_PER_IP: '3' })
        await fundVaults(w, bridge)
    })

    after(async function () {
        await bridge?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const native = () => w.chains.NATIVECHAIN
    const body = (token: 'NATIVE' | 'STABLE') => ({
        source_chain: 'NATIVECHAIN', source_token: token, target_chain: 'ETHEREUM', target_token: 'USDT',
        source_token_amount: token === 'NATIVE' ? '0.5' : '30', target_wallet: account(9).address,
    })

    it('detects coin and token deposits among 10,000 watched addresses, and completes them', async function () {
        await insertWaitingSwaps(databaseUrl, WATCHED, await native().client.getBlockNumber())
        const coin = await createSwap(bridge, body('NATIVE'))
        const token = await createSwap(bridge, body('STABLE'))
        await giveTokens(native(), 'STABLE', account(7).address, parseUnits('30', 6))
        const coinHash = await send(native(), 5, coin.deposit_address as Address, parseUnits('0.5', 18))
        const tokenHash = await send(native(), 7, token.deposit_address as Address, parseUnits('30', 6), native().tokens.STABLE)
        const done = await Promise.all([coin, token].map((s) => waitForStatus(bridge, s.id, ['completed'], 100_000)))
        expect(done.map((d) => d.deposit_tx_hash)).to.deep.equal([coinHash, tokenHash])
        for (const d of done) {
            const receipt = await native().client.getTransactionReceipt({ hash: d.deposit_tx_hash })
            expect(d.deposit_block_number).to.equal(receipt.blockNumber.toString())
            expect((await eventsOf(bridge, d.id)).filter((e) => e.event === 'source_token_deposited')).to.have.length(1)
        }
        // The 10,000 still wait (nothing was deposited there), and the monitor's cursor is past both deposits.
        const db = new Client({ connectionString: databaseUrl })
        await db.connect()
        const { rows } = await db.query(`SELECT (SELECT count(*)::int FROM bridge_swap WHERE status = 'pending_deposit') AS waiting,
            (SELECT block FROM bridge_monitor_cursor WHERE chain = 'NATIVECHAIN') AS cursor`)
        await db.end()
        expect(rows[0].waiting).to.equal(WATCHED)
        expect(BigInt(rows[0].cursor) >= BigInt(done[1].deposit_block_number)).to.equal(true)
    })

    it('refuses a client IP more waiting swaps than BRIDGE_MAX_PENDING_PER_IP with 429, and counts only swaps still waiting', async function () {
        // The two swaps above are done; this client waits on none. Rows inserted directly have no IP and do not count.
        const first = await Promise.all([0, 1, 2].map(() => createSwap(bridge, body('NATIVE'))))
        const refused = await api(bridge, 'POST', '/api/swap', body('NATIVE'))
        expect(refused.status).to.equal(429)
        expect(refused.body.error.code).to.equal('too_many_pending_swaps')
        expect(refused.body.error.message).to.match(/already has 3 swaps waiting for a deposit/)
        // A deposit takes one out of waiting: the client may create one more.
        await send(native(), 5, first[0].deposit_address, parseUnits('0.5', 18))
        await waitForStatus(bridge, first[0].id, ['deposit_detected', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered', 'vault_locking', 'vault_locked', 'payout_processing', 'completed'], 60_000)
        expect((await api(bridge, 'POST', '/api/swap', body('NATIVE'))).status).to.equal(201)
        expect((await api(bridge, 'POST', '/api/swap', body('NATIVE'))).status).to.equal(429)
    })
})
