import { expect } from 'chai'
import { randomBytes } from 'crypto'
import * as fs from 'fs'
import { Pool } from 'pg'
import { TronWeb } from 'tronweb'
import { Address, Hash, parseUnits } from 'viem'
import { Keypair } from '@solana/web3.js'
import { waitFor } from '../../common/processes'
import type { EsploraServer } from '../../devnet/bitcoin/esplora'
import { SimpleSwapServer } from '../../devnet/provider/server'
import type { SolanaNode } from '../../devnet/solana/server'
import type { TronNode } from '../../devnet/tron/server'
import { createTestDatabase } from '../support/postgres'
import {
    account, balanceOf, BridgeChains, bridgeEnv, BridgeProcess, BroadcastGate, btcBalance, ChainName, createSwap, ExternalNetworks,
    externalNetworksEnv, fundExternalVaults, fundVaults, gateEnv, giveTokens, holdStored, regtestAddress, send, startBridge, startBridgeChains,
    startExternalNetworks, startGates, storedAndTried as waitForStored, swapWithHeldPayout, tempDir, TestChain, transferAmounts, TxRow,
    txRows as storedTxs, UNFINISHED, vaultOf, waitForStatus,
} from './support'

/**
 * The bridge is SIGKILLed inside each sending step, right after it stored the signed
 * transaction of that step and before the transaction landed (its broadcast held back by the
 * node, or, for the "answer lost" variants, let through to the node without the bridge ever
 * hearing back), then restarted on the same database and data directory. Each swap must still
 * finish, with exactly one transfer of each step on chain: gather, gas top-up, pool trade,
 * payout, refund, provider deposit, and the BITCOIN, TRON and SOLANA payouts, counted in logs,
 * blocks, balances and the doubles' ledgers.
 *
 * The four anvils sit behind BroadcastGates whose filter holds back only the transactions stored
 * for one purpose of one swap (looked up by their raw bytes in bridge_tx); the BITCOIN and
 * SOLANA doubles answer 503 to broadcasts while held, the TRON double drops them unanswered.
 */
