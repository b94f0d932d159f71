import { expect } from 'chai'
import * as fs from 'fs'
import { Pool } from 'pg'
import { createWalletClient, erc20Abi, formatUnits, http, parseAbi, parseEventLogs, parseUnits } from 'viem'
import { wNativeAbi } from '../../abi'
import { waitFor } from '../../common/processes'
import { devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, balanceOf, BroadcastGate, BridgeChains, BridgeProcess, bridgeEnv, createSwap, eventsOf, fundVaults, giveTokens, ledgerGuardHolds,
    startBridge, startBridgeChains, send, tempDir, transferAmounts, vaultOf, waitForStatus,
} from './support'

const ROUTER_ABI = parseAbi([
    'function swapExactTokensForETH(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline) returns (uint[] amounts)',
])

/**
 * How the bridge settles: a payout is done only when final on the target chain (and a payout a
 * reorg took away lands again from its stored bytes); a coin deposit that a contract made is
 * credited; a refund the vault cannot pay is retried with backoff, lands once, or after its
 * bounded attempts is left to an operator.
 */
describe('bridge: final payouts, contract-made deposits, refund retries', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let pool: Pool
    let dir: string
    /** The native chain's RPC as the bridge sees it: can hide the tracing methods. */
    let nativeNode: BroadcastGate

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_settlement')
        w = await startBridgeChains()
        nativeNode = new BroadcastGate(w.chains.NATIVECHAIN.url)
        await nativeNode.start()
        dir = tempDir()
        bridge = await startBridge({
            ...bridgeEnv(w, databaseUrl, dir), RPC_URL: nativeNode.url, BRIDGE_REFUND_RETRY_SECONDS: '2', BRIDGE_REFUND_MAX_ATTEMPTS: '4',
        })
        await fundVaults(w, bridge)
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
    })

    after(async function () {
        await pool?.end()
        await bridge?.stop()
        await nativeNode?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    async function txRows(swapId: string, purpose: string): Promise<{ status: string; tx_hash: string; block_number: string | null }[]> {
        const { rows } = await pool.query(`SELECT status, tx_hash, block_number FROM bridge_tx WHERE swap_id = $1 AND purpose = $2 ORDER BY attempt`, [swapId, purpose])
        return rows
    }

    async function detail(id: string): Promise<any> {
        return (await api(bridge, 'GET', `/api/swap/${id}`)).body
    }

    it('a payout mined but not final keeps the swap in payout_processing; reorged out, its stored bytes land again, once', async function () {
        const polygon = w.chains.POLYGON
        const rpc = (method: string, params: unknown[] = []) => polygon.client.request({ method: method as any, params: params as any })
        const receiver = account(6).address
        const vault = await vaultOf(bridge, 'POLYGON')
        await giveTokens(w.chains.NATIVECHAIN, 'STABLE', account(5).address, parseUnits('12', 6))
        // POLYGON mines only when told: the payout waits in the node's pool.
        await rpc('evm_setIntervalMining', [0])
        await rpc('evm_setAutomine', [false])
        try {
            const before = await balanceOf(polygon, receiver, polygon.tokens.USDT)
            const swap = await createSwap(bridge, {
                source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'POLYGON', target_token: 'USDT',
                source_token_amount: 12, target_wallet: receiver,
            })
            await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('12', 6), w.chains.NATIVECHAIN.tokens.STABLE)
            const processing = await waitForStatus(bridge, swap.id, ['payout_processing'])
            const hash = processing.payout_tx_hash

            // Mined: POLYGON's finalized tag is two blocks behind, so the payout is not final yet.
            await rpc('evm_mine')
            const minedIn = (await polygon.client.getTransactionReceipt({ hash })).blockNumber
            await waitFor('the bridge to see the payout mined', async () => (await txRows(swap.id, 'payout'))[0]?.status === 'confirmed', 30_000, 100)
            // Several engine passes (300 ms apart) look at it mined and not final.
            await new Promise((r) => setTimeout(r, 2_000))
            expect((await detail(swap.id)).status).to.equal('payout_processing')
            expect((await polygon.client.getBlock({ blockTag: 'finalized' })).number < minedIn).to.equal(true)

            // A reorg replaces the payout's block with an empty one, and the node forgets the transaction.
            await rpc('anvil_reorg', [1, []])
            await rpc('anvil_dropAllTransactions')
            await polygon.client.getTransactionReceipt({ hash }).then(() => expect.fail('the payout should be gone'), () => undefined)
            // The bridge rebroadcasts the very bytes it stored.
            await waitFor('the payout back in the pool', async () => polygon.client.getTransaction({ hash }).then(() => true, () => false), 60_000, 200)
            expect(await txRows(swap.id, 'payout')).to.deep.equal([{ status: 'broadcast', tx_hash: hash, block_number: null }])
            expect((await detail(swap.id)).status).to.equal('payout_processing')

            await rpc('evm_setIntervalMining', [1])
            const done = await waitForStatus(bridge, swap.id, ['completed'])
            expect(done.payout_tx_hash).to.equal(hash)
            const paid = parseUnits(done.target_token_amount, 6)
            expect(await balanceOf(polygon, receiver, polygon.tokens.USDT) - before).to.equal(paid)
            expect((await transferAmounts(polygon, polygon.tokens.USDT, vault, receiver)).filter((v) => v === paid)).to.have.length(1)
            const rows = await txRows(swap.id, 'payout')
            expect(rows.map((r) => [r.status, r.tx_hash])).to.deep.equal([['confirmed', hash]])
            // Counted when final: its block at or below the finalized tag, so at least three deep.
            const sent = (await eventsOf(bridge, swap.id)).find((e) => e.event === 'target_token_sent')
            expect(sent.data.block_number).to.equal(rows[0].block_number)
            expect(sent.data.confirmations).to.be.at.least(3)
        } finally {
            await rpc('evm_setIntervalMining', [1]).catch(() => undefined)
        }
    })

    /**
     * The user sells STABLE on our AMM with the deposit address as the recipient: the router unwraps
     * WNATIVE and sends the coin from inside the transaction (no transaction goes to the address).
     */
    async function depositThroughRouter(userIndex: number, depositAddress: `0x${string}`) {
        const native = w.chains.NATIVECHAIN
        const user = account(userIndex)
        await giveTokens(native, 'STABLE', user.address, parseUnits('10', 6))
        const wallet = createWalletClient({ account: user, chain: devnetChain(native.chainId, native.url), transport: http(native.url) })
        const approve = await wallet.writeContract({ address: native.tokens.STABLE, abi: erc20Abi, functionName: 'approve', args: [w.native.router, parseUnits('10', 6)], ...ZERO_FEES })
        await native.client.waitForTransactionReceipt({ hash: approve, pollingInterval: 100 })
        const hash = await wallet.writeContract({
            address: w.native.router, abi: ROUTER_ABI, functionName: 'swapExactTokensForETH',
            args: [parseUnits('10', 6), 0n, [native.tokens.STABLE, w.native.wnative], depositAddress, 2n ** 40n], ...ZERO_FEES,
        })
        const receipt = await native.client.waitForTransactionReceipt({ hash, pollingInterval: 100 })
        expect(receipt.status).to.equal('success')
        expect(receipt.to!.toLowerCase()).to.equal(w.native.router.toLowerCase())
        const unwrapped = parseEventLogs({ abi: wNativeAbi, logs: receipt.logs, eventName: 'Withdrawal' })
        expect(unwrapped).to.have.length(1)
        const amount = unwrapped[0].args.wad
        expect(await native.client.getBalance({ address: depositAddress, blockNumber: receipt.blockNumber })).to.equal(amount)
        return { hash, amount, blockNumber: receipt.blockNumber }
    }

    async function nativeToBscWnative(receiver: `0x${string}`) {
        return createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'WNATIVE',
            source_token_amount: 0.005, target_wallet: receiver,
        })
    }

    it('credits a coin deposit made by a contract: the router unwrapping to the deposit address', async function () {
        const bsc = w.chains.BSC
        const receiver = account(7).address
        const swap = await nativeToBscWnative(receiver)
        const before = await balanceOf(bsc, receiver, bsc.tokens.WNATIVE)
        const deposit = await depositThroughRouter(5, swap.deposit_address)

        const done = await waitForStatus(bridge, swap.id, ['completed'])
        // The node traces: the transaction that paid the address is known.
        expect(done.deposit_tx_hash).to.equal(deposit.hash)
        expect(done.deposit_amount).to.equal(formatUnits(deposit.amount, 18))
        expect(done.deposit_block_number).to.equal(deposit.blockNumber.toString())
        // NATIVE → WNATIVE is 1:1 after the fee.
        const fee = (deposit.amount * 250n) / 10_000n
        expect(await balanceOf(bsc, receiver, bsc.tokens.WNATIVE) - before).to.equal(deposit.amount - fee)
        expect((await eventsOf(bridge, swap.id)).find((e) => e.event === 'source_token_deposited').tx_hash).to.equal(deposit.hash)
    })

    it('on a node without tracing, a contract-made coin deposit is credited by its block, without a transaction hash', async function () {
        const bsc = w.chains.BSC
        const receiver = account(8).address
        nativeNode.unsupported.add('trace_block')
        nativeNode.unsupported.add('debug_traceBlockByNumber')
        try {
            const swap = await nativeToBscWnative(receiver)
            const before = await balanceOf(bsc, receiver, bsc.tokens.WNATIVE)
            const deposit = await depositThroughRouter(5, swap.deposit_address)
            const done = await waitForStatus(bridge, swap.id, ['completed'])
            expect(done.deposit_tx_hash).to.equal(null)
            expect(done.deposit_amount).to.equal(formatUnits(deposit.amount, 18))
            expect(done.deposit_block_number).to.equal(deposit.blockNumber.toString())
            expect(await balanceOf(bsc, receiver, bsc.tokens.WNATIVE) - before).to.equal(deposit.amount - (deposit.amount * 250n) / 10_000n)
            expect((await api(bridge, 'GET', `/api/swap/${swap.id}/status`)).body.deposit_tx_hash).to.equal(null)
            const events = await eventsOf(bridge, swap.id)
            expect(events.find((e) => e.event === 'source_token_deposited').tx_hash).to.equal(null)
            expect(events.find((e) => e.event === 'deposit_confirmed').tx_hash).to.equal(null)
        } finally {
            nativeNode.unsupported.clear()
        }
    })

    it('on a node without tracing, a contract-made coin deposit (no transaction hash) of a swap that fails is refunded', async function () {
        const refundTo = account(9).address
        nativeNode.unsupported.add('trace_block')
        nativeNode.unsupported.add('debug_traceBlockByNumber')
        try {
            // A bound 2% above the quote (within what creation accepts) that an unmoved rate cannot
            // meet: the rate lock fails the swap after the deposit was credited.
            const pair = {
                source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'WNATIVE',
                source_token_amount: 0.005, target_wallet: account(8).address, refund_address: refundTo,
            }
            const quote = parseUnits((await createSwap(bridge, pair)).estimated_target_amount, 18)
            const swap = await createSwap(bridge, { ...pair, min_target_amount: formatUnits((quote * 102n) / 100n, 18) })
            const before = await balanceOf(w.chains.NATIVECHAIN, refundTo)
            const deposit = await depositThroughRouter(5, swap.deposit_address)
            const failed = await waitForStatus(bridge, swap.id, ['failed'])
            expect(failed.deposit_tx_hash).to.equal(null)
            expect(failed.error_message).to.match(/^rate moved beyond the allowed slippage/)
            const refunded = await waitFor('the refund', async () => {
                const d = await detail(swap.id)
                return d.refund_status === 'sent' ? d : undefined
            }, 60_000, 250)
            // The whole deposit went back (the native chain's fees are zero), in one transfer.
            expect(refunded.refund_amount).to.equal(formatUnits(deposit.amount, 18))
            expect(await balanceOf(w.chains.NATIVECHAIN, refundTo) - before).to.equal(deposit.amount)
            const refundTx = await w.chains.NATIVECHAIN.client.getTransaction({ hash: refunded.refund_tx_hash })
            expect(refundTx.to!.toLowerCase()).to.equal(refundTo.toLowerCase())
            expect(refundTx.value).to.equal(deposit.amount)
            expect((await txRows(swap.id, 'refund')).map((r) => r.status)).to.deep.equal(['confirmed'])
        } finally {
            nativeNode.unsupported.clear()
        }
    })

    /** A POL deposit below the route's minimum (5 POL): the swap fails at once and owes a refund. */
    async function failingPolSwap(userIndex: number) {
        const polygon = w.chains.POLYGON
        const swap = await createSwap(bridge, {
            source_chain: 'POLYGON', source_token: 'POL', target_chain: 'NATIVECHAIN', target_token: 'STABLE',
            source_token_amount: 10, target_wallet: account(6).address, refund_address: account(userIndex).address,
        })
        await send(polygon, userIndex, swap.deposit_address, parseUnits('1', 18))
        const failed = await waitForStatus(bridge, swap.id, ['failed'])
        expect(failed.error_message).to.equal("the deposit of 1 POL is outside the route's bounds (5 to 400000)")
        return swap
    }

    /**
     * Runs `body` with the POLYGON vault's POL set to 0 (after a gather it holds exactly the deposit,
     * and cannot pay a refund's gas on top); `refill` gives its POL back, as the end does in any case.
     */
    async function withoutVaultGas(body: (refill: () => Promise<void>) => Promise<void>): Promise<void> {
        const polygon = w.chains.POLYGON
        const vault = await vaultOf(bridge, 'POLYGON')
        const saved = await polygon.client.getBalance({ address: vault })
        const setBalance = async (value: bigint) => {
            await polygon.client.request({ method: 'anvil_setBalance' as any, params: [vault, `0x${value.toString(16)}`] as any })
        }
        await setBalance(0n)
        try {
            await body(() => setBalance(saved))
        } finally {
            await setBalance(saved)
        }
    }

    it('a refund the vault cannot pay is retried with backoff and sent exactly once when the vault is funded', async function () {
        const polygon = w.chains.POLYGON
        const user = account(8).address
        await withoutVaultGas(async (refill) => {
            const before = await balanceOf(polygon, user)
            const swap = await failingPolSwap(8)
            const waiting = await waitFor('a first refund attempt to fail', async () => {
                const body = await detail(swap.id)
                return body.refund_attempts >= 1 ? body : undefined
            }, 60_000, 200)
            expect(waiting.refund_status).to.equal('pending')
            expect(waiting.refund_error).to.equal('the source vault lacked gas for the refund')
            expect(waiting.refund_tx_hash).to.equal(null)
            expect((await eventsOf(bridge, swap.id)).map((e) => e.event)).to.not.include('refund_failed')

            await refill()
            const refunded = await waitFor('the refund', async () => {
                const body = await detail(swap.id)
                return body.refund_status !== 'pending' ? body : undefined
            }, 120_000, 250)
            expect(refunded.refund_status).to.equal('sent')
            expect(refunded.refund_error).to.equal(null)
            const refund = parseUnits(refunded.refund_amount, 18)
            // The gather paid its gas out of the deposit; the rest came back, once.
            expect(refund > parseUnits('0.99', 18) && refund < parseUnits('1', 18)).to.equal(true)
            expect(await balanceOf(polygon, user) - before).to.equal(refund - parseUnits('1', 18))
            const rows = await txRows(swap.id, 'refund')
            expect(rows.filter((r) => r.status === 'confirmed').map((r) => r.tx_hash)).to.deep.equal([refunded.refund_tx_hash])
            expect(rows.length).to.equal(refunded.refund_attempts)
            expect(rows.slice(0, -1).every((r) => r.status === 'rejected')).to.equal(true)
            const events = (await eventsOf(bridge, swap.id)).map((e) => e.event)
            expect(events.slice(-2)).to.deep.equal(['swap_failed', 'refund_sent'])
        })
    })

    it('a refund that keeps failing stops after its bounded attempts and is left to an operator', async function () {
        const polygon = w.chains.POLYGON
        const user = account(9).address
        await withoutVaultGas(async () => {
            const before = await balanceOf(polygon, user)
            const swap = await failingPolSwap(9)
            const given = await waitFor('the refund to be given up', async () => {
                const body = await detail(swap.id)
                return body.refund_status !== 'pending' ? body : undefined
            }, 120_000, 250)
            expect(given.refund_status).to.equal('failed')
            expect(given.refund_attempts).to.equal(4)
            expect(given.refund_error).to.equal('the source vault lacked gas for the refund')
            expect(given.refund_next_attempt_at).to.equal(null)
            expect(given.refund_tx_hash).to.equal(null)
            // Four attempts, each refused by the node: nothing was sent.
            expect((await txRows(swap.id, 'refund')).map((r) => r.status)).to.deep.equal(['rejected', 'rejected', 'rejected', 'rejected'])
            expect(await balanceOf(polygon, user) - before).to.equal(-parseUnits('1', 18))
            const events = await eventsOf(bridge, swap.id)
            expect(events.map((e) => e.event).slice(-2)).to.deep.equal(['swap_failed', 'refund_failed'])
            expect(events.at(-1).data).to.deep.include({ attempts: 4, operator_action_required: true, reason: 'the source vault lacked gas for the refund' })
        })
    })

    // Last in the file: everything above is normal operation (one process, or several on one database).
    it('never trips the ledger guard: no vault held, no swap held for it', async function () {
        expect(await ledgerGuardHolds(pool)).to.deep.equal([])
    })
})
