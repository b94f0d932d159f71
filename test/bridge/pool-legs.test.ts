import { expect } from 'chai'
import * as fs from 'fs'
import { Pool } from 'pg'
import { Address, createWalletClient, http, parseAbi, parseTransaction, parseUnits, recoverTransactionAddress, zeroAddress } from 'viem'
import { ammFactoryAbi, ammPairAbi } from '../../abi'
import { waitFor } from '../../common/processes'
import { devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, balanceOf, BroadcastGate, BridgeChains, BridgeProcess, bridgeEnv, createSwap, eventsOf, fundVaults, giveTokens,
    send, startBridge, startBridgeChains, tempDir, TestChain, vaultOf, waitForStatus,
} from './support'

const COMPLETED_EVENTS = [
    'deposit_wallet_created', 'source_token_deposited', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
    'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent',
]

const ROUTER_ABI = parseAbi([
    'function swapExactTokensForTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline) returns (uint[] amounts)',
])

/**
 * Routes with a pool leg trade that leg on the pool, from the vault of the pool's chain, with
 * amountOutMin from the locked rate (gap: pool routes used to pay from the target vault and never
 * touch the pool). BSC's RPC reaches the bridge through a gate that can hold back the vault's
 * trades, so the pool can be moved between the trade's signing and its landing.
 */
