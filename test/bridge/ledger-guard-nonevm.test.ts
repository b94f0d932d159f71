import { Keypair } from '@solana/web3.js'
import * as bitcoin from 'bitcoinjs-lib'
import { expect } from 'chai'
import { randomBytes } from 'crypto'
import * as fs from 'fs'
import { Pool } from 'pg'
import { TronWeb } from 'tronweb'
import { ChainAdapter } from '../../bridge/chains/adapter'
import { createAdapter } from '../../bridge/chains/factory'
import { allAssets, Asset, BridgeConfig, loadBridgeConfig, parseBridgeEnv } from '../../bridge/config'
import { KeyManager } from '../../bridge/keys'
import { createLogger } from '../../common/logger'
import { waitFor } from '../../common/processes'
import type { EsploraServer } from '../../devnet/bitcoin/esplora'
import type { SolanaNode } from '../../devnet/solana/server'
import type { TronNode } from '../../devnet/tron/server'
import { FaultProxy, ProxiedRequest } from '../support/fault-proxy'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, BridgeChains, bridgeEnv, BridgeProcess, createSwap, eventsOf, ExternalNetworks, fundVaults, giveTokens, ledgerGuardHolds,
    parseUnits, send, startBridge, startBridgeChains, startExternalNetworks, tempDir, transferAmounts, txRows, vaultOf, waitForStatus,
} from './support'

type Guarded = 'BITCOIN' | 'TRON' | 'SOLANA'
const GUARDED: Guarded[] = ['BITCOIN', 'TRON', 'SOLANA']

/**
 * The ledger guard on the chains without account nonces (docs/bridge/lifecycle.md#vault-holds),
 * with the real bridge process and the BITCOIN (Esplora), TRON (TronGrid) and SOLANA (LiteSVM)
 * doubles behind a pass-through proxy that can fail the guard's history read: transfers into a
 * vault hold nothing; a failing history read delays the payout and holds nothing; a send signed
 * with the vault's key that the ledger never stored (another user of the key, or a payout signed
 * after the point a database was restored to) holds that vault and every payout from it, other
 * chains go on, and once an operator releases the vault and the swaps each swap is paid once.
 */
