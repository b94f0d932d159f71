import { expect } from 'chai'
import * as fs from 'fs'
import { Pool } from 'pg'
import { Address, parseAbiItem, parseUnits } from 'viem'
import { waitFor } from '../../common/processes'
import { createTestDatabase } from '../support/postgres'
import { Fault, RpcProxy } from '../support/rpc-proxy'
import {
    account, api, balanceOf, BridgeChains, BridgeProcess, bridgeEnv, ChainName, createSwap, fundVaults, send,
    startBridge, startBridgeChains, tempDir, TestChain, transferAmounts, vaultOf,
} from './support'

const SWAP_EVENT = parseAbiItem('event Swap(address indexed sender, uint amount0In, uint amount1In, uint amount0Out, uint amount1Out, address indexed to)')

/**
 * The bridge behind faulty nodes: every EVM network is reached through a proxy that plays a public,
 * load-balanced endpoint (test/support/rpc-proxy.ts). Under each fault, for the whole life of two
 * swaps (one that completes: token deposit, gas top-up, gather, pool trade, payout; one that fails
 * and is refunded: coin deposit, gather, refund), each step makes exactly one transfer on chain,
 * no swap fails because of the fault, and a swap either completes under it or once it ends.
 * Transfers are counted on chain, from blocks and logs, never from the bridge's rows.
 */
