import { expect } from 'chai'
import { randomBytes } from 'crypto'
import * as fs from 'fs'
import { Pool } from 'pg'
import { Address, formatUnits, parseUnits } from 'viem'
import { waitFor } from '../../common/processes'
import type { EsploraServer } from '../../devnet/bitcoin/esplora'
import { SimpleSwapServer } from '../../devnet/provider/server'
import type { SolanaNode } from '../../devnet/solana/server'
import type { TronNode } from '../../devnet/tron/server'
import { TronWeb } from 'tronweb'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, balanceOf, BridgeChains, bridgeEnv, BridgeProcess, btcBalance, createSwap, eventsOf, ExternalNetworks, externalNetworksEnv,
    fundExternalVaults, fundVaults, regtestAddress, send, startBridge, startBridgeChains, startExternalNetworks, tempDir, vaultOf, waitForStatus,
} from './support'

/**
 * The non-EVM networks and the provider leg end to end, through the bridge's HTTP API: the BITCOIN
 * adapter against an Esplora double, the SOLANA adapter against LiteSVM behind a JSON-RPC front
 * end, the TRON adapter against a TronGrid / full-node double, and the SimpleSwap double as the
 * external provider, next to the four anvils of the EVM networks. The doubles' chains move on their
 * own (a Bitcoin block every 400 ms, a Solana slot every 100 ms, a TRON block every second, its
 * clock an hour behind so that its 3-second blocks never run past a deposit window), as the anvils
 * do; the test plays the provider's side of an exchange: it watches our vault's deposit arrive at
 * the exchange's address and pays the exchange's output into our vault on BSC.
 */