describe('bridge: SIGKILL inside each sending step, restart, exactly one transfer', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let btc: EsploraServer
    let ss: SimpleSwapServer
    let sol: SolanaNode
    let tron: TronNode
    let gates: Record<ChainName, BroadcastGate>
    let pool: Pool
    let dir: string
    let databaseUrl: string
    let networks: ExternalNetworks | undefined

    before(async function () {
        databaseUrl = await createTestDatabase('bridge_crash')
        ;[w, networks, ss] = await Promise.all([startBridgeChains(), startExternalNetworks(), new SimpleSwapServer().start()])
        ;({ btc, sol, tron } = networks)
        ss.setPair(['usdt', 'bsc'], ['btc', 'btc'], { rate: '0.0000109', min: '20', max: null })
        gates = await startGates(w, Object.keys(w.chains) as ChainName[])
        dir = tempDir()
        bridge = await startBridge(env())
        await fundVaults(w, bridge)
        await fundExternalVaults(bridge, networks)
        pool = new Pool({ connectionString: databaseUrl, max: 3 })
    })

    after(async function () {
        await pool?.end()
        await bridge?.stop()
        await Promise.allSettled([
            w?.stop(), networks?.stop(), ss?.stop(), ...Object.values(gates ?? {}).map((g) => g.stop()),
        ])
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    /**
     * held: the node refuses the broadcast (the anvils' gates and the BITCOIN, SOLANA doubles: 503;
     * TRON: the connection dropped), nothing reaches the chain before the kill. lost: the double takes the transaction but never
     * answers, and the kill comes once it is in the ledger while the bridge still has it as signed.
     */
    const MODES = ['held', 'lost'] as const
    type Mode = (typeof MODES)[number]
    const modeText = (mode: Mode) => (mode === 'held' ? 'its broadcast refused' : 'its broadcast through but the answer lost')

    /** Lets every broadcast through again, on the anvils' gates and the doubles. */
    function releaseAll(): void {
        for (const gate of Object.values(gates)) {
            gate.blocked = false
            gate.swallow = false
            gate.filter = undefined
        }
        btc.holdBroadcasts = false
        btc.swallowBroadcasts = false
        sol.holdSends = false
        sol.swallowSends = false
        tron.refuseBroadcasts = false
        tron.swallowBroadcasts = false
    }

    afterEach(async function () {
        // Whatever a case left held is released, and a bridge killed by a case that then failed is replaced.
        releaseAll()
        if (bridge.process.child.exitCode !== null || bridge.process.child.signalCode !== null) bridge = await startBridge(env())
    })

    function env(): Record<string, string> {
        return {
            ...bridgeEnv(w, databaseUrl, dir),
            ...gateEnv(gates),
            ...externalNetworksEnv(networks!, ss),
            BRIDGE_REFUND_RETRY_SECONDS: '2',
        }
    }

    const txRows = (swapId: string, purpose: string) => storedTxs(pool, swapId, purpose)

    async function swapRow(swapId: string): Promise<any> {
        const { rows } = await pool.query('SELECT * FROM bridge_swap WHERE id = $1', [swapId])
        return rows[0]
    }

    const holdEvm = (chain: ChainName, swapId: string, purpose: string, swallow = false) => holdStored(gates[chain], pool, swapId, purpose, swallow)
    const storedAndTried = (swapId: string, purpose: string, tried: (row: TxRow) => boolean | Promise<boolean>) => waitForStored(pool, bridge, swapId, purpose, tried)

    /** The step's one transaction, still only stored as far as the bridge knows. */
    async function expectUnfinished(swapId: string, purpose: string): Promise<void> {
        const statuses = (await txRows(swapId, purpose)).map((r) => r.status)
        expect(statuses).to.have.length(1)
        expect(UNFINISHED).to.include(statuses[0])
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed. */
    async function kill(): Promise<void> {
        bridge.process.kill('SIGKILL')
        expect(await bridge.process.exited).to.equal('SIGKILL')
    }

    /** The bridge SIGKILLed inside the step, the held broadcast let through, the bridge started again on the same database and data. */
    async function killReleaseAndRestart(): Promise<void> {
        await kill()
        releaseAll()
        bridge = await startBridge(env())
    }

    /** The swap once its refund is no longer pending. */
    async function refundSettled(swapId: string): Promise<any> {
        return waitFor('the refund', async () => {
            const s = await swapRow(swapId)
            return s.refund_status !== 'pending' ? s : undefined
        }, 120_000, 250)
    }

    /** Whether a transaction is mined on the chain. */
    async function landed(chain: TestChain, hash: string): Promise<boolean> {
        return chain.client.getTransactionReceipt({ hash: hash as Hash }).then(() => true, () => false)
    }

    /** Every coin transfer (a transaction with value) from `from` to `to` in blocks fromBlock.., by scanning the blocks. */
    async function coinTransfers(chain: TestChain, from: Address, to: Address, fromBlock: bigint): Promise<{ hash: Hash; value: bigint }[]> {
        const head = await chain.client.getBlockNumber()
        const found: { hash: Hash; value: bigint }[] = []
        for (let n = fromBlock; n <= head; n++) {
            const block = await chain.client.getBlock({ blockNumber: n, includeTransactions: true })
            for (const tx of block.transactions) {
                if (tx.from.toLowerCase() === from.toLowerCase() && tx.to?.toLowerCase() === to.toLowerCase()) found.push({ hash: tx.hash, value: tx.value })
            }
        }
        return found
    }

    // ---- EVM steps ----------------------------------------------------------------------------

    for (const mode of MODES) it(`gather (a coin sweep), ${modeText(mode)}: killed with the sweep stored, one sweep after the restart`, async function () {
        const polygon = w.chains.POLYGON
        const native = w.chains.NATIVECHAIN
        const receiver = account(mode === 'held' ? 21 : 34).address
        const [polygonVault, nativeVault] = [await vaultOf(bridge, 'POLYGON'), await vaultOf(bridge, 'NATIVECHAIN')]
        const start = await polygon.client.getBlockNumber()
        const swap = await createSwap(bridge, {
            source_chain: 'POLYGON', source_token: 'POL', target_chain: 'NATIVECHAIN', target_token: 'STABLE',
            source_token_amount: 10, target_wallet: receiver,
        })
        const gate = holdEvm('POLYGON', swap.id, 'gather', mode === 'lost')
        await send(polygon, 3, swap.deposit_address, parseUnits('10', 18))
        const held = await storedAndTried(swap.id, 'gather', async (row) =>
            mode === 'held' ? gate.refused.includes(row.raw) : gate.swallowed.includes(row.raw) && (await landed(polygon, row.tx_hash)))
        if (mode === 'held') await polygon.client.getTransaction({ hash: held.tx_hash as Hash }).then(() => expect.fail('the sweep must not have reached the node'), () => undefined)
        await killReleaseAndRestart()

        const done = await waitForStatus(bridge, swap.id, ['completed'])
        // The deposit address sent one transaction ever: the sweep, the stored bytes.
        expect(await polygon.client.getTransactionCount({ address: swap.deposit_address })).to.equal(1)
        const sweeps = await coinTransfers(polygon, swap.deposit_address, polygonVault, start)
        expect(sweeps.map((s) => s.hash)).to.deep.equal([held.tx_hash])
        expect(sweeps[0].value).to.equal(BigInt(held.amount))
        expect(done.gather_tx_hash).to.equal(held.tx_hash)
        const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
        expect(await transferAmounts(native, native.tokens.STABLE, nativeVault, receiver)).to.deep.equal([locked])
        expect((await txRows(swap.id, 'gather')).map((r) => r.status)).to.deep.equal(['confirmed'])
    })

    it('gas top-up (a token deposit on a chain with fees): killed with the top-up stored and held, one top-up, one sweep', async function () {
        const eth = w.chains.ETHEREUM
        const polygon = w.chains.POLYGON
        const user = account(4)
        const receiver = account(22).address
        const [ethVault, polygonVault] = [await vaultOf(bridge, 'ETHEREUM'), await vaultOf(bridge, 'POLYGON')]
        await giveTokens(eth, 'USDT', user.address, parseUnits('20', 6))
        const start = await eth.client.getBlockNumber()
        const swap = await createSwap(bridge, {
            source_chain: 'ETHEREUM', source_token: 'USDT', target_chain: 'POLYGON', target_token: 'USDT',
            source_token_amount: 20, target_wallet: receiver,
        })
        const gate = holdEvm('ETHEREUM', swap.id, 'gather_gas')
        await send(eth, 4, swap.deposit_address, parseUnits('20', 6), eth.tokens.USDT)
        const held = await storedAndTried(swap.id, 'gather_gas', (row) => gate.refused.includes(row.raw))
        expect(await balanceOf(eth, swap.deposit_address)).to.equal(0n)
        await killReleaseAndRestart()

        await waitForStatus(bridge, swap.id, ['completed'])
        const topUps = await coinTransfers(eth, ethVault, swap.deposit_address, start)
        expect(topUps.map((t) => t.hash)).to.deep.equal([held.tx_hash])
        expect(topUps[0].value).to.equal(BigInt(held.amount))
        expect(await transferAmounts(eth, eth.tokens.USDT, swap.deposit_address, ethVault)).to.deep.equal([parseUnits('20', 6)])
        const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
        expect(await transferAmounts(polygon, polygon.tokens.USDT, polygonVault, receiver)).to.deep.equal([locked])
        expect((await txRows(swap.id, 'gather_gas')).map((r) => [r.status, r.tx_hash])).to.deep.equal([['confirmed', held.tx_hash]])
    })

    it('gas top-up, broadcast through but its answer lost: killed before recording it, no second top-up after the restart', async function () {
        const eth = w.chains.ETHEREUM
        const polygon = w.chains.POLYGON
        const receiver = account(29).address
        const [ethVault, polygonVault] = [await vaultOf(bridge, 'ETHEREUM'), await vaultOf(bridge, 'POLYGON')]
        await giveTokens(eth, 'USDT', account(4).address, parseUnits('25', 6))
        const start = await eth.client.getBlockNumber()
        const swap = await createSwap(bridge, {
            source_chain: 'ETHEREUM', source_token: 'USDT', target_chain: 'POLYGON', target_token: 'USDT',
            source_token_amount: 25, target_wallet: receiver,
        })
        const gate = holdEvm('ETHEREUM', swap.id, 'gather_gas', true)
        await send(eth, 4, swap.deposit_address, parseUnits('25', 6), eth.tokens.USDT)
        const row = await storedAndTried(swap.id, 'gather_gas', (r) => gate.swallowed.includes(r.raw))
        await eth.client.waitForTransactionReceipt({ hash: row.tx_hash as Hash, pollingInterval: 100 })
        await expectUnfinished(swap.id, 'gather_gas')
        await killReleaseAndRestart()

        await waitForStatus(bridge, swap.id, ['completed'])
        expect((await coinTransfers(eth, ethVault, swap.deposit_address, start)).map((t) => t.hash)).to.deep.equal([row.tx_hash])
        // Recorded as landed, not left 'signed' to be rebroadcast with every later send of the vault.
        expect((await txRows(swap.id, 'gather_gas')).map((r) => [r.status, r.tx_hash])).to.deep.equal([['confirmed', row.tx_hash]])
        expect(await transferAmounts(eth, eth.tokens.USDT, swap.deposit_address, ethVault)).to.deep.equal([parseUnits('25', 6)])
        const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
        expect(await transferAmounts(polygon, polygon.tokens.USDT, polygonVault, receiver)).to.deep.equal([locked])
    })

    for (const mode of MODES) it(`pool trade, ${modeText(mode)}: killed with the trade stored, one trade on the pool after the restart`, async function () {
        const bsc = w.chains.BSC
        const native = w.chains.NATIVECHAIN
        const receiver = account(mode === 'held' ? 23 : 32).address
        const pair = w.bsc.amm!.pairs['WNATIVE/USDT']
        const [bscVault, nativeVault] = [await vaultOf(bridge, 'BSC'), await vaultOf(bridge, 'NATIVECHAIN')]
        await giveTokens(bsc, 'USDT', account(5).address, parseUnits('100', 18))
        const nativeStart = await native.client.getBlockNumber()
        const tradesBefore = (await transferAmounts(bsc, bsc.tokens.USDT, bscVault, pair)).length
        const swap = await createSwap(bridge, {
            source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
            source_token_amount: 100, target_wallet: receiver,
        })
        const gate = holdEvm('BSC', swap.id, 'pool_swap', mode === 'lost')
        await send(bsc, 5, swap.deposit_address, parseUnits('100', 18), bsc.tokens.USDT)
        const held = await storedAndTried(swap.id, 'pool_swap', async (row) =>
            mode === 'held' ? gate.refused.includes(row.raw) : gate.swallowed.includes(row.raw) && (await landed(bsc, row.tx_hash)))
        expect((await swapRow(swap.id)).status).to.equal('vault_locking')
        await killReleaseAndRestart()

        const done = await waitForStatus(bridge, swap.id, ['completed'])
        // The vault sold the gathered 97.5 USDT into the pair once.
        const trades = (await transferAmounts(bsc, bsc.tokens.USDT, bscVault, pair)).slice(tradesBefore)
        expect(trades).to.deep.equal([parseUnits('97.5', 18)])
        expect(done.pool_trade.tx_hash).to.equal(held.tx_hash)
        const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
        const payouts = await coinTransfers(native, nativeVault, receiver, nativeStart)
        expect(payouts.map((p) => p.value)).to.deep.equal([locked])
        expect(await balanceOf(native, receiver)).to.equal(locked)
    })

    it('payout, broadcast through but its answer lost: killed before recording it, the restart finds it mined, pays nothing more', async function () {
        const native = w.chains.NATIVECHAIN
        const polygon = w.chains.POLYGON
        const receiver = account(24).address
        const polygonVault = await vaultOf(bridge, 'POLYGON')
        await giveTokens(native, 'STABLE', account(6).address, parseUnits('10', 6))
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'POLYGON', target_token: 'USDT',
            source_token_amount: 10, target_wallet: receiver,
        })
        const gate = holdEvm('POLYGON', swap.id, 'payout', true)
        await send(native, 6, swap.deposit_address, parseUnits('10', 6), native.tokens.STABLE)
        const row = await storedAndTried(swap.id, 'payout', (r) => gate.swallowed.includes(r.raw))
        // The node has it, and mines it; the bridge still has it as only signed.
        const receipt = await polygon.client.waitForTransactionReceipt({ hash: row.tx_hash as Hash, pollingInterval: 100 })
        expect(receipt.status).to.equal('success')
        await expectUnfinished(swap.id, 'payout')
        await killReleaseAndRestart()

        const done = await waitForStatus(bridge, swap.id, ['completed'])
        const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
        expect(await transferAmounts(polygon, polygon.tokens.USDT, polygonVault, receiver)).to.deep.equal([locked])
        expect(await balanceOf(polygon, receiver, polygon.tokens.USDT)).to.equal(locked)
        expect(done.payout_tx_hash).to.equal(row.tx_hash)
        expect((await txRows(swap.id, 'payout')).map((r) => [r.status, r.tx_hash])).to.deep.equal([['confirmed', row.tx_hash]])
    })

    it('payout, held: killed with the payout stored and never broadcast, the restart sends those bytes once', async function () {
        const eth = w.chains.ETHEREUM
        const receiver = account(25).address
        const ethVault = await vaultOf(bridge, 'ETHEREUM')
        const gate = gates.ETHEREUM
        const { swap, payout: row } = await swapWithHeldPayout(w, bridge, pool, gate, receiver)
        await killReleaseAndRestart()

        const done = await waitForStatus(bridge, swap.id, ['completed'])
        expect(done.payout_tx_hash).to.equal(row.tx_hash)
        const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
        expect(await transferAmounts(eth, eth.tokens.USDT, ethVault, receiver)).to.deep.equal([locked])
        expect((await txRows(swap.id, 'payout')).map((r) => [r.status, r.tx_hash])).to.deep.equal([['confirmed', row.tx_hash]])
    })

    it('refund (a short deposit): killed with the refund stored and held, one refund after the restart', async function () {
        const polygon = w.chains.POLYGON
        const refundTo = account(26).address
        const polygonVault = await vaultOf(bridge, 'POLYGON')
        const start = await polygon.client.getBlockNumber()
        const swap = await createSwap(bridge, {
            source_chain: 'POLYGON', source_token: 'POL', target_chain: 'NATIVECHAIN', target_token: 'STABLE',
            source_token_amount: 10, target_wallet: account(26).address, refund_address: refundTo,
        })
        const gate = holdEvm('POLYGON', swap.id, 'refund')
        await send(polygon, 7, swap.deposit_address, parseUnits('1', 18))
        const row = await storedAndTried(swap.id, 'refund', (r) => gate.refused.includes(r.raw))
        expect((await swapRow(swap.id)).status).to.equal('failed')
        await killReleaseAndRestart()

        const refunded = await refundSettled(swap.id)
        expect(refunded.refund_status).to.equal('sent')
        const refunds = await coinTransfers(polygon, polygonVault, refundTo, start)
        expect(refunds.map((r) => r.hash)).to.deep.equal([row.tx_hash])
        expect(refunds[0].value).to.equal(BigInt(refunded.refund_amount))
        expect(await balanceOf(polygon, refundTo)).to.equal(BigInt(refunded.refund_amount))
        expect(refunded.refund_tx_hash).to.equal(row.tx_hash)
        // Nothing was paid on the target chain.
        expect(await transferAmounts(w.chains.NATIVECHAIN, w.chains.NATIVECHAIN.tokens.STABLE, await vaultOf(bridge, 'NATIVECHAIN'), account(26).address)).to.deep.equal([])
    })

    it('refund, broadcast through but its answer lost: killed before recording it, the restart finds it and pays nothing more', async function () {
        const polygon = w.chains.POLYGON
        const refundTo = account(30).address
        const polygonVault = await vaultOf(bridge, 'POLYGON')
        const start = await polygon.client.getBlockNumber()
        const swap = await createSwap(bridge, {
            source_chain: 'POLYGON', source_token: 'POL', target_chain: 'NATIVECHAIN', target_token: 'STABLE',
            source_token_amount: 10, target_wallet: account(30).address, refund_address: refundTo,
        })
        const gate = holdEvm('POLYGON', swap.id, 'refund', true)
        await send(polygon, 7, swap.deposit_address, parseUnits('2', 18))
        const row = await storedAndTried(swap.id, 'refund', (r) => gate.swallowed.includes(r.raw))
        await polygon.client.waitForTransactionReceipt({ hash: row.tx_hash as Hash, pollingInterval: 100 })
        await expectUnfinished(swap.id, 'refund')
        await killReleaseAndRestart()

        const refunded = await refundSettled(swap.id)
        expect(refunded.refund_status).to.equal('sent')
        const refunds = await coinTransfers(polygon, polygonVault, refundTo, start)
        expect(refunds.map((r) => r.hash)).to.deep.equal([row.tx_hash])
        expect(await balanceOf(polygon, refundTo)).to.equal(BigInt(refunded.refund_amount))
        expect(refunded.refund_tx_hash).to.equal(row.tx_hash)
        expect((await txRows(swap.id, 'refund')).map((r) => [r.status, r.tx_hash])).to.deep.equal([['confirmed', row.tx_hash]])
    })

    // ---- The provider leg and the BITCOIN payout ----------------------------------------------

    /** BSC USDT → BTC up to our vault's deposit at the exchange: the swap, its leg, the exchange. */
    async function usdtToBtc(providerEvm: Address, hold?: (swapId: string) => void) {
        const user = regtestAddress()
        ss.depositAddressFor = (t) => (t === 'usdt' ? providerEvm : `ssdeposit${randomBytes(8).toString('hex')}`)
        const bsc = w.chains.BSC
        await giveTokens(bsc, 'USDT', account(8).address, parseUnits('100', 18))
        const swap = await createSwap(bridge, {
            source_chain: 'BSC', source_token: 'USDT', target_chain: 'BITCOIN', target_token: 'BTC',
            source_token_amount: '100', target_wallet: user,
        })
        hold?.(swap.id)
        await send(bsc, 8, swap.deposit_address, parseUnits('100', 18), bsc.tokens.USDT)
        await waitForStatus(bridge, swap.id, ['simpleswap_waiting'])
        const { rows } = await pool.query('SELECT * FROM bridge_provider_leg WHERE swap_id = $1', [swap.id])
        return { swap, user, leg: rows[0], exchange: ss.exchanges.get(rows[0].exchange_id)! }
    }

    /** Plays the provider: BTC into our BITCOIN vault for real, the exchange finished. */
    function providerPays(leg: any, exchangeId: string): void {
        const paid = btc.ledger.fund(ss.exchanges.get(exchangeId)!.addressTo, BigInt(leg.expected_out))
        ss.paidOut(exchangeId, paid.txid)
        ss.setStatus(exchangeId, 'finished')
    }

    /** The transactions of the BITCOIN ledger (mempool or chain) paying `address`. */
    const btcPaymentsTo = (address: string) => btc.ledger.historyOf(btc.ledger.scriptOf(address))

    for (const mode of MODES) it(`provider deposit, ${modeText(mode)}: killed with our deposit to the exchange stored, one deposit after the restart`, async function () {
        const bsc = w.chains.BSC
        const providerEvm = account(mode === 'held' ? 27 : 33).address
        const bscVault = await vaultOf(bridge, 'BSC')
        let gate: BroadcastGate | undefined
        const { swap, user, leg, exchange } = await usdtToBtc(providerEvm, (id) => (gate = holdEvm('BSC', id, 'provider_deposit', mode === 'lost')))
        const row = await storedAndTried(swap.id, 'provider_deposit', async (r) =>
            mode === 'held' ? gate!.refused.includes(r.raw) : gate!.swallowed.includes(r.raw) && (await landed(bsc, r.tx_hash)))
        if (mode === 'held') expect(await balanceOf(bsc, providerEvm, bsc.tokens.USDT)).to.equal(0n)
        await killReleaseAndRestart()

        await waitFor('our BSC vault to pay the exchange', async () => (await balanceOf(bsc, providerEvm, bsc.tokens.USDT)) > 0n, 60_000, 200)
        providerPays(leg, exchange.id)
        await waitForStatus(bridge, swap.id, ['completed'])
        expect(await transferAmounts(bsc, bsc.tokens.USDT, bscVault, providerEvm)).to.deep.equal([BigInt(leg.amount_in)])
        expect((await txRows(swap.id, 'provider_deposit')).map((r) => [r.status, r.tx_hash])).to.deep.equal([['confirmed', row.tx_hash]])
        const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
        expect(btcPaymentsTo(user)).to.have.length(1)
        expect(btcBalance(btc, user)).to.equal(locked)
    })

    // ---- Payouts on BITCOIN, TRON and SOLANA ---------------------------------------------------

    for (const mode of MODES) {
        it(`BITCOIN payout, ${modeText(mode)}: killed with the payout stored, one payout in the ledger after the restart`, async function () {
            const { swap, user, leg, exchange } = await usdtToBtc(account(mode === 'held' ? 28 : 31).address)
            const heldFrom = btc.heldBroadcasts.length
            if (mode === 'held') btc.holdBroadcasts = true
            else btc.swallowBroadcasts = true
            providerPays(leg, exchange.id)
            const inLedger = (txid: string) => btc.ledger.mempool.has(txid) || btc.ledger.heightOf(txid) !== undefined
            const row = await storedAndTried(swap.id, 'payout', (r) => (mode === 'held' ? btc.heldBroadcasts.length > heldFrom : inLedger(r.tx_hash)))
            if (mode === 'held') expect(btcPaymentsTo(user)).to.have.length(0)
            await expectUnfinished(swap.id, 'payout')
            await killReleaseAndRestart()

            const done = await waitForStatus(bridge, swap.id, ['completed'])
            const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
            expect(btcPaymentsTo(user).map((p) => p.txid)).to.deep.equal([row.tx_hash])
            expect(btcBalance(btc, user)).to.equal(locked)
            expect(done.payout_tx_hash).to.equal(row.tx_hash)
            expect((await txRows(swap.id, 'payout')).map((r) => r.status)).to.deep.equal(['confirmed'])
        })

        it(`TRON payout, ${modeText(mode)}: killed with the payout stored, one TRC-20 payout in the ledger after the restart`, async function () {
            const native = w.chains.NATIVECHAIN
            const user = TronWeb.address.fromHex('41' + randomBytes(20).toString('hex'))
            const userHex = TronWeb.address.toHex(user).toLowerCase()
            await giveTokens(native, 'STABLE', account(6).address, parseUnits('50', 6))
            const swap = await createSwap(bridge, {
                source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'TRON', target_token: 'USDT',
                source_token_amount: '50', target_wallet: user,
            })
            if (mode === 'held') tron.refuseBroadcasts = true
            else tron.swallowBroadcasts = true
            const callsFrom = tron.calls.length
            await send(native, 6, swap.deposit_address, parseUnits('50', 6), native.tokens.STABLE)
            const row = await storedAndTried(swap.id, 'payout', (r) =>
                mode === 'held' ? tron.calls.slice(callsFrom).includes('/wallet/broadcasttransaction') : tron.ledger.mined(r.tx_hash) !== undefined
            )
            if (mode === 'held') expect(tron.ledger.usdtBalance(user)).to.equal(0n)
            await expectUnfinished(swap.id, 'payout')
            await killReleaseAndRestart()

            const done = await waitForStatus(bridge, swap.id, ['completed'])
            const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
            const payouts = tron.ledger.history(userHex).flatMap((t) => t.tokenTransfers.filter((x) => x.to === userHex).map((x) => ({ txid: t.txid, value: x.value })))
            expect(payouts).to.deep.equal([{ txid: done.payout_tx_hash, value: locked }])
            expect(tron.ledger.usdtBalance(user, true)).to.equal(locked)
            const rows = await txRows(swap.id, 'payout')
            expect(rows.at(-1)!.status).to.equal('confirmed')
            if (mode === 'lost') expect(rows.map((r) => r.tx_hash)).to.deep.equal([row.tx_hash])
            // Held: the stored bytes were sent, unless they expired while the bridge was down and provably could not land.
            else if (rows.length === 1) expect(done.payout_tx_hash).to.equal(row.tx_hash)
            else expect(rows.slice(0, -1).map((r) => r.status)).to.deep.equal(['dead'])
        })

        it(`SOLANA payout, ${modeText(mode)}: killed with the payout stored, one payout in the ledger after the restart`, async function () {
            const native = w.chains.NATIVECHAIN
            const user = Keypair.generate().publicKey.toBase58()
            await giveTokens(native, 'STABLE', account(6).address, parseUnits('30', 6))
            const swap = await createSwap(bridge, {
                source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'SOLANA', target_token: 'SOL',
                source_token_amount: '30', target_wallet: user,
            })
            const heldFrom = sol.heldSends.length
            if (mode === 'held') sol.holdSends = true
            else sol.swallowSends = true
            await send(native, 6, swap.deposit_address, parseUnits('30', 6), native.tokens.STABLE)
            const row = await storedAndTried(swap.id, 'payout', (r) => (mode === 'held' ? sol.heldSends.length > heldFrom : sol.ledger.landed.has(r.tx_hash)))
            if (mode === 'held') expect(sol.ledger.balance(user, 'processed')).to.equal(0)
            await expectUnfinished(swap.id, 'payout')
            await killReleaseAndRestart()

            const done = await waitForStatus(bridge, swap.id, ['completed'])
            const locked = BigInt((await swapRow(swap.id)).locked_target_amount)
            const payouts = [...sol.ledger.landed.values()].filter((l) => l.err === null && l.accountKeys.includes(user))
            expect(payouts.map((p) => p.signature)).to.deep.equal([done.payout_tx_hash])
            expect(BigInt(sol.ledger.balance(user, 'finalized'))).to.equal(locked)
            const rows = await txRows(swap.id, 'payout')
            expect(rows.at(-1)!.status).to.equal('confirmed')
            if (mode === 'lost') expect(rows.map((r) => r.tx_hash)).to.deep.equal([row.tx_hash])
            // Held: the stored bytes were sent, unless their blockhash expired while the bridge was down (then they provably cannot land).
            else if (rows.length === 1) expect(done.payout_tx_hash).to.equal(row.tx_hash)
            else expect(rows.slice(0, -1).map((r) => r.status)).to.deep.equal(['dead'])
        })
    }
})