describe('bridge: node faults never cost a transfer', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let pool: Pool
    let dir: string
    const proxies = {} as Record<ChainName, RpcProxy>
    let userIndex = 10

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_faults')
        w = await startBridgeChains()
        for (const name of Object.keys(w.chains) as ChainName[]) {
            proxies[name] = new RpcProxy(w.chains[name].url)
            await proxies[name].start()
        }
        dir = tempDir()
        bridge = await startBridge({
            ...bridgeEnv(w, databaseUrl, dir),
            RPC_URL: proxies.NATIVECHAIN.url, BSC_RPC_URL: proxies.BSC.url, ETHEREUM_RPC_URL: proxies.ETHEREUM.url, POLYGON_RPC_URL: proxies.POLYGON.url,
            // A stalled request is given up after a second (then retried once, then the step waits).
            BRIDGE_RPC_TIMEOUT_MS: '1000',
            BRIDGE_REFUND_RETRY_SECONDS: '1',
        })
        await fundVaults(w, bridge)
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
    })

    after(async function () {
        await pool?.end()
        await bridge?.stop()
        for (const proxy of Object.values(proxies)) await proxy.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    function setFault(fault: Fault | undefined): void {
        for (const proxy of Object.values(proxies)) {
            if (fault) proxy.fault = fault
            else proxy.heal()
        }
    }

    /** Coin transfers from `from` to `to` in the chain's blocks from `fromBlock` on: transactions with value, and how much each moved. */
    async function coinTransfers(chain: TestChain, from: Address, to: Address, fromBlock: bigint): Promise<bigint[]> {
        const head = await chain.client.getBlockNumber({ cacheTime: 0 })
        const values: bigint[] = []
        for (let n = fromBlock; n <= head; n++) {
            const block = await chain.client.getBlock({ blockNumber: n, includeTransactions: true })
            for (const tx of block.transactions) {
                if (tx.from.toLowerCase() !== from.toLowerCase() || tx.to?.toLowerCase() !== to.toLowerCase() || tx.value === 0n) continue
                const receipt = await chain.client.getTransactionReceipt({ hash: tx.hash })
                if (receipt.status === 'success') values.push(tx.value)
            }
        }
        return values
    }

    /** Waits for a terminal status, under the fault at first, then (if it is not there yet) with the nodes healed. */
    async function settle(id: string, expected: string): Promise<{ swap: any }> {
        const terminal = async () => {
            const { body } = await api(bridge, 'GET', `/api/swap/${id}`)
            if (['completed', 'failed', 'expired'].includes(body.status) && (body.status !== 'failed' || ['sent', 'failed', 'not_requested'].includes(body.refund_status))) return body
            return undefined
        }
        let swap = await waitFor(`swap ${id} under the fault`, terminal, 90_000, 500).catch(() => undefined)
        if (!swap) {
            setFault(undefined)
            swap = await waitFor(`swap ${id} after the fault`, terminal, 120_000, 500).catch((err) => {
                throw new Error(`${err.message}\nbridge output:\n${bridge.output().slice(-5000)}`)
            })
        }
        expect(swap.status, `${swap.error_message}`).to.equal(expected)
        expect(swap.hold).to.equal(null)
        return { swap }
    }

    /** A swap of 1 NATIVE to USDT on ETHEREUM for a fresh receiver, and the ETHEREUM vault that pays it. */
    async function nativeToEthereumUsdt() {
        const receiver = account(userIndex++)
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'ETHEREUM', target_token: 'USDT',
            source_token_amount: '1', target_wallet: receiver.address,
        })
        return { eth: w.chains.ETHEREUM, receiver, vault: await vaultOf(bridge, 'ETHEREUM'), swap }
    }

    const FAULTS: Fault[] = [
        { kind: 'rpc-error', every: 3 },
        { kind: 'rate-limited', every: 3 },
        { kind: 'bad-gateway', every: 3 },
        { kind: 'stall', every: 4 },
        { kind: 'lagging', every: 2, lag: 2 },
        { kind: 'head-back', every: 2, lag: 3 },
        { kind: 'logs-twice', every: 1 },
    ]

    for (const fault of FAULTS) {
        it(`${fault.kind}${fault.every > 1 ? ` on every ${fault.every === 2 ? 'other' : fault.every === 3 ? 'third' : `${fault.every}th`} request` : ''}: one transfer per step, the swap completes, the refund is sent once`, async function () {
            this.timeout(420_000)
            const bsc = w.chains.BSC
            const native = w.chains.NATIVECHAIN
            const polygon = w.chains.POLYGON
            const [bscVault, nativeVault, polygonVault] = await Promise.all([vaultOf(bridge, 'BSC'), vaultOf(bridge, 'NATIVECHAIN'), vaultOf(bridge, 'POLYGON')])
            const receiver = account(userIndex++)
            const refundTo = account(userIndex++)
            const amount = parseUnits('200', 18)
            // Created while the nodes are healthy; everything after the creation happens under the fault.
            const completing = await createSwap(bridge, {
                source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
                source_token_amount: '200', target_wallet: receiver.address, refund_address: refundTo.address,
            })
            const refunded = await createSwap(bridge, {
                source_chain: 'POLYGON', source_token: 'POL', target_chain: 'NATIVECHAIN', target_token: 'STABLE',
                source_token_amount: 10, target_wallet: receiver.address, refund_address: refundTo.address,
            })
            const starts = {
                BSC: await bsc.client.getBlockNumber({ cacheTime: 0 }),
                NATIVECHAIN: await native.client.getBlockNumber({ cacheTime: 0 }),
                POLYGON: await polygon.client.getBlockNumber({ cacheTime: 0 }),
            }
            const nativeBefore = await balanceOf(native, receiver.address)
            const refundBefore = await balanceOf(polygon, refundTo.address)
            setFault(fault)
            try {
                // The users' deposits go to the real nodes; only the bridge sees the faulty endpoints.
                await send(bsc, 0, completing.deposit_address, amount, bsc.tokens.USDT)
                await send(polygon, 0, refunded.deposit_address, parseUnits('1', 18))

                const done = await settle(completing.id, 'completed')
                const failed = await settle(refunded.id, 'failed')
                const faulted = Object.values(proxies).reduce((n, p) => n + (p.faulted.get(fault.kind) ?? 0), 0)
                expect(faulted, 'requests answered with the fault').to.be.greaterThan(0)

                // The completing swap: one gas top-up, one gather, one pool trade, one payout of the locked amount.
                const deposit = completing.deposit_address as Address
                expect(await coinTransfers(bsc, bscVault, deposit, starts.BSC), 'gas top-ups').to.have.length(1)
                expect(await transferAmounts(bsc, bsc.tokens.USDT, deposit, bscVault), 'gathers').to.deep.equal([amount])
                const pair = done.swap.pool_trade.pair_address as Address
                const trades = await bsc.client.getLogs({ address: pair, event: SWAP_EVENT, args: { to: bscVault }, fromBlock: starts.BSC })
                expect(trades, 'pool trades').to.have.length(1)
                const locked = parseUnits(done.swap.target_token_amount, 18)
                expect(await coinTransfers(native, nativeVault, receiver.address, starts.NATIVECHAIN), 'payouts').to.deep.equal([locked])
                expect(await balanceOf(native, receiver.address) - nativeBefore).to.equal(locked)

                // The refunded swap failed for its own reason (below the route's minimum), never for the fault.
                expect(failed.swap.error_message).to.equal("the deposit of 1 POL is outside the route's bounds (5 to 400000)")
                expect(failed.swap.refund_status).to.equal('sent')
                const refundDeposit = refunded.deposit_address as Address
                expect(await coinTransfers(polygon, refundDeposit, polygonVault, starts.POLYGON), 'refund gathers').to.have.length(1)
                const gathered = parseUnits(failed.swap.refund_amount, 18)
                expect(await coinTransfers(polygon, polygonVault, refundTo.address, starts.POLYGON), 'refunds').to.deep.equal([gathered])
                expect(await balanceOf(polygon, refundTo.address) - refundBefore).to.equal(gathered)
            } finally {
                setFault(undefined)
            }
        })
    }

    it('a vault nonce used by a transaction that is not ours: the payout is never signed again, the swap is held for an operator', async function () {
        this.timeout(300_000)
        const { eth, receiver, vault, swap } = await nativeToEthereumUsdt()
        // The payout's broadcasts get no clear answer, so it is stored but never reaches the node.
        proxies.ETHEREUM.fault = { kind: 'rpc-error', every: 1, only: ['eth_sendRawTransaction'] }
        try {
            await send(w.chains.NATIVECHAIN, 0, swap.deposit_address, parseUnits('1', 18))
            const payout = await waitFor('the payout to be stored', async () => {
                const { rows } = await pool.query(`SELECT nonce, tx_hash FROM bridge_tx WHERE swap_id = $1 AND purpose = 'payout'`, [swap.id])
                return rows[0]
            }, 120_000, 250)
            // Someone else (a leaked key, an operator's manual transfer) uses the vault's nonce.
            await eth.client.request({ method: 'anvil_impersonateAccount' as any, params: [vault] as any })
            const other = await eth.client.request({
                method: 'eth_sendTransaction' as any,
                params: [{ from: vault, to: vault, value: '0x0', nonce: `0x${Number(payout.nonce).toString(16)}`, maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' }] as any,
            }) as `0x${string}`
            expect((await eth.client.waitForTransactionReceipt({ hash: other, pollingInterval: 100 })).status).to.equal('success')
            proxies.ETHEREUM.heal()

            const held = await waitFor('the swap to be held', async () => {
                const { body } = await api(bridge, 'GET', `/api/swap/${swap.id}`)
                return body.hold ? body : undefined
            }, 120_000, 500)
            expect(held.status).to.equal('payout_processing')
            expect(held.hold.operator_action_required).to.equal(true)
            expect(held.hold.reason).to.include(`nonce ${payout.nonce}`)
            const events = (await api(bridge, 'GET', `/api/swap/${swap.id}/events`)).body.events
            const event = events.find((e: any) => e.event === 'swap_held')
            expect(event.data).to.include({ operator_action_required: true, tx_hash: payout.tx_hash, purpose: 'payout' })
            // A few more worker passes: still nothing paid, and no second payout signed.
            await new Promise((resolve) => setTimeout(resolve, 3000))
            expect(await transferAmounts(eth, eth.tokens.USDT, vault, receiver.address)).to.deep.equal([])
            const { rows } = await pool.query(`SELECT status FROM bridge_tx WHERE swap_id = $1 AND purpose = 'payout'`, [swap.id])
            expect(rows.map((r) => r.status)).to.deep.equal(['broadcast'])
        } finally {
            proxies.ETHEREUM.heal()
            await eth.client.request({ method: 'anvil_stopImpersonatingAccount' as any, params: [vault] as any }).catch(() => undefined)
        }
    })

    it('a payout whose receipt is missing for a block while the nonce already counts it is paid once (no replacement)', async function () {
        this.timeout(300_000)
        const { eth, receiver, vault, swap } = await nativeToEthereumUsdt()
        // Every receipt of the newest two blocks is missing on the target chain: the old rule (nonce past, no receipt) called it dead.
        proxies.ETHEREUM.fault = { kind: 'receipt-lag', every: 1, lag: 2 }
        try {
            await send(w.chains.NATIVECHAIN, 0, swap.deposit_address, parseUnits('1', 18))
            const done = await settle(swap.id, 'completed')
            const paid = parseUnits(done.swap.target_token_amount, 6)
            expect(await transferAmounts(eth, eth.tokens.USDT, vault, receiver.address)).to.deep.equal([paid])
            const { rows } = await pool.query(`SELECT status FROM bridge_tx WHERE swap_id = $1 AND purpose = 'payout'`, [swap.id])
            expect(rows.map((r) => r.status)).to.deep.equal(['confirmed'])
            expect(proxies.ETHEREUM.faulted.get('receipt-lag') ?? 0).to.be.greaterThan(0)
        } finally {
            proxies.ETHEREUM.heal()
        }
    })
    // Last in the suite: it rewinds the native chain.
    it('a gathered deposit that a reorganisation deeper than the finality rule removed: nothing is paid, the swap is held for an operator', async function () {
        this.timeout(300_000)
        const native = w.chains.NATIVECHAIN
        const polygon = w.chains.POLYGON
        const receiver = account(userIndex++)
        const vault = await vaultOf(bridge, 'POLYGON')
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'POLYGON', target_token: 'USDT',
            source_token_amount: '1', target_wallet: receiver.address,
        })
        const snapshot = await native.client.request({ method: 'evm_snapshot' as any, params: [] as any }) as string
        // The target chain does not answer: the swap stops at vault_locking, after its deposit was gathered.
        proxies.POLYGON.fault = { kind: 'rpc-error', every: 1 }
        try {
            await send(native, 0, swap.deposit_address, parseUnits('1', 18))
            await waitFor('the deposit gathered', async () => {
                const { body } = await api(bridge, 'GET', `/api/swap/${swap.id}`)
                return body.status === 'vault_locking' ? body : undefined
            }, 120_000, 250)
            // The chain is rewound past the deposit and the gather, far deeper than 2 confirmations, and goes on without them.
            await native.client.request({ method: 'evm_revert' as any, params: [snapshot] as any })
            proxies.POLYGON.heal()
            const held = await waitFor('the swap to be held', async () => {
                const { body } = await api(bridge, 'GET', `/api/swap/${swap.id}`)
                return body.hold ? body : undefined
            }, 120_000, 500)
            expect(held.hold.reason).to.equal('the deposit is no longer in the source chain (a reorganisation deeper than its finality rule)')
            expect(held.status).to.equal('vault_locked')
            const events = (await api(bridge, 'GET', `/api/swap/${swap.id}/events`)).body.events
            expect(events.map((e: any) => e.event)).to.include('swap_held')
            expect(events.map((e: any) => e.event)).to.not.include('swap_failed')
            await new Promise((resolve) => setTimeout(resolve, 3000))
            expect(await transferAmounts(polygon, polygon.tokens.USDT, vault, receiver.address)).to.deep.equal([])
            const { rows } = await pool.query(`SELECT 1 FROM bridge_tx WHERE swap_id = $1 AND purpose = 'payout'`, [swap.id])
            expect(rows).to.have.length(0)
        } finally {
            proxies.POLYGON.heal()
        }
    })
})