describe('bridge: pool legs trade on the pool', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let gate: BroadcastGate
    let pool: Pool
    let dir: string
    let bscPair: Address
    let nativePair: Address

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_pool_legs')
        w = await startBridgeChains()
        gate = new BroadcastGate(w.chains.BSC.url)
        await gate.start()
        dir = tempDir()
        bridge = await startBridge({ ...bridgeEnv(w, databaseUrl, dir), BSC_RPC_URL: gate.url })
        await fundVaults(w, bridge)
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
        bscPair = w.bsc.amm!.pairs['WNATIVE/USDT']
        nativePair = await w.chains.NATIVECHAIN.client.readContract({
            address: w.native.factory, abi: ammFactoryAbi, functionName: 'getPair', args: [w.native.wnative, w.native.stable],
        })
        expect(nativePair).to.not.equal(zeroAddress)
    })

    after(async function () {
        await pool?.end()
        await bridge?.stop()
        await gate?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    /** [reserve of tokenA, reserve of tokenB] of a pair. */
    async function reserves(chain: TestChain, pair: Address, tokenA: Address): Promise<[bigint, bigint]> {
        const [r0, r1] = await chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'getReserves' })
        const token0 = await chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'token0' })
        return token0.toLowerCase() === tokenA.toLowerCase() ? [r0, r1] : [r1, r0]
    }

    async function txRows(swapId: string, purpose: string): Promise<{ status: string; tx_hash: string; raw: string; chain: string }[]> {
        const { rows } = await pool.query(`SELECT status, tx_hash, raw, chain FROM bridge_tx WHERE swap_id = $1 AND purpose = $2 ORDER BY attempt`, [swapId, purpose])
        return rows
    }

    /** Sells WNATIVE (or USDT) into the BSC pool from the account that owns the test tokens: the pool moves. */
    async function moveBscPool(sell: 'WNATIVE' | 'USDT', amount: bigint): Promise<void> {
        const bsc = w.chains.BSC
        const wallet = createWalletClient({ account: account(0), chain: devnetChain(bsc.chainId, bsc.url), transport: http(bsc.url) })
        const path = sell === 'WNATIVE' ? [bsc.tokens.WNATIVE, bsc.tokens.USDT] : [bsc.tokens.USDT, bsc.tokens.WNATIVE]
        const hash = await wallet.writeContract({
            address: w.bsc.amm!.router, abi: ROUTER_ABI, functionName: 'swapExactTokensForTokens',
            args: [amount, 0n, path, account(0).address, 2n ** 40n], ...ZERO_FEES,
        })
        const receipt = await bsc.client.waitForTransactionReceipt({ hash, pollingInterval: 100 })
        expect(receipt.status).to.equal('success')
    }

    it('BSC USDT → NATIVE: the gathered USDT is sold on the BSC pool by the BSC vault, and the pool pays what was locked', async function () {
        const bsc = w.chains.BSC
        const native = w.chains.NATIVECHAIN
        const user = account(3)
        const receiver = account(4).address
        const [bscVault, nativeVault] = [await vaultOf(bridge, 'BSC'), await vaultOf(bridge, 'NATIVECHAIN')]
        await giveTokens(bsc, 'USDT', user.address, parseUnits('100', 18))
        const [wnativeBefore, usdtBefore] = await reserves(bsc, bscPair, bsc.tokens.WNATIVE)
        const vaultUsdt = await balanceOf(bsc, bscVault, bsc.tokens.USDT)
        const vaultWnative = await balanceOf(bsc, bscVault, bsc.tokens.WNATIVE)
        const nativeVaultCoin = await balanceOf(native, nativeVault)

        const swap = await createSwap(bridge, {
            source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
            source_token_amount: 100, target_wallet: receiver, refund_address: user.address,
        })
        await send(bsc, 3, swap.deposit_address, parseUnits('100', 18), bsc.tokens.USDT)
        const done = await waitForStatus(bridge, swap.id, ['completed'])

        const trade = done.pool_trade
        expect(trade).to.include({ pool: 'bsc-wnative-usdt', chain: 'BSC', token_in: 'USDT', token_out: 'WNATIVE', amount_in: '97.5' })
        // Nobody else traded on the pool between the rate lock and the trade: it paid exactly what was locked.
        expect(trade.locked_amount_out).to.equal(done.target_token_amount)
        expect(trade.amount_out).to.equal(done.target_token_amount)
        const locked = parseUnits(done.target_token_amount, 18)
        expect(parseUnits(trade.amount_out_min, 18)).to.equal(locked - (locked * 100n) / 10_000n)

        const receipt = await bsc.client.getTransactionReceipt({ hash: trade.tx_hash })
        expect(receipt.status).to.equal('success')
        expect(receipt.from.toLowerCase()).to.equal(bscVault.toLowerCase())
        expect(receipt.to!.toLowerCase()).to.equal(w.bsc.amm!.router.toLowerCase())
        // The pool took the 97.5 USDT and gave the WNATIVE the payout was priced on.
        const [wnativeAfter, usdtAfter] = await reserves(bsc, bscPair, bsc.tokens.WNATIVE)
        expect(usdtAfter - usdtBefore).to.equal(parseUnits('97.5', 18))
        expect(wnativeBefore - wnativeAfter).to.equal(locked)
        // Each vault moved only within a price class: BSC kept the 2.5 USDT fee and gained the WNATIVE
        // that the native vault paid out as NATIVE.
        expect(await balanceOf(bsc, bscVault, bsc.tokens.USDT) - vaultUsdt).to.equal(parseUnits('2.5', 18))
        expect(await balanceOf(bsc, bscVault, bsc.tokens.WNATIVE) - vaultWnative).to.equal(locked)
        expect(nativeVaultCoin - await balanceOf(native, nativeVault)).to.equal(locked)

        const swaps = await txRows(swap.id, 'pool_swap')
        expect(swaps.map((r) => [r.status, r.tx_hash, r.chain])).to.deep.equal([['confirmed', trade.tx_hash, 'BSC']])
        expect((await txRows(swap.id, 'pool_approve')).map((r) => r.status)).to.deep.equal(['confirmed'])
        const events = await eventsOf(bridge, swap.id)
        expect(events.map((e) => e.event)).to.deep.equal(COMPLETED_EVENTS)
        expect(events.find((e) => e.event === 'vault_locked').data.pool_trade.tx_hash).to.equal(trade.tx_hash)
    })

    it('the native pool both ways: NATIVE → STABLE sells the coin, STABLE → BSC WNATIVE buys it', async function () {
        const native = w.chains.NATIVECHAIN
        const bsc = w.chains.BSC
        const nativeVault = await vaultOf(bridge, 'NATIVECHAIN')
        const bscVault = await vaultOf(bridge, 'BSC')
        const receiver = account(6).address

        // NATIVE → STABLE: swapExactETHForTokens from the vault's coin.
        let [wnativeBefore, stableBefore] = await reserves(native, nativePair, w.native.wnative)
        let coinBefore = await balanceOf(native, nativeVault)
        let stableVault = await balanceOf(native, nativeVault, native.tokens.STABLE)
        const first = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'NATIVECHAIN', target_token: 'STABLE',
            source_token_amount: 1, target_wallet: receiver,
        })
        await send(native, 5, first.deposit_address, parseUnits('1', 18))
        const one = await waitForStatus(bridge, first.id, ['completed'])
        expect(one.pool_trade).to.include({ pool: 'nativechain-wnative-stable', chain: 'NATIVECHAIN', token_in: 'NATIVE', token_out: 'STABLE', amount_in: '0.975' })
        expect(one.pool_trade.amount_out).to.equal(one.target_token_amount)
        let [wnativeAfter, stableAfter] = await reserves(native, nativePair, w.native.wnative)
        expect(wnativeAfter - wnativeBefore).to.equal(parseUnits('0.975', 18))
        expect(stableBefore - stableAfter).to.equal(parseUnits(one.target_token_amount, 6))
        // The vault kept the fee in NATIVE; the STABLE it bought is the STABLE it paid.
        expect(await balanceOf(native, nativeVault) - coinBefore).to.equal(parseUnits('0.025', 18))
        expect(await balanceOf(native, nativeVault, native.tokens.STABLE)).to.equal(stableVault)
        // A coin needs no approval.
        expect(await txRows(first.id, 'pool_approve')).to.deep.equal([])

        // STABLE → BSC WNATIVE: swapExactTokensForETH, the coin comes back to the native vault.
        await giveTokens(native, 'STABLE', account(7).address, parseUnits('30', 6))
        ;[wnativeBefore, stableBefore] = await reserves(native, nativePair, w.native.wnative)
        coinBefore = await balanceOf(native, nativeVault)
        stableVault = await balanceOf(native, nativeVault, native.tokens.STABLE)
        const bscWnative = await balanceOf(bsc, bscVault, bsc.tokens.WNATIVE)
        const second = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'BSC', target_token: 'WNATIVE',
            source_token_amount: 30, target_wallet: receiver,
        })
        await send(native, 7, second.deposit_address, parseUnits('30', 6), native.tokens.STABLE)
        const two = await waitForStatus(bridge, second.id, ['completed'])
        expect(two.pool_trade).to.include({ pool: 'nativechain-wnative-stable', token_in: 'STABLE', token_out: 'NATIVE', amount_in: '29.25' })
        expect(two.pool_trade.amount_out).to.equal(two.target_token_amount)
        const locked = parseUnits(two.target_token_amount, 18)
        ;[wnativeAfter, stableAfter] = await reserves(native, nativePair, w.native.wnative)
        expect(stableAfter - stableBefore).to.equal(parseUnits('29.25', 6))
        expect(wnativeBefore - wnativeAfter).to.equal(locked)
        expect(await balanceOf(native, nativeVault) - coinBefore).to.equal(locked)
        expect(await balanceOf(native, nativeVault, native.tokens.STABLE) - stableVault).to.equal(parseUnits('0.75', 6))
        expect(bscWnative - await balanceOf(bsc, bscVault, bsc.tokens.WNATIVE)).to.equal(locked)
    })

    it('a multi-hop route trades its pool leg on a chain that is neither source nor target (ETH → NATIVE through the BSC pool)', async function () {
        const bsc = w.chains.BSC
        const bscVault = await vaultOf(bridge, 'BSC')
        const usdt = await balanceOf(bsc, bscVault, bsc.tokens.USDT)
        const wnative = await balanceOf(bsc, bscVault, bsc.tokens.WNATIVE)
        const swap = await createSwap(bridge, {
            source_chain: 'ETHEREUM', source_token: 'ETH', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
            source_token_amount: 0.02, target_wallet: account(6).address,
        })
        expect(swap.route.kind).to.equal('multi_hop')
        await send(w.chains.ETHEREUM, 6, swap.deposit_address, parseUnits('0.02', 18))
        const done = await waitForStatus(bridge, swap.id, ['completed'])
        // 0.0195 ETH at 3,000 USD: the BSC vault sells 58.5 USDT for WNATIVE.
        expect(done.pool_trade).to.include({ chain: 'BSC', token_in: 'USDT', token_out: 'WNATIVE', amount_in: '58.5' })
        expect(done.pool_trade.amount_out).to.equal(done.target_token_amount)
        expect(usdt - await balanceOf(bsc, bscVault, bsc.tokens.USDT)).to.equal(parseUnits('58.5', 18))
        expect(await balanceOf(bsc, bscVault, bsc.tokens.WNATIVE) - wnative).to.equal(parseUnits(done.target_token_amount, 18))
    })

    /** Holds the BSC vault's router trades back at the gate until the test lets them through. */
    async function holdTrades(swapId: string): Promise<{ hash: string; raw: string }> {
        const rows = await waitFor('the pool trade to be signed and held', async () => {
            const r = await txRows(swapId, 'pool_swap')
            return r.length > 0 && gate.refused.includes(r[0].raw) ? r : undefined
        }, 120_000, 100)
        // Stored before any broadcast, and nothing else: the held bytes are the stored ones ('broadcast'
        // once the refused broadcast is recorded: without a clear answer it may have reached a node).
        expect(rows).to.have.length(1)
        expect(['signed', 'broadcast']).to.include(rows[0].status)
        return { hash: rows[0].tx_hash, raw: rows[0].raw }
    }

    const routerTrades = (raw: string) => parseTransaction(raw as `0x${string}`).to?.toLowerCase() === w.bsc.amm!.router.toLowerCase()

    it('the pool moved within the tolerance after signing: the trade pays less, the vault covers it, the payout is the locked amount', async function () {
        const bsc = w.chains.BSC
        const bscVault = await vaultOf(bridge, 'BSC')
        const receiver = account(8).address
        const usdtVault = await balanceOf(bsc, bscVault, bsc.tokens.USDT)
        const before = await balanceOf(bsc, receiver, bsc.tokens.USDT)
        gate.filter = routerTrades
        gate.blocked = true
        try {
            // NATIVE → BSC USDT: the BSC vault sells WNATIVE for the USDT it pays out (target chain pool, before the payout).
            const swap = await createSwap(bridge, {
                source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'USDT',
                source_token_amount: 1, target_wallet: receiver,
            })
            await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('1', 18))
            const held = await holdTrades(swap.id)
            // 25 WNATIVE sold into 10,000: WNATIVE is worth about 0.5% less USDT than when the rate was locked.
            await moveBscPool('WNATIVE', parseUnits('25', 18))
            gate.blocked = false
            const done = await waitForStatus(bridge, swap.id, ['completed'])
            const trade = done.pool_trade
            expect(trade.tx_hash).to.equal(held.hash)
            const [locked, out, min] = [trade.locked_amount_out, trade.amount_out, trade.amount_out_min].map((v: string) => parseUnits(v, 18))
            expect(locked).to.equal(parseUnits(done.target_token_amount, 18))
            expect(out < locked).to.equal(true)
            expect(out >= min).to.equal(true)
            // Paid exactly the locked amount; the shortfall came out of the vault's own USDT.
            expect(await balanceOf(bsc, receiver, bsc.tokens.USDT) - before).to.equal(locked)
            expect(usdtVault - await balanceOf(bsc, bscVault, bsc.tokens.USDT)).to.equal(locked - out)
            expect((await txRows(swap.id, 'pool_swap')).map((r) => r.status)).to.deep.equal(['confirmed'])
        } finally {
            gate.blocked = false
            gate.filter = undefined
        }
    })

    it('the pool moved beyond the tolerance after signing: the router reverts the trade, the swap fails and is refunded', async function () {
        const native = w.chains.NATIVECHAIN
        const bsc = w.chains.BSC
        const receiver = account(8).address
        const refundTo = account(9).address
        gate.filter = routerTrades
        gate.blocked = true
        try {
            const before = await balanceOf(bsc, receiver, bsc.tokens.USDT)
            const refundBefore = await balanceOf(native, refundTo)
            const swap = await createSwap(bridge, {
                source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'USDT',
                source_token_amount: 1, target_wallet: receiver, refund_address: refundTo,
            })
            await send(native, 5, swap.deposit_address, parseUnits('1', 18))
            const held = await holdTrades(swap.id)
            // 300 WNATIVE sold into the pool: about 6% less USDT per WNATIVE, past the 1% the vault covers.
            await moveBscPool('WNATIVE', parseUnits('300', 18))
            gate.blocked = false
            const failed = await waitForStatus(bridge, swap.id, ['failed'])
            expect(failed.error_message).to.match(/^no liquidity or route for the pair at that moment \(/)
            expect(failed.payout_tx_hash).to.equal(null)
            expect(failed.pool_trade).to.equal(null)
            // The stored trade did land, and the router refused to pay less than amountOutMin.
            expect((await bsc.client.getTransactionReceipt({ hash: held.hash as `0x${string}` })).status).to.equal('reverted')
            expect((await txRows(swap.id, 'pool_swap')).map((r) => r.status)).to.deep.equal(['reverted'])
            const refunded = await waitFor('the refund', async () => {
                const { body } = await api(bridge, 'GET', `/api/swap/${swap.id}`)
                return body.refund_status === 'sent' ? body : undefined
            }, 120_000, 250)
            // The native chain charges no gas: the whole deposit comes back.
            expect(refunded.refund_amount).to.equal('1')
            expect(await balanceOf(native, refundTo) - refundBefore).to.equal(parseUnits('1', 18))
            expect(await balanceOf(bsc, receiver, bsc.tokens.USDT)).to.equal(before)
            expect((await eventsOf(bridge, swap.id)).map((e) => e.event)).to.deep.equal([
                'deposit_wallet_created', 'source_token_deposited', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
                'vault_locking', 'swap_failed', 'refund_sent',
            ])
        } finally {
            gate.blocked = false
            gate.filter = undefined
        }
    })

    it('the pool moved beyond the tolerance before the trade: nothing is signed, the swap fails and is refunded', async function () {
        const bsc = w.chains.BSC
        const user = account(3)
        const receiver = account(4).address
        await giveTokens(bsc, 'USDT', user.address, parseUnits('50', 18))
        const swap = await createSwap(bridge, {
            source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
            source_token_amount: 50, target_wallet: receiver, refund_address: user.address,
        })
        // The deposit address's gather is held: the rate is locked, the pool trade not yet made.
        gate.filter = async (raw) => (await recoverTransactionAddress({ serializedTransaction: raw as any })).toLowerCase() === swap.deposit_address.toLowerCase()
        gate.blocked = true
        try {
            const userBefore = await balanceOf(bsc, user.address, bsc.tokens.USDT)
            await send(bsc, 3, swap.deposit_address, parseUnits('50', 18), bsc.tokens.USDT)
            await waitForStatus(bridge, swap.id, ['gathering'])
            // 2,000,000 USDT buy WNATIVE: a USDT → WNATIVE trade now pays about 20% less.
            await moveBscPool('USDT', parseUnits('2000000', 18))
            gate.blocked = false
            const failed = await waitForStatus(bridge, swap.id, ['failed'])
            expect(failed.error_message).to.match(/^no liquidity or route for the pair at that moment \(the bsc-wnative-usdt pool moved after the rate was locked/)
            expect(await txRows(swap.id, 'pool_swap')).to.deep.equal([])
            const refunded = await waitFor('the refund', async () => {
                const { body } = await api(bridge, 'GET', `/api/swap/${swap.id}`)
                return body.refund_status === 'sent' ? body : undefined
            }, 120_000, 250)
            expect(refunded.refund_amount).to.equal('50')
            expect(await balanceOf(bsc, user.address, bsc.tokens.USDT)).to.equal(userBefore)
        } finally {
            gate.blocked = false
            gate.filter = undefined
        }
    })
})