describe('bridge: the ledger guard on BITCOIN, TRON and SOLANA vaults', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let btc: EsploraServer
    let sol: SolanaNode
    let tron: TronNode
    let networks: ExternalNetworks | undefined
    const proxies = {} as Record<Guarded, FaultProxy>
    const vaults = {} as Record<Guarded, string>
    /** The same keys and adapters as the bridge's, in the test: what another user of the vault key holds. */
    const outside = {} as Record<Guarded, ChainAdapter>
    let config: BridgeConfig
    let pool: Pool
    let dir: string
    let user = 40

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_ledger_guard_nonevm')
        ;[w, networks] = await Promise.all([startBridgeChains(), startExternalNetworks()])
        ;({ btc, sol, tron } = networks)
        proxies.BITCOIN = await new FaultProxy(btc.url).start()
        proxies.SOLANA = await new FaultProxy(sol.url).start()
        proxies.TRON = await new FaultProxy(tron.url).start()
        dir = tempDir()
        const env: Record<string, string> = {
            ...bridgeEnv(w, databaseUrl, dir),
            BITCOIN_NETWORK: 'regtest',
            BITCOIN_ESPLORA_URL: proxies.BITCOIN.url,
            SOLANA_RPC_URL: proxies.SOLANA.url,
            TRON_API_URL: proxies.TRON.url,
            // BTC from our own vault, not through the external provider.
            BRIDGE_PROVIDER_ASSETS: ',',
        }
        bridge = await startBridge(env)
        await fundVaults(w, bridge)
        for (const chain of GUARDED) vaults[chain] = await vaultOf(bridge, chain as any)
        // Transfers into each vault (an operator's funding): not sends.
        sol.ledger.fund(vaults.SOLANA, 10_000_000_000n)
        btc.ledger.fund(vaults.BITCOIN, 10_000_000n)
        tron.ledger.fundTrx(vaults.TRON, 50_000_000_000n)
        tron.ledger.fundUsdt(vaults.TRON, 1_000_000_000_000n)
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
        config = loadBridgeConfig(parseBridgeEnv({ ...env, BITCOIN_ESPLORA_URL: btc.url, SOLANA_RPC_URL: sol.url, TRON_API_URL: tron.url }))
        const keys = new KeyManager(pool, env.MASTER_KEY)
        await keys.init(['bitcoin', 'tron', 'solana'])
        for (const chain of GUARDED) {
            outside[chain] = await createAdapter(config.networks[chain]!, keys, createLogger('test'))
            expect(await outside[chain].deriveAddress({ kind: 'vault' })).to.equal(vaults[chain])
        }
        // The funding is read at the networks' finality, as the bridge reads its vaults before taking a swap.
        for (const chain of GUARDED) {
            const payout = allAssets(config).find((a) => a.chain === chain && a.symbol === target[chain])!
            await waitFor(`the ${chain} vault's funding to be final`, async () => (await outside[chain].balance(vaults[chain], payout)) > 0n, 60_000, 200)
        }
    })

    after(async function () {
        await pool?.end()
        await bridge?.stop()
        await Promise.allSettled([w?.stop(), networks?.stop(), ...Object.values(proxies).map((p) => p.stop())])
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const coin = (chain: Guarded): Asset => allAssets(config).find((a) => a.chain === chain && a.kind === 'coin')!
    const target = { BITCOIN: 'BTC', TRON: 'USDT', SOLANA: 'SOL' }
    const receiverOn = (chain: Guarded): string => chain === 'BITCOIN'
        ? bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!
        : chain === 'SOLANA' ? Keypair.generate().publicKey.toBase58() : TronWeb.address.fromHex('41' + randomBytes(20).toString('hex'))
    /** What a receiver holds on the chain (base units): everything it holds came from our vault. */
    const paidTo = (chain: Guarded, receiver: string): bigint => chain === 'BITCOIN'
        ? btc.ledger.unspentOf(btc.ledger.scriptOf(receiver)).reduce((s, o) => s + o.value, 0n)
        : chain === 'SOLANA' ? BigInt(sol.ledger.balance(receiver, 'processed')) : tron.ledger.usdtBalance(receiver)
    const lockedOf = async (id: string) => BigInt((await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [id])).rows[0].locked_target_amount)
    const openHolds = async () => (await pool.query(`SELECT chain, address, unknown_txs FROM bridge_vault_hold WHERE released_at IS NULL ORDER BY chain`)).rows

    /** A swap of 60 STABLE on the native chain to the chain's payout asset, deposited; its receiver. */
    async function depositedSwap(chain: Guarded | 'POLYGON'): Promise<{ swap: any; receiver: string }> {
        const native = w.chains.NATIVECHAIN
        const from = user++
        const receiver = chain === 'POLYGON' ? account(100 + from).address : receiverOn(chain)
        await giveTokens(native, 'STABLE', account(from).address, parseUnits('60', 6))
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: chain, target_token: chain === 'POLYGON' ? 'USDT' : target[chain],
            source_token_amount: '60', target_wallet: receiver,
        })
        await send(native, from, swap.deposit_address, parseUnits('60', 6), native.tokens.STABLE)
        return { swap, receiver }
    }

    /** One deposited swap to each guarded chain, one after the other (the native chain's faucet signs each in turn). */
    async function swapsOnEach(): Promise<{ swap: any; receiver: string }[]> {
        const swaps = []
        for (const chain of GUARDED) swaps.push(await depositedSwap(chain))
        return swaps
    }

    /** The guard's read of the vault's history, as each node double is asked it. */
    function historyRead(chain: Guarded): (r: ProxiedRequest) => boolean {
        const vault = vaults[chain]
        if (chain === 'BITCOIN') return (r) => r.path.startsWith(`/address/${vault}/txs`)
        if (chain === 'TRON') return (r) => r.path.startsWith(`/v1/accounts/${vault}/transactions?`) && r.path.includes('only_from=true')
        return (r) => r.body.includes('getSignaturesForAddress') && r.body.includes(vault)
    }

    async function paidOnce(chain: Guarded, id: string, receiver: string): Promise<void> {
        await waitForStatus(bridge, id, ['completed'], 180_000)
        expect(paidTo(chain, receiver), `${chain} receiver`).to.equal(await lockedOf(id))
        expect((await txRows(pool, id, 'payout')).map((r) => r.status), `${chain} payout rows`).to.have.length(1)
    }

    it('transfers into the vaults hold nothing: a payout from each vault is paid once', async function () {
        // A stranger's deposit into each vault, besides the operator's funding.
        sol.ledger.fund(vaults.SOLANA, 1_000_000_000n)
        btc.ledger.fund(vaults.BITCOIN, 1_000_000n)
        tron.ledger.fundTrx(vaults.TRON, 1_000_000n)
        const swaps = await swapsOnEach()
        for (const [i, chain] of GUARDED.entries()) await paidOnce(chain, swaps[i].swap.id, swaps[i].receiver)
        // Each vault's later payout was checked against its earlier one, now on the node: still nothing held.
        const again = await swapsOnEach()
        for (const [i, chain] of GUARDED.entries()) await paidOnce(chain, again[i].swap.id, again[i].receiver)
        expect(await ledgerGuardHolds(pool)).to.deep.equal([])
    })

    it('a node that fails the history read delays the payouts, holds nothing, and each is paid once when it answers', async function () {
        for (const chain of GUARDED) {
            proxies[chain].failed = 0
            proxies[chain].fails = historyRead(chain)
        }
        try {
            const swaps = await swapsOnEach()
            // Each payout asked the guard at least twice, and the read failed each time: nothing signed.
            await waitFor('the history reads to fail', async () => GUARDED.every((c) => proxies[c].failed >= 2), 120_000, 250)
            for (const [i, chain] of GUARDED.entries()) {
                expect(await txRows(pool, swaps[i].swap.id, 'payout'), chain).to.deep.equal([])
                expect((await api(bridge, 'GET', `/api/swap/${swaps[i].swap.id}`)).body.hold, chain).to.equal(null)
            }
            expect(await ledgerGuardHolds(pool)).to.deep.equal([])
            for (const chain of GUARDED) proxies[chain].fails = undefined
            for (const [i, chain] of GUARDED.entries()) await paidOnce(chain, swaps[i].swap.id, swaps[i].receiver)
            expect(await ledgerGuardHolds(pool)).to.deep.equal([])
        } finally {
            for (const chain of GUARDED) proxies[chain].fails = undefined
        }
    })

    it('a send from each vault the ledger never stored holds that vault and its payouts, other chains go on; released by an operator, each swap is paid once', async function () {
        // Another user of each vault's key signs and broadcasts a transfer the bridge never stored.
        const unknown = {} as Record<Guarded, string>
        const amounts = { BITCOIN: 100_000n, TRON: 1_000_000n, SOLANA: 10_000_000n }
        for (const chain of GUARDED) {
            const signed = await outside[chain].signTransfer({ from: { kind: 'vault' }, to: receiverOn(chain), asset: coin(chain), amount: amounts[chain] }, [])
            expect((await outside[chain].broadcast(signed.raw)).kind, chain).to.equal('accepted')
            unknown[chain] = signed.hash
        }
        // Listed by each node: mined on TRON (TronGrid lists blocks), confirmed on SOLANA, in the mempool on BITCOIN.
        await waitFor('the unknown sends to be listed', async () => {
            for (const chain of GUARDED) if (!(await outside[chain].sentTransactions!(vaults[chain], 50)).includes(unknown[chain])) return false
            return true
        }, 60_000, 250)

        const swaps = await swapsOnEach()
        const polygonSwap = await depositedSwap('POLYGON')
        const reasons = {} as Record<Guarded, string>
        for (const [i, chain] of GUARDED.entries()) {
            const held = await waitFor(`the ${chain} payout held`, async () => {
                const { body } = await api(bridge, 'GET', `/api/swap/${swaps[i].swap.id}`)
                return body.hold ? body : undefined
            }, 120_000, 250)
            expect(held.hold.reason).to.include(`the ${chain} vault ${vaults[chain]} has sent 1 transaction(s) the bridge's ledger does not know (${unknown[chain]})`)
            reasons[chain] = held.hold.reason
            const event = (await eventsOf(bridge, swaps[i].swap.id)).find((e: any) => e.event === 'swap_held')
            expect(event.data).to.deep.include({ chain, vault: vaults[chain], vault_held: true, unknown_txs: [unknown[chain]] })
            expect(await txRows(pool, swaps[i].swap.id, 'payout')).to.deep.equal([])
            expect(paidTo(chain, swaps[i].receiver)).to.equal(0n)
        }
        expect(await openHolds()).to.deep.equal(GUARDED.slice().sort().map((chain) => ({ chain, address: vaults[chain], unknown_txs: [unknown[chain]] })))
        // The POLYGON vault is not held: its payout goes out.
        await waitForStatus(bridge, polygonSwap.swap.id, ['completed'], 180_000)
        const polygon = w.chains.POLYGON
        expect(await transferAmounts(polygon, polygon.tokens.USDT, await vaultOf(bridge, 'POLYGON'), polygonSwap.receiver as any)).to.deep.equal([await lockedOf(polygonSwap.swap.id)])
        expect(bridge.output().match(/vault held for an operator/g)).to.have.length(3)

        // The operator finds the unknown sends paid no swap, releases the vaults, then the swaps.
        await pool.query(`UPDATE bridge_vault_hold SET released_at = now() WHERE released_at IS NULL`)
        await pool.query(`UPDATE bridge_swap SET hold_reason = NULL, held_at = NULL WHERE id = ANY($1)`, [swaps.map((s) => s.swap.id)])
        // The unknown sends are still among each vault's newest: accounted for now, they hold nothing.
        for (const [i, chain] of GUARDED.entries()) await paidOnce(chain, swaps[i].swap.id, swaps[i].receiver)
        expect(await openHolds()).to.deep.equal([])
        for (const chain of GUARDED) expect((await outside[chain].sentTransactions!(vaults[chain], 50)), chain).to.include(unknown[chain])
    })
})
