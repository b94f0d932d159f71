import { expect } from 'chai'
import * as fs from 'fs'
import { Client } from 'pg'
import { Address, formatUnits, parseUnits } from 'viem'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, balanceOf, BridgeChains, BridgeProcess, bridgeEnv, ChainName, createSwap, eventsOf, fundVaults, giveTokens,
    send, startBridge, startBridgeChains, tempDir, vaultOf, waitForStatus, WsClient,
} from './support'

/** Every status of a completed swap, in order, with the event each writes (docs/bridge/lifecycle.md). */
const COMPLETED_EVENTS = [
    'deposit_wallet_created', 'source_token_deposited', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
    'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent',
]
/** The published swap events (`spec: true` in bridge/webhooks/catalogue.ts), in the order a completed swap writes them. */
const SPEC_ORDER = ['deposit_wallet_created', 'source_token_deposited', 'rate_locked', 'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent']

interface RouteCase {
    source: [ChainName, string]
    target: [ChainName, string]
    amount: string
    decimals: { source: number; target: number }
}

describe('bridge: a swap from deposit to payout on the local EVM chains', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let dir: string
    let databaseUrl: string

    before(async function () {
        databaseUrl = await createTestDatabase('bridge_lifecycle')
        w = await startBridgeChains()
        dir = tempDir()
        bridge = await startBridge(bridgeEnv(w, databaseUrl, dir))
        await fundVaults(w, bridge)
    })

    after(async function () {
        await bridge?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const token = (chain: ChainName, symbol: string): Address | undefined => w.chains[chain].tokens[symbol]

    async function runRoute(c: RouteCase, userIndex: number, targetIndex: number) {
        const user = account(userIndex)
        const receiver = account(targetIndex)
        const [sourceChain, sourceToken] = c.source
        const [targetChain, targetToken] = c.target
        const sourceAmount = parseUnits(c.amount, c.decimals.source)
        if (token(sourceChain, sourceToken)) await giveTokens(w.chains[sourceChain], sourceToken, user.address, sourceAmount)

        const bySwap = await WsClient.connect(bridge.wsUrl)
        const byAddress = await WsClient.connect(bridge.wsUrl)
        const swap = await createSwap(bridge, {
            source_chain: sourceChain, source_token: sourceToken, target_chain: targetChain, target_token: targetToken,
            source_token_amount: Number(c.amount), target_wallet: receiver.address, refund_address: user.address,
        })
        expect(swap.status).to.equal('pending_deposit')
        expect(swap.deposit_address).to.match(/^0x[0-9a-fA-F]{40}$/)
        expect(new Date(swap.expires_at).getTime()).to.be.greaterThan(Date.now())
        bySwap.send({ type: 'subscribe', swap_id: swap.id })
        expect(await bySwap.next((m) => m.type === 'subscribed')).to.deep.equal({ type: 'subscribed', swap_id: swap.id, status: 'pending_deposit' })
        byAddress.send({ type: 'subscribe', address: receiver.address })
        expect((await byAddress.next((m) => m.type === 'subscribed')).address).to.equal(receiver.address.toLowerCase())

        const targetChainClient = w.chains[targetChain]
        const before = await balanceOf(targetChainClient, receiver.address, token(targetChain, targetToken))
        const depositHash = await send(w.chains[sourceChain], userIndex, swap.deposit_address, sourceAmount, token(sourceChain, sourceToken))
        const done = await waitForStatus(bridge, swap.id, ['completed'])
        const after = await balanceOf(targetChainClient, receiver.address, token(targetChain, targetToken))

        // Paid exactly the locked amount, once.
        const locked = parseUnits(done.target_token_amount, c.decimals.target)
        expect(locked > 0n).to.equal(true)
        expect(after - before).to.equal(locked)
        expect(done.amount_sent).to.equal(done.target_token_amount)
        expect(done.deposit_tx_hash).to.equal(depositHash)
        expect(done.deposit_amount).to.equal(c.amount)
        const fee = parseUnits(done.fee_amount, c.decimals.source)
        expect(fee).to.equal((sourceAmount * 250n) / 10_000n)
        const payout = await targetChainClient.client.getTransactionReceipt({ hash: done.payout_tx_hash })
        expect(payout.status).to.equal('success')

        const status = (await api(bridge, 'GET', `/api/swap/${swap.id}/status`)).body
        expect(status).to.deep.equal({ id: swap.id, status: 'completed', deposit_tx_hash: depositHash, payout_tx_hash: done.payout_tx_hash, error_message: null })

        const events = await eventsOf(bridge, swap.id)
        expect(events.map((e) => e.event)).to.deep.equal(COMPLETED_EVENTS)
        expect(events.map((e) => e.event).filter((e) => SPEC_ORDER.includes(e))).to.deep.equal(SPEC_ORDER)
        expect(events.find((e) => e.event === 'source_token_deposited').tx_hash).to.equal(depositHash)
        expect(events.find((e) => e.event === 'vault_locked').tx_hash).to.equal(done.gather_tx_hash)
        expect(events.find((e) => e.event === 'target_token_sent').tx_hash).to.equal(done.payout_tx_hash)
        const times = events.map((e) => new Date(e.timestamp).getTime())
        expect(times).to.deep.equal([...times].sort((a, b) => a - b))

        // The sockets saw every event after they subscribed, in order.
        await bySwap.next((m) => m.type === 'swap_update' && m.event === 'target_token_sent')
        const pushed = bySwap.messages.filter((m) => m.type === 'swap_update')
        expect(pushed.map((m) => m.event)).to.deep.equal(COMPLETED_EVENTS.slice(1))
        expect(pushed.every((m) => m.swap_id === swap.id)).to.equal(true)
        expect(pushed.find((m) => m.event === 'target_token_sent').tx_hash).to.equal(done.payout_tx_hash)
        expect(pushed.at(-1).status).to.equal('completed')
        await byAddress.next((m) => m.type === 'swap_update' && m.event === 'target_token_sent')
        expect(byAddress.messages.filter((m) => m.type === 'swap_update').map((m) => m.event)).to.deep.equal(COMPLETED_EVENTS.slice(1))
        bySwap.close()
        byAddress.close()
        return done
    }

    it('USDT on BSC → NATIVE (pool route through the BSC WNATIVE/USDT pool)', async function () {
        const done = await runRoute({ source: ['BSC', 'USDT'], target: ['NATIVECHAIN', 'NATIVE'], amount: '100', decimals: { source: 18, target: 18 } }, 3, 4)
        expect(done.route.kind).to.equal('pool')
        // 97.5 USDT at about 2,000 USDT per NATIVE.
        expect(Number(done.target_token_amount)).to.be.within(0.048, 0.049)
    })

    it('NATIVE → USDT on ETHEREUM (pool route; USDT with 6 decimals)', async function () {
        const done = await runRoute({ source: ['NATIVECHAIN', 'NATIVE'], target: ['ETHEREUM', 'USDT'], amount: '0.5', decimals: { source: 18, target: 6 } }, 5, 6)
        expect(done.route.kind).to.equal('pool')
        expect(Number(done.target_token_amount)).to.be.within(970, 980)
    })

    it('POL → STABLE (vault route at the reference price)', async function () {
        const done = await runRoute({ source: ['POLYGON', 'POL'], target: ['NATIVECHAIN', 'STABLE'], amount: '40', decimals: { source: 18, target: 6 } }, 7, 8)
        expect(done.route.kind).to.equal('vault')
        // 39 POL × 0.25 USD.
        expect(done.target_token_amount).to.equal('9.75')
    })

    it('20 swaps in flight at once all complete, each paid exactly once', async function () {
        const groups: { c: RouteCase; user: number; receiver: number }[] = [
            { c: { source: ['BSC', 'USDT'], target: ['NATIVECHAIN', 'NATIVE'], amount: '25', decimals: { source: 18, target: 18 } }, user: 3, receiver: 9 },
            { c: { source: ['NATIVECHAIN', 'NATIVE'], target: ['ETHEREUM', 'USDT'], amount: '0.01', decimals: { source: 18, target: 6 } }, user: 5, receiver: 9 },
            { c: { source: ['ETHEREUM', 'ETH'], target: ['POLYGON', 'USDT'], amount: '0.02', decimals: { source: 18, target: 6 } }, user: 6, receiver: 9 },
            { c: { source: ['NATIVECHAIN', 'STABLE'], target: ['BSC', 'WNATIVE'], amount: '30', decimals: { source: 6, target: 18 } }, user: 7, receiver: 9 },
        ]
        const receiver = account(9).address
        for (const g of groups) {
            const [chain, symbol] = g.c.source
            if (token(chain, symbol)) await giveTokens(w.chains[chain], symbol, account(g.user).address, parseUnits(g.c.amount, g.c.decimals.source) * 5n)
        }
        const swaps: { swap: any; g: (typeof groups)[number] }[] = []
        for (const g of groups) {
            for (let i = 0; i < 5; i++) {
                const swap = await createSwap(bridge, {
                    source_chain: g.c.source[0], source_token: g.c.source[1], target_chain: g.c.target[0], target_token: g.c.target[1],
                    source_token_amount: g.c.amount, target_wallet: receiver,
                })
                swaps.push({ swap, g })
            }
        }
        const targets = [...new Set(groups.map((g) => `${g.c.target[0]}:${g.c.target[1]}`))]
        const before = new Map<string, bigint>()
        for (const t of targets) {
            const [chain, symbol] = t.split(':') as [ChainName, string]
            before.set(t, await balanceOf(w.chains[chain], receiver, token(chain, symbol)))
        }
        // All deposits out at once: one sender per group, the four groups in parallel.
        await Promise.all(groups.map(async (g) => {
            for (const { swap } of swaps.filter((s) => s.g === g)) {
                const [chain, symbol] = g.c.source
                await send(w.chains[chain], g.user, swap.deposit_address, parseUnits(g.c.amount, g.c.decimals.source), token(chain, symbol))
            }
        }))
        const done = await Promise.all(swaps.map(({ swap }) => waitForStatus(bridge, swap.id, ['completed'], 300_000)))
        for (const t of targets) {
            const [chain, symbol] = t.split(':') as [ChainName, string]
            const paid = done.filter((d) => d.target_chain === chain && d.target_token === symbol)
                .reduce((sum, d) => sum + parseUnits(d.target_token_amount, groups.find((g) => g.c.target[0] === chain)!.c.decimals.target), 0n)
            expect(await balanceOf(w.chains[chain], receiver, token(chain, symbol)) - before.get(t)!).to.equal(paid)
        }
        expect(new Set(done.map((d) => d.payout_tx_hash)).size).to.equal(20)
        for (const d of done) {
            expect((await eventsOf(bridge, d.id)).map((e) => e.event)).to.deep.equal(COMPLETED_EVENTS)
        }
    })

    it('/metrics: every completed swap timed from its deposit by source chain; vault balances as on chain, nothing reserved once all are paid', async function () {
        const text = await (await fetch(`${bridge.url}/metrics`)).text()
        const value = (name: string, labels: Record<string, string>) => text.split('\n')
            .filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
            .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)))
        const db = new Client({ connectionString: databaseUrl })
        await db.connect()
        const { rows } = await db.query(`SELECT source_chain, count(*)::int AS n FROM bridge_swap WHERE status = 'completed' GROUP BY source_chain`)
        await db.end()
        expect(rows.length).to.be.greaterThan(1)
        for (const { source_chain, n } of rows) {
            // One observation per swap per status it entered after its deposit, by the one process that moved it.
            expect(value('bridge_swap_seconds_since_deposit_count', { status: 'completed', source_chain }), source_chain).to.deep.equal([n])
            expect(value('bridge_swap_seconds_since_deposit_count', { status: 'deposit_confirmed', source_chain }), source_chain).to.deep.equal([n])
        }
        const bscVault = await vaultOf(bridge, 'BSC')
        const usdt = await balanceOf(w.chains.BSC, bscVault, token('BSC', 'USDT'))
        expect(value('bridge_vault_balance', { chain: 'BSC', asset: 'USDT' })).to.deep.equal([Number(formatUnits(usdt, 18))])
        const coin = await balanceOf(w.chains.POLYGON, await vaultOf(bridge, 'POLYGON'))
        expect(value('bridge_vault_balance', { chain: 'POLYGON', asset: 'POL' })).to.deep.equal([Number(formatUnits(coin, 18))])
        expect(value('bridge_vault_reserved', { chain: 'BSC', asset: 'USDT' })).to.deep.equal([0])
        expect(value('bridge_vault_reserved', { chain: 'NATIVECHAIN', asset: 'NATIVE' })).to.deep.equal([0])
    })
})