describe('bridge: BITCOIN, TRON, SOLANA and the external provider leg, end to end', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let btc: EsploraServer
    let ss: SimpleSwapServer
    let sol: SolanaNode
    let tron: TronNode
    let pool: Pool
    let dir: string
    let databaseUrl: string
    let networks: ExternalNetworks | undefined

    before(async function () {
        databaseUrl = await createTestDatabase('bridge_networks')
        ;[w, networks, ss] = await Promise.all([startBridgeChains(), startExternalNetworks(), new SimpleSwapServer().start()])
        ;({ btc, sol, tron } = networks)
        ss.setPair(['btc', 'btc'], ['usdt', 'bsc'], { rate: '89000', min: '0.0005', max: '5' })
        ss.setPair(['usdt', 'bsc'], ['btc', 'btc'], { rate: '0.0000109', min: '20', max: null })
        dir = tempDir()
        bridge = await startBridge(networkEnv())
        await fundVaults(w, bridge)
        await fundExternalVaults(bridge, networks)
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
    })

    after(async function () {
        await pool?.end()
        await bridge?.stop()
        await Promise.allSettled([w?.stop(), networks?.stop(), ss?.stop()])
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    function networkEnv(overrides: Record<string, string> = {}): Record<string, string> {
        return {
            ...bridgeEnv(w, databaseUrl, dir),
            ...externalNetworksEnv(networks!, ss),
            ...overrides,
        }
    }

    /** Creates BTC → NATIVE, deposits, and waits until our vault has paid the exchange; the exchange's id and amounts. */
    async function btcSwapAtProvider(btcAmount: string, refund = true) {
        const user = account(7).address
        const refundAddress = regtestAddress()
        // Where the provider double takes this exchange's BTC: an address of the regtest chain the test can watch.
        const providerBtc = regtestAddress()
        ss.depositAddressFor = (t) => (t === 'btc' ? providerBtc : `ssdeposit${randomBytes(8).toString('hex')}`)
        const swap = await createSwap(bridge, {
            source_chain: 'BITCOIN', source_token: 'BTC', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
            source_token_amount: btcAmount, target_wallet: user, ...(refund ? { refund_address: refundAddress } : {}),
        })
        expect(swap.deposit_address).to.match(/^bcrt1q[02-9ac-hj-np-z]{38}$/)
        btc.ledger.fund(swap.deposit_address, parseUnits(btcAmount, 8))
        await waitForStatus(bridge, swap.swap_id, ['simpleswap_waiting'])
        const { rows } = await pool.query('SELECT * FROM bridge_provider_leg WHERE swap_id = $1', [swap.swap_id])
        const leg = rows[0]
        const exchange = [...ss.exchanges.values()].find((e) => e.id === leg.exchange_id)!
        expect(exchange.addressTo).to.equal(await vaultOf(bridge, 'BSC'))
        expect(exchange.userRefundAddress).to.equal(await vaultOf(bridge, 'BITCOIN' as any))
        expect(exchange.addressFrom).to.equal(providerBtc)
        // Our BITCOIN vault sends exactly the leg's input to the exchange's deposit address.
        await waitFor('our vault to pay the exchange', async () => btcBalance(btc, providerBtc) === BigInt(leg.amount_in), 60_000, 200)
        return { swap, user, refundAddress, exchange, leg }
    }

    async function walk(id: string, swapId: string, statuses: string[]): Promise<void> {
        for (const status of statuses) {
            ss.setStatus(id, status)
            await waitForStatus(bridge, swapId, [`simpleswap_${status}`, ...(status === 'finished' ? ['vault_locking', 'vault_locked', 'payout_processing', 'completed'] : [])])
        }
    }

    it('BTC → NATIVE: the provider converts BTC into USDT in our BSC vault, and the vault route pays NATIVE', async function () {
        const { swap, user, exchange, leg } = await btcSwapAtProvider('0.01')
        await walk(exchange.id, swap.swap_id, ['confirming', 'exchanging', 'sending'])
        // The provider's payout, made for real: USDT (18 decimals on BSC) into our BSC vault.
        const bsc = w.chains.BSC
        const amountTo = formatUnits(BigInt(leg.expected_out), 18)
        const txTo = await send(bsc, 0, await vaultOf(bridge, 'BSC') as Address, BigInt(leg.expected_out), bsc.tokens.USDT)
        ss.paidOut(exchange.id, txTo, amountTo)
        const before = await balanceOf(w.chains.NATIVECHAIN, user)
        await walk(exchange.id, swap.swap_id, ['finished'])
        const done = await waitForStatus(bridge, swap.swap_id, ['completed'])
        const events = (await eventsOf(bridge, swap.swap_id)).map((e) => e.event)
        expect(events).to.deep.equal([
            'deposit_wallet_created', 'source_token_deposited', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
            'simpleswap_waiting', 'simpleswap_confirming', 'simpleswap_exchanging', 'simpleswap_sending', 'simpleswap_finished',
            'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent',
        ])
        const { rows } = await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [swap.swap_id])
        expect(await balanceOf(w.chains.NATIVECHAIN, user) - before).to.equal(BigInt(rows[0].locked_target_amount))
        const finished = (await eventsOf(bridge, swap.swap_id)).find((e) => e.event === 'vault_locking')
        expect(finished.tx_hash.toLowerCase()).to.equal(txTo.toLowerCase())
        expect(done.payout_tx_hash).to.match(/^0x[0-9a-f]{64}$/)
    })

    it('BSC USDT → BTC: our BSC vault pays the provider, which pays BTC into our BITCOIN vault, which pays the user', async function () {
        const user = regtestAddress()
        const providerEvm = account(11).address
        ss.depositAddressFor = (t) => (t === 'usdt' ? providerEvm : `ssdeposit${randomBytes(8).toString('hex')}`)
        const bsc = w.chains.BSC
        const swap = await createSwap(bridge, {
            source_chain: 'BSC', source_token: 'USDT', target_chain: 'BITCOIN', target_token: 'BTC',
            source_token_amount: '100', target_wallet: user,
        })
        const usdtBefore = await balanceOf(bsc, providerEvm, bsc.tokens.USDT)
        await send(bsc, 0, swap.deposit_address, parseUnits('100', 18), bsc.tokens.USDT)
        await waitForStatus(bridge, swap.swap_id, ['simpleswap_waiting'])
        const { rows } = await pool.query('SELECT * FROM bridge_provider_leg WHERE swap_id = $1', [swap.swap_id])
        const leg = rows[0]
        expect(leg).to.include({ side: 'target', sell_chain: 'BSC', sell_token: 'USDT', buy_chain: 'BITCOIN', buy_token: 'BTC' })
        const exchange = ss.exchanges.get(leg.exchange_id)!
        expect(exchange.addressTo).to.equal(await vaultOf(bridge, 'BITCOIN' as any))
        // 97.5 USDT after the 2.5% fee leave our BSC vault for the exchange.
        await waitFor('our BSC vault to pay the exchange', async () => (await balanceOf(bsc, providerEvm, bsc.tokens.USDT)) - usdtBefore === BigInt(leg.amount_in), 60_000, 200)
        expect(BigInt(leg.amount_in)).to.equal(parseUnits('97.5', 18))
        // The provider pays BTC into our BITCOIN vault, for real.
        const paid = btc.ledger.fund(exchange.addressTo, BigInt(leg.expected_out))
        ss.paidOut(exchange.id, paid.txid)
        await walk(exchange.id, swap.swap_id, ['finished'])
        const done = await waitForStatus(bridge, swap.swap_id, ['completed'])
        const { rows: locked } = await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [swap.swap_id])
        // 97.5 USDT at the provider's 0.0000109 BTC per USDT: 0.00106275 BTC, paid whole to the user.
        expect(BigInt(locked[0].locked_target_amount)).to.equal(106_275n)
        expect(btcBalance(btc, user)).to.equal(106_275n)
        expect(done.payout_tx_hash).to.match(/^[0-9a-f]{64}$/)
    })

    it('a provider that refunds ends the swap failed with its reason and refunds the BTC deposit from our vault', async function () {
        const { swap, exchange, refundAddress } = await btcSwapAtProvider('0.02')
        // The provider returns the deposit to our vault (userRefundAddress), for real.
        btc.ledger.fund(exchange.userRefundAddress, parseUnits(exchange.amountFrom, 8))
        ss.setStatus(exchange.id, 'refunded')
        const failed = await waitForStatus(bridge, swap.swap_id, ['failed'])
        expect(failed.error_message).to.equal('external swap provider refunded the exchange')
        await waitFor('the refund to be sent', async () => (await api(bridge, 'GET', `/api/swap/${swap.swap_id}`)).body.refund_status === 'sent', 60_000, 250)
        const events = (await eventsOf(bridge, swap.swap_id)).map((e) => e.event)
        expect(events).to.include.members(['simpleswap_waiting', 'simpleswap_refunded', 'swap_failed', 'refund_sent'])
        const { rows } = await pool.query('SELECT gathered_amount, refund_amount FROM bridge_swap WHERE id = $1', [swap.swap_id])
        expect(BigInt(rows[0].refund_amount)).to.equal(BigInt(rows[0].gathered_amount))
        expect(btcBalance(btc, refundAddress)).to.equal(BigInt(rows[0].refund_amount))
    })

    it('a provider that fails the exchange after our deposit reached it ends the swap failed, its refund held for an operator', async function () {
        const { swap, exchange, refundAddress } = await btcSwapAtProvider('0.015')
        ss.setStatus(exchange.id, 'failed')
        const failed = await waitForStatus(bridge, swap.swap_id, ['failed'])
        expect(failed.error_message).to.match(/^external swap provider failed the exchange/)
        const { rows } = await pool.query('SELECT refund_status, refund_error FROM bridge_swap WHERE id = $1', [swap.swap_id])
        // The BTC is at the provider, not in our vault: nothing is paid from the vault's own stock.
        expect(rows[0]).to.deep.equal({ refund_status: 'failed', refund_error: 'the external swap provider holds the deposit; an operator must claim its refund' })
        expect(btcBalance(btc, refundAddress)).to.equal(0n)
    })

    it('SOL → STABLE: a deposit seen at the finalized commitment, gathered to zero, STABLE paid from the native vault', async function () {
        const user = account(8).address
        const swap = await createSwap(bridge, {
            source_chain: 'SOLANA', source_token: 'SOL', target_chain: 'NATIVECHAIN', target_token: 'STABLE',
            source_token_amount: '1', target_wallet: user,
        })
        sol.ledger.fund(swap.deposit_address, 1_000_000_000n)
        const before = await balanceOf(w.chains.NATIVECHAIN, user, w.chains.NATIVECHAIN.tokens.STABLE)
        await waitForStatus(bridge, swap.swap_id, ['completed'])
        const events = (await eventsOf(bridge, swap.swap_id)).map((e) => e.event)
        expect(events).to.deep.equal([
            'deposit_wallet_created', 'source_token_deposited', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
            'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent',
        ])
        // 1 SOL less the 2.5% fee at SOL = 150 USD: 146.25 STABLE (6 decimals).
        expect(await balanceOf(w.chains.NATIVECHAIN, user, w.chains.NATIVECHAIN.tokens.STABLE) - before).to.equal(146_250_000n)
        expect(sol.ledger.balance(swap.deposit_address, 'processed')).to.equal(0)
    })

    it('NATIVE → USDT on TRON: the payout is a TRC-20 transfer from the TRON vault, final once solidified', async function () {
        const user = TronWeb.address.fromHex('41' + randomBytes(20).toString('hex'))
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'TRON', target_token: 'USDT',
            source_token_amount: '2', target_wallet: user,
        })
        await send(w.chains.NATIVECHAIN, 3, swap.deposit_address, parseUnits('2', 18))
        const done = await waitForStatus(bridge, swap.swap_id, ['completed'])
        const { rows } = await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [swap.swap_id])
        expect(tron.ledger.usdtBalance(user, true)).to.equal(BigInt(rows[0].locked_target_amount))
        expect(tron.ledger.mined(done.payout_tx_hash, true), 'the payout is in a solidified block').to.not.equal(undefined)
        const events = (await eventsOf(bridge, swap.swap_id)).map((e) => e.event)
        expect(events.slice(-4)).to.deep.equal(['vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent'])
    })

    it('TRX → NATIVE: a TRX deposit seen through TronGrid, swept to the TRON vault, NATIVE paid out', async function () {
        const user = account(10).address
        const swap = await createSwap(bridge, {
            source_chain: 'TRON', source_token: 'TRX', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
            source_token_amount: '100', target_wallet: user,
        })
        expect(TronWeb.isAddress(swap.deposit_address)).to.equal(true)
        const before = await balanceOf(w.chains.NATIVECHAIN, user)
        const deposit = tron.ledger.fundTrx(swap.deposit_address, 100_000_000n)
        const done = await waitForStatus(bridge, swap.swap_id, ['completed'])
        expect(done.deposit_tx_hash).to.equal(deposit)
        const { rows } = await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [swap.swap_id])
        expect(await balanceOf(w.chains.NATIVECHAIN, user) - before).to.equal(BigInt(rows[0].locked_target_amount))
        // Swept whole: the deposit address keeps nothing (its free bandwidth paid the sweep).
        expect(tron.ledger.trxBalance(swap.deposit_address)).to.equal(0n)
    })

    it('TRON USDT → POLYGON USDT: the vault tops the deposit address up with TRX for energy, then sweeps the USDT', async function () {
        const user = account(12).address
        const polygon = w.chains.POLYGON
        const swap = await createSwap(bridge, {
            source_chain: 'TRON', source_token: 'USDT', target_chain: 'POLYGON', target_token: 'USDT',
            source_token_amount: '200', target_wallet: user,
        })
        const before = await balanceOf(polygon, user, polygon.tokens.USDT)
        tron.ledger.fundUsdt(swap.deposit_address, 200_000_000n)
        await waitForStatus(bridge, swap.swap_id, ['completed'])
        // 200 USDT less the 2.5% fee, 1:1 across chains (6 decimals on both).
        expect(await balanceOf(polygon, user, polygon.tokens.USDT) - before).to.equal(195_000_000n)
        expect(tron.ledger.usdtBalance(swap.deposit_address)).to.equal(0n)
        // The top-up is recorded with its cost, as a transaction of the swap.
        const { rows } = await pool.query(`SELECT purpose, asset, amount, status FROM bridge_tx WHERE swap_id = $1 ORDER BY id`, [swap.swap_id])
        expect(rows.map((r) => `${r.purpose}:${r.asset}`)).to.deep.equal(['gather_gas:TRX', 'gather:USDT', 'payout:USDT'])
        expect(BigInt(rows[0].amount) > 0n, `top-up of ${rows[0].amount} sun`).to.equal(true)
    })

    it('a deposit sent on the wrong network is not detected; the one on the swap\'s network is', async function () {
        const swap = await createSwap(bridge, {
            source_chain: 'ETHEREUM', source_token: 'USDT', target_chain: 'POLYGON', target_token: 'USDT',
            source_token_amount: '10', target_wallet: account(9).address,
        })
        // The same address exists on every EVM chain: USDT sent to it on POLYGON is not this swap's deposit.
        await send(w.chains.POLYGON, 0, swap.deposit_address, 10_000_000n, w.chains.POLYGON.tokens.USDT)
        await new Promise((r) => setTimeout(r, 4000))
        expect((await api(bridge, 'GET', `/api/swap/${swap.swap_id}`)).body.status).to.equal('pending_deposit')
        const hash = await send(w.chains.ETHEREUM, 0, swap.deposit_address, 10_000_000n, w.chains.ETHEREUM.tokens.USDT)
        const detected = await waitForStatus(bridge, swap.swap_id, ['deposit_detected', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered', 'vault_locking', 'vault_locked', 'payout_processing', 'completed'])
        expect(detected.deposit_tx_hash).to.equal(hash)
    })

    it('refuses at creation an address of another network, for every network', async function () {
        const base = { source_token_amount: '1' }
        const cases: [Record<string, string>, string][] = [
            // BITCOIN (regtest here): mainnet and testnet bech32, an EVM address, a broken checksum.
            [{ source_chain: 'BSC', source_token: 'USDT', target_chain: 'BITCOIN', target_token: 'BTC', source_token_amount: '100', target_wallet: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' }, 'target_wallet'],
            [{ source_chain: 'BSC', source_token: 'USDT', target_chain: 'BITCOIN', target_token: 'BTC', source_token_amount: '100', target_wallet: account(1).address }, 'target_wallet'],
            [{ source_chain: 'BITCOIN', source_token: 'BTC', target_chain: 'NATIVECHAIN', target_token: 'NATIVE', source_token_amount: '0.01', target_wallet: account(1).address, refund_address: 'tb1qcr8te4kr609gcawutmrza0j4xv80jy8z3x3lsv' }, 'refund_address'],
            // SOLANA: an EVM address, base58 of 31 bytes, a Bitcoin address.
            [{ source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'SOLANA', target_token: 'SOL', target_wallet: account(1).address }, 'target_wallet'],
            [{ source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'SOLANA', target_token: 'SOL', target_wallet: '1111111111111111111111111111111' }, 'target_wallet'],
            [{ source_chain: 'SOLANA', source_token: 'SOL', target_chain: 'NATIVECHAIN', target_token: 'NATIVE', target_wallet: account(1).address, refund_address: regtestAddress() }, 'refund_address'],
            // TRON: hex form, a broken checksum, an EVM address.
            [{ source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'TRON', target_token: 'USDT', target_wallet: '41a614f803b6fd780986a42c78ec9c7f77e6ded13c' }, 'target_wallet'],
            [{ source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'TRON', target_token: 'USDT', target_wallet: 'TR7NHqjeKQxGTCi8q8ZEAxsrtrdXFtZPro' }, 'target_wallet'],
            [{ source_chain: 'TRON', source_token: 'TRX', target_chain: 'NATIVECHAIN', target_token: 'NATIVE', source_token_amount: '100', target_wallet: account(1).address, refund_address: account(2).address }, 'refund_address'],
            // EVM: a wrong EIP-55 checksum, a Solana address, a Bitcoin address.
            [{ source_chain: 'SOLANA', source_token: 'SOL', target_chain: 'NATIVECHAIN', target_token: 'NATIVE', target_wallet: account(1).address.replace(/[a-f]/, (c) => c.toUpperCase()).replace(/[A-F](?=[^A-F]*$)/, (c) => c.toLowerCase()) }, 'target_wallet'],
            [{ source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'USDT', target_wallet: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk' }, 'target_wallet'],
            [{ source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'BSC', target_token: 'USDT', target_wallet: regtestAddress() }, 'target_wallet'],
        ]
        for (const [body, field] of cases) {
            const res = await api(bridge, 'POST', '/api/swap', { ...base, ...body })
            expect(res.status, JSON.stringify(body)).to.equal(400)
            expect(res.body.error?.field ?? res.body.field, JSON.stringify(res.body)).to.equal(field)
        }
    })

    it('raises a route\'s minimum deposit to 4x the network fees of the swap (a TRC-20 sweep burns TRX for energy)', async function () {
        const body = {
            source_chain: 'TRON', source_token: 'USDT', target_chain: 'POLYGON', target_token: 'USDT', target_wallet: account(1).address,
        }
        // The registry's minimum is 1 USDT; gathering TRC-20 USDT costs a few dollars of TRX at the double's energy price.
        const res = await api(bridge, 'POST', '/api/swap', { ...body, source_token_amount: '2' })
        expect(res.status).to.equal(400)
        expect(res.body.error).to.include({ code: 'amount_out_of_range', field: 'source_token_amount' })
        expect(res.body.error.message).to.match(/^source_token_amount: must be from (\d+(\.\d+)?) to 100000 USDT \(the minimum is 4× the network fees of the swap right now\)$/)
        const minimum = Number(/from ([\d.]+)/.exec(res.body.error.message)![1])
        expect(minimum).to.be.greaterThan(2)
        expect((await api(bridge, 'POST', '/api/swap', { ...body, source_token_amount: String(Math.ceil(minimum)) })).status).to.equal(201)
    })

    it('answers 503 for a provider route when no provider is configured, and lists the route disabled', async function () {
        const other = await startBridge(networkEnv({ SIMPLESWAP_API_KEY: '' }))
        try {
            const res = await api(other, 'POST', '/api/swap', {
                source_chain: 'BITCOIN', source_token: 'BTC', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
                source_token_amount: '0.01', target_wallet: account(1).address,
            })
            expect(res.status).to.equal(503)
            expect(JSON.stringify(res.body)).to.match(/feature not configured: the external swap provider/)
            const config = (await api(other, 'GET', '/api/swap/config')).body
            const route = config.routes.find((r: any) => r.source_chain === 'BITCOIN' && r.target_token === 'NATIVE')
            expect(route).to.include({ kind: 'provider', enabled: false })
            // Routes served from our own vaults are not affected.
            expect(config.routes.find((r: any) => r.source_chain === 'SOLANA' && r.target_token === 'STABLE')).to.include({ enabled: true })
        } finally {
            await other.stop()
        }
    })
})
