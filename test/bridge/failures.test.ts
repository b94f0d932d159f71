import { expect } from 'chai'
import * as fs from 'fs'
import { Pool } from 'pg'
import { createWalletClient, http, parseUnits } from 'viem'
import { devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { waitFor } from '../../common/processes'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, balanceOf, BroadcastGate, BridgeChains, BridgeProcess, bridgeEnv, createSwap, DEFAULT_LEVELS, eventsOf, fundVaults, giveTokens, ledgerGuardHolds,
    send, startBridge, startBridgeChains, tempDir, transferAmounts, vaultOf, waitForStatus, WsClient,
} from './support'

/**
 * The paths that do not end in a payout: expiry, deposits the swap must not see, a target vault
 * without reserves or gas (failed, refunded), a deposit after the window, and a SIGKILL of the
 * bridge with a payout in flight (exactly one payout after the restart). Two bridge replicas share
 * the database: B has a 4-second deposit window for the expiry cases, and A's WebSocket must see
 * what B does.
 */
describe('bridge: expiry, failures, refunds and crash safety', function () {
    let w: BridgeChains
    let a: BridgeProcess
    let b: BridgeProcess
    let env: Record<string, string>
    let databaseUrl: string
    let pool: Pool
    let dir: string

    before(async function () {
        databaseUrl = await createTestDatabase('bridge_failures')
        w = await startBridgeChains()
        dir = tempDir()
        env = bridgeEnv(w, databaseUrl, dir)
        a = await startBridge(env)
        b = await startBridge({ ...env, BRIDGE_DEPOSIT_WINDOW_SECONDS: '4' })
        // The BSC WNATIVE vault gets 1 token only: a swap paying more must fail for lack of reserves.
        await fundVaults(w, a, { ...DEFAULT_LEVELS, tokens: { ...DEFAULT_LEVELS.tokens, BSC: { USDT: '1000000', WNATIVE: '1' } } })
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
    })

    after(async function () {
        await pool?.end()
        await Promise.allSettled([a?.stop(), b?.stop()])
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    it('expires a swap without a deposit, and every replica pushes every event', async function () {
        // A's socket follows the target address before B creates the swap: whatever A pushes, B wrote.
        const ws = await WsClient.connect(a.wsUrl)
        const target = account(12).address
        ws.send({ type: 'subscribe', address: target })
        await ws.next((m) => m.type === 'subscribed')
        const swap = await createSwap(b, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'USDT',
            source_token_amount: 0.1, target_wallet: target,
        })
        expect(await ws.next((m) => m.type === 'swap_update')).to.include({ swap_id: swap.id, event: 'deposit_wallet_created', status: 'pending_deposit' })
        const expired = await waitForStatus(a, swap.id, ['expired'])
        expect(expired.deposit_tx_hash).to.equal(null)
        expect(expired.payout_tx_hash).to.equal(null)
        expect((await eventsOf(a, swap.id)).map((e) => e.event)).to.deep.equal(['deposit_wallet_created', 'swap_expired'])
        expect(await ws.next((m) => m.type === 'swap_update' && m.event === 'swap_expired')).to.include({ swap_id: swap.id, status: 'expired' })
        ws.close()
    })

    it('does not see another token, or the right token on another chain, and treats a deposit after expiry as a late deposit', async function () {
        const user = account(3)
        const bsc = w.chains.BSC
        const eth = w.chains.ETHEREUM
        await giveTokens(bsc, 'WNATIVE', user.address, parseUnits('1', 18))
        await giveTokens(bsc, 'USDT', user.address, parseUnits('50', 18))
        await giveTokens(eth, 'USDT', user.address, parseUnits('50', 6))
        const swap = await createSwap(b, {
            source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
            source_token_amount: 20, target_wallet: account(4).address, refund_address: user.address,
        })
        // Same address, wrong asset: WNATIVE on BSC; USDT, but on ETHEREUM (EVM addresses are the same on every chain).
        await send(bsc, 3, swap.deposit_address, parseUnits('1', 18), bsc.tokens.WNATIVE)
        await send(eth, 3, swap.deposit_address, parseUnits('20', 6), eth.tokens.USDT)
        const expired = await waitForStatus(a, swap.id, ['expired'])
        expect(expired.deposit_tx_hash).to.equal(null)
        // The right deposit, after the window: not the swap's deposit, but a late one,
        // refunded once although two bridge processes watch; the wrong assets are still not seen.
        const late = await send(bsc, 3, swap.deposit_address, parseUnits('20', 18), bsc.tokens.USDT)
        const refunded = await waitFor('the late deposit refunded', async () => {
            const body = (await api(a, 'GET', `/api/swap/${swap.id}`)).body
            return body.late_deposits.some((l: any) => l.status === 'refunded') ? body : undefined
        }, 90_000, 250)
        expect(refunded.status).to.equal('expired')
        expect(refunded.deposit_tx_hash).to.equal(null)
        expect(refunded.late_deposits).to.have.length(1)
        expect(refunded.late_deposits[0]).to.include({ amount: '20', tx_hash: late, refund_amount: '20' })
        expect((await eventsOf(a, swap.id)).map((e) => e.event)).to.deep.equal(['deposit_wallet_created', 'swap_expired', 'late_deposit_detected', 'late_deposit_refunded'])
    })

    it('refuses at creation, and at a quote, a swap the target vault cannot pay', async function () {
        const pair = { source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'WNATIVE' }
        const refused = await api(a, 'POST', '/api/swap', { ...pair, source_token_amount: 2, target_wallet: account(6).address, refund_address: account(7).address })
        expect(refused.status).to.equal(400)
        expect(refused.body.error).to.include({ code: 'insufficient_reserves', field: 'source_token_amount' })
        // 2 NATIVE less the 2.5% fee is 1.95 WNATIVE, plus the 3% the rate may move: 2.0085.
        expect(refused.body.error.message).to.equal("source_token_amount: the bridge's WNATIVE vault on BSC can pay at most 1 WNATIVE right now, and this swap may pay up to 2.0085 WNATIVE; swap a smaller amount")
        const quoted = await api(a, 'GET', `/api/swap/quote?${new URLSearchParams({ ...pair, source_token_amount: '2' })}`)
        expect(quoted.status).to.equal(400)
        expect(quoted.body.error).to.deep.equal(refused.body.error)
        // Within what the vault holds: accepted.
        expect((await api(a, 'GET', `/api/swap/quote?${new URLSearchParams({ ...pair, source_token_amount: '0.5' })}`)).status).to.equal(200)
    })

    it('fails when the target vault lacks reserves at the rate lock, and refunds the deposit to refund_address', async function () {
        // Created for 0.5, which the vault (1 WNATIVE) can pay; 2 arrive, which it cannot.
        const swap = await createSwap(a, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'WNATIVE',
            source_token_amount: 0.5, target_wallet: account(6).address, refund_address: account(7).address,
        })
        const native = w.chains.NATIVECHAIN
        const before = await balanceOf(native, account(7).address)
        await send(native, 5, swap.deposit_address, parseUnits('2', 18))
        const failed = await waitForStatus(a, swap.id, ['failed'])
        expect(failed.error_message).to.equal('payout wallet lacked reserves on the target chain')
        expect(failed.payout_tx_hash).to.equal(null)
        const refunded = await waitForRefund(a, swap.id)
        expect(refunded.refund_status).to.equal('sent')
        expect(refunded.refund_amount).to.equal('2')
        // The native chain charges no gas: the whole deposit comes back.
        expect(await balanceOf(native, account(7).address) - before).to.equal(parseUnits('2', 18))
        const events = await eventsOf(a, swap.id)
        expect(events.map((e) => e.event)).to.deep.equal([
            'deposit_wallet_created', 'source_token_deposited', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
            'vault_locking', 'swap_failed', 'refund_sent',
        ])
        expect(events.at(-1).tx_hash).to.equal(refunded.refund_tx_hash)
        expect(events.find((e) => e.event === 'swap_failed').data.reason).to.equal('payout wallet lacked reserves on the target chain')
    })

    it('a deposit below the route minimum is not swapped but refunded', async function () {
        const native = w.chains.NATIVECHAIN
        const swap = await createSwap(a, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'USDT',
            source_token_amount: 0.1, target_wallet: account(6).address, refund_address: account(8).address,
        })
        const before = await balanceOf(native, account(8).address)
        await send(native, 5, swap.deposit_address, parseUnits('0.0001', 18))
        const failed = await waitForStatus(a, swap.id, ['failed'])
        expect(failed.error_message).to.equal("the deposit of 0.0001 NATIVE is outside the route's bounds (0.0005 to 50)")
        expect(failed.deposit_amount).to.equal('0.0001')
        expect(failed.rate).to.equal(null)
        const refunded = await waitForRefund(a, swap.id)
        expect(refunded.refund_amount).to.equal('0.0001')
        expect(await balanceOf(native, account(8).address) - before).to.equal(parseUnits('0.0001', 18))
    })

    it('without a refund_address a failed swap is not refunded', async function () {
        // Created for what the vault can pay; the 3 that arrive it cannot.
        const swap = await createSwap(a, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'WNATIVE',
            source_token_amount: 0.5, target_wallet: account(6).address,
        })
        await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('3', 18))
        const failed = await waitForStatus(a, swap.id, ['failed'])
        expect(failed.refund_status).to.equal('not_requested')
        expect(failed.refund_tx_hash).to.equal(null)
        expect((await eventsOf(a, swap.id)).at(-1).event).to.equal('swap_failed')
    })

    it('fails when the target vault lacks gas, and refunds the token deposit on its own chain', async function () {
        const eth = w.chains.ETHEREUM
        const bsc = w.chains.BSC
        const vault = await vaultOf(a, 'ETHEREUM')
        const saved = await eth.client.getBalance({ address: vault })
        await eth.client.request({ method: 'anvil_setBalance' as any, params: [vault, '0x0'] as any })
        try {
            const user = account(8)
            await giveTokens(bsc, 'USDT', user.address, parseUnits('40', 18))
            const swap = await createSwap(a, {
                source_chain: 'BSC', source_token: 'USDT', target_chain: 'ETHEREUM', target_token: 'USDT',
                source_token_amount: 40, target_wallet: account(6).address, refund_address: user.address,
            })
            await send(bsc, 8, swap.deposit_address, parseUnits('40', 18), bsc.tokens.USDT)
            const failed = await waitForStatus(a, swap.id, ['failed'])
            expect(failed.error_message).to.equal('payout wallet lacked gas on the target chain')
            const refunded = await waitForRefund(a, swap.id)
            expect(refunded.refund_status).to.equal('sent')
            expect(refunded.refund_amount).to.equal('40')
            expect(await balanceOf(bsc, user.address, bsc.tokens.USDT)).to.equal(parseUnits('40', 18))
        } finally {
            await eth.client.request({ method: 'anvil_setBalance' as any, params: [vault, `0x${saved.toString(16)}`] as any })
        }
    })

    it('SIGKILL with the payout in flight, the node losing it, a restart: exactly one payout', async function () {
        const polygon = w.chains.POLYGON
        const receiver = account(6).address
        const vault = await vaultOf(a, 'POLYGON')
        await giveTokens(w.chains.NATIVECHAIN, 'STABLE', account(5).address, parseUnits('10', 6))
        // POLYGON stops mining: the payout will sit in the node's pool.
        await polygon.client.request({ method: 'evm_setIntervalMining' as any, params: [0] as any })
        await polygon.client.request({ method: 'evm_setAutomine' as any, params: [false] as any })
        try {
            const before = await balanceOf(polygon, receiver, polygon.tokens.USDT)
            const swap = await createSwap(a, {
                source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'POLYGON', target_token: 'USDT',
                source_token_amount: 10, target_wallet: receiver, refund_address: account(5).address,
            })
            await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('10', 6), w.chains.NATIVECHAIN.tokens.STABLE)
            // B runs too; stop it so that the restarted A is the only replica left to finish the swap.
            await b.stop()
            const processing = await waitForStatus(a, swap.id, ['payout_processing'])
            a.process.kill('SIGKILL')
            await a.process.exited
            const payoutHash = processing.payout_tx_hash
            expect((await polygon.client.getTransaction({ hash: payoutHash })).blockNumber).to.equal(null)
            await polygon.client.request({ method: 'anvil_dropAllTransactions' as any, params: [] as any })
            await polygon.client.getTransaction({ hash: payoutHash }).then(
                () => expect.fail('the payout should be gone from the node'),
                () => undefined
            )

            a = await startBridge(env)
            // The restarted bridge rebroadcasts the stored bytes: the same transaction is back in the pool.
            await waitForPending(polygon, payoutHash)
            await polygon.client.request({ method: 'evm_setIntervalMining' as any, params: [1] as any })
            const done = await waitForStatus(a, swap.id, ['completed'])
            expect(done.payout_tx_hash).to.equal(payoutHash)
            const paid = parseUnits(done.target_token_amount, 6)
            expect(await balanceOf(polygon, receiver, polygon.tokens.USDT) - before).to.equal(paid)
            expect((await transferAmounts(polygon, polygon.tokens.USDT, vault, receiver)).filter((v) => v === paid)).to.have.length(1)
            const { rows } = await pool.query(`SELECT status FROM bridge_tx WHERE swap_id = $1 AND purpose = 'payout'`, [swap.id])
            expect(rows).to.deep.equal([{ status: 'confirmed' }])
        } finally {
            await polygon.client.request({ method: 'evm_setIntervalMining' as any, params: [1] as any }).catch(() => undefined)
            b = await startBridge({ ...env, BRIDGE_DEPOSIT_WINDOW_SECONDS: '4' })
        }
    })

    it('signed but never broadcast when the bridge dies: the restart sends those very bytes, once', async function () {
        const polygon = w.chains.POLYGON
        const gate = new BroadcastGate(polygon.url)
        await gate.start()
        const receiver = account(7).address
        await Promise.all([a.stop(), b.stop()])
        const gated = { ...env, POLYGON_RPC_URL: gate.url }
        let c = await startBridge(gated)
        try {
            await giveTokens(w.chains.NATIVECHAIN, 'STABLE', account(5).address, parseUnits('15', 6))
            const before = await balanceOf(polygon, receiver, polygon.tokens.USDT)
            const swap = await createSwap(c, {
                source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'POLYGON', target_token: 'USDT',
                source_token_amount: 15, target_wallet: receiver,
            })
            gate.blocked = true
            await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('15', 6), w.chains.NATIVECHAIN.tokens.STABLE)
            const processing = await waitForStatus(c, swap.id, ['payout_processing'])
            const hash = processing.payout_tx_hash
            await waitFor('the bridge to try broadcasting', async () => gate.refused.length > 0, 30_000, 100)
            const { rows: stored } = await pool.query(`SELECT status, tx_hash, raw FROM bridge_tx WHERE swap_id = $1 AND purpose = 'payout'`, [swap.id])
            expect(stored).to.have.length(1)
            // Marked 'broadcast' once the refused broadcast is recorded: without a clear answer it may have reached a node.
            expect(stored[0].tx_hash).to.equal(hash)
            expect(['signed', 'broadcast']).to.include(stored[0].status)
            expect(gate.refused.every((raw) => raw === stored[0].raw)).to.equal(true)
            await polygon.client.getTransaction({ hash }).then(() => expect.fail('never broadcast'), () => undefined)
            c.process.kill('SIGKILL')
            await c.process.exited

            gate.blocked = false
            c = await startBridge(gated)
            const done = await waitForStatus(c, swap.id, ['completed'])
            expect(done.payout_tx_hash).to.equal(hash)
            expect(await balanceOf(polygon, receiver, polygon.tokens.USDT) - before).to.equal(parseUnits(done.target_token_amount, 6))
            const { rows } = await pool.query(`SELECT status FROM bridge_tx WHERE swap_id = $1 AND purpose = 'payout'`, [swap.id])
            expect(rows).to.deep.equal([{ status: 'confirmed' }])
        } catch (err) {
            // The bridge's own account of what happened, for a failure that needs explaining.
            throw new Error(`${(err as Error).message}\nbridge output:\n${c.output().slice(-6000)}`, { cause: err })
        } finally {
            await c.stop()
            await gate.stop()
            a = await startBridge(env)
            b = await startBridge({ ...env, BRIDGE_DEPOSIT_WINDOW_SECONDS: '4' })
        }
    })

    it('forgets a deposit a reorg took away, and completes with the deposit sent again', async function () {
        const eth = w.chains.ETHEREUM
        const rpc = (method: string, params: unknown[] = []) => eth.client.request({ method: method as any, params: params as any })
        await rpc('evm_setIntervalMining', [0])
        await rpc('evm_setAutomine', [false])
        try {
            const swap = await createSwap(a, {
                source_chain: 'ETHEREUM', source_token: 'ETH', target_chain: 'NATIVECHAIN', target_token: 'STABLE',
                source_token_amount: 0.01, target_wallet: account(6).address, refund_address: account(4).address,
            })
            const wallet = createWalletClient({ account: account(4), chain: devnetChain(eth.chainId, eth.url), transport: http(eth.url) })
            const first = await wallet.sendTransaction({ to: swap.deposit_address, value: parseUnits('0.01', 18), ...ZERO_FEES })
            await rpc('evm_mine')
            const detected = await waitForStatus(a, swap.id, ['deposit_detected'])
            expect(detected.deposit_tx_hash).to.equal(first)
            // The block holding the deposit is replaced by an empty one; the node forgets the transaction.
            await rpc('anvil_reorg', [1, []])
            await rpc('anvil_dropAllTransactions')
            await eth.client.getTransactionReceipt({ hash: first }).then(() => expect.fail('the deposit should be gone'), () => undefined)
            // "Gone" is said only once the deposit's height is final and two looks agree: the chain goes on meanwhile.
            await rpc('evm_setIntervalMining', [1])
            const back = await waitForStatus(a, swap.id, ['pending_deposit'])
            expect(back.deposit_tx_hash).to.equal(null)
            const second = await send(eth, 4, swap.deposit_address, parseUnits('0.01', 18))
            const done = await waitForStatus(a, swap.id, ['completed'])
            expect(done.deposit_tx_hash).to.equal(second)
            expect((await eventsOf(a, swap.id)).map((e) => e.event)).to.deep.equal([
                'deposit_wallet_created', 'source_token_deposited', 'deposit_reorged', 'source_token_deposited', 'deposit_confirmed',
                'rate_locked', 'gathering', 'gathered', 'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent',
            ])
        } finally {
            await rpc('evm_setIntervalMining', [1]).catch(() => undefined)
        }
    })

    it('a deposit mined after the window closed is not swapped but refunded', async function () {
        const polygon = w.chains.POLYGON
        const user = account(4)
        const swap = await createSwap(a, {
            source_chain: 'POLYGON', source_token: 'POL', target_chain: 'NATIVECHAIN', target_token: 'STABLE',
            source_token_amount: 20, target_wallet: account(6).address, refund_address: user.address,
        })
        // The chain's clock jumps past the window before the deposit's block.
        const expiry = Math.floor(new Date(swap.expires_at).getTime() / 1000)
        await polygon.client.request({ method: 'evm_setNextBlockTimestamp' as any, params: [expiry + 60] as any })
        const before = await balanceOf(polygon, user.address)
        await send(polygon, 4, swap.deposit_address, parseUnits('20', 18))
        const failed = await waitForStatus(a, swap.id, ['failed'])
        expect(failed.error_message).to.equal('deposit arrived after the window closed')
        expect(failed.rate).to.equal(null)
        const refunded = await waitForRefund(a, swap.id)
        // The gather to the vault paid POLYGON gas; the vault paid the refund's.
        const refund = parseUnits(refunded.refund_amount, 18)
        expect(refund < parseUnits('20', 18)).to.equal(true)
        expect(refund > parseUnits('19.99', 18)).to.equal(true)
        // The user sent 20 POL (paying no fee on the local chain) and got the refund back.
        expect(await balanceOf(polygon, user.address) - before).to.equal(refund - parseUnits('20', 18))
    })

    // Last in the file: everything above is normal operation (one process, or several on one database).
    it('never trips the ledger guard: no vault held, no swap held for it', async function () {
        expect(await ledgerGuardHolds(pool)).to.deep.equal([])
    })
})

async function waitForRefund(bridge: BridgeProcess, id: string): Promise<any> {
    return waitFor(`refund of ${id}`, async () => {
        const { body } = await api(bridge, 'GET', `/api/swap/${id}`)
        return body.refund_status === 'sent' || body.refund_status === 'failed' ? body : undefined
    }, 120_000, 250)
}

async function waitForPending(chain: { client: any }, hash: `0x${string}`): Promise<void> {
    await waitFor(`${hash} back in the pool`, async () => chain.client.getTransaction({ hash }).then(() => true, () => false), 60_000, 200)
}
