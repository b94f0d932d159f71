import { expect } from 'chai'
import * as fs from 'fs'
import { Pool } from 'pg'
import { Address, erc20Abi, Hash, numberToHex, parseEther, parseUnits, PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { waitFor } from '../../common/processes'
import { newWallet, PlatformClient } from '../api/platform/support'
import { ApiProcess, PlatformProcess, startApi, startPlatformProcess } from '../support/api'
import { headHash } from '../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { createTestDatabase } from '../support/postgres'
import { RoundRobinProxy } from '../support/round-robin-proxy'
import {
    account, api, BridgeChains, BridgeProcess, bridgeEnv, ChainName, createSwap, eventsOf, fundVaults, ledgerGuardHolds, send, startBridge, startBridgeChains,
    tempDir, waitForStatus, WsClient,
} from '../bridge/support'
import { Received, Receiver } from '../bridge/webhook-receiver'

/**
 * The production path of docs/production.md on loopback: two api, two platform and two bridge
 * processes on one Postgres and one indexer, each pair behind a round-robin load balancer without
 * sticky sessions (test/support/round-robin-proxy.ts), so a client's requests and sockets land on
 * both replicas. What is claimed for replicas is checked where it shows: sockets on either replica
 * see every event, payouts and wallet nonces on chain, webhook requests at the receiver.
 */

const ADMIN = { authorization: 'Bearer test-bridge-admin-token-0123456789' }
const PWD = 'replicas-password'
const SOCKETS = 4
/** The events of a completed swap, in order (docs/bridge/lifecycle.md): each once, however many replicas watched it. */
const COMPLETED = [
    'deposit_wallet_created', 'source_token_deposited', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
    'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent',
]

/** The Transfer logs of `token` to `to`, from any sender: how many times `to` was paid. */
async function transfersTo(client: PublicClient, token: Address, to: Address): Promise<bigint[]> {
    const logs = await client.getLogs({
        address: token,
        event: erc20Abi.find((e) => e.type === 'event' && e.name === 'Transfer') as any,
        args: { to } as any,
        fromBlock: 0n,
    })
    return logs.map((l: any) => l.args.value as bigint)
}

/** The sum of a Prometheus metric's series that carry `label` (name="value") in a /metrics text. */
function sumOf(metrics: string, name: string, label: string): number {
    return metrics.split('\n')
        .filter((l) => l.startsWith(`${name}{`) && l.slice(0, l.indexOf('}')).split(/[{,]/).includes(label))
        .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)
}

describe('replicas: two api, two platform and two bridge processes behind round-robin load balancers', function () {
    this.timeout(900_000)
    let w: BridgeChains
    let databaseUrl: string
    let pool: Pool
    let indexer: IndexerProcess
    let apis: ApiProcess[] = []
    let platforms: PlatformProcess[] = []
    let bridges: BridgeProcess[] = []
    const proxies: RoundRobinProxy[] = []
    let apiLb: RoundRobinProxy
    let platformLb: RoundRobinProxy
    let bridgeLb: RoundRobinProxy
    let dir: string

    const native = () => w.chains.NATIVECHAIN
    const balancer = async (urls: string[]) => {
        const proxy = new RoundRobinProxy(urls)
        await proxy.start()
        proxies.push(proxy)
        return proxy
    }

    before(async function () {
        ;[databaseUrl, w] = await Promise.all([createTestDatabase('replicas'), startBridgeChains()])
        dir = tempDir()
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
        indexer = startIndexer({ databaseUrl, rpcUrl: native().url, contracts: w.native })
        await waitForIndexedBlock(databaseUrl, await headHash(native().client), indexer, 300_000)
        const service = { databaseUrl, rpcUrl: native().url, contracts: w.native, env: { TRUST_PROXY: '1' } }
        const bridge = {
            ...bridgeEnv(w, databaseUrl, dir),
            TRUST_PROXY: '1',
            BRIDGE_WEBHOOK_ALLOW_PRIVATE: 'true',
            // The swaps take longer than the default minute of silence a socket is allowed.
            BRIDGE_WS_IDLE_SECONDS: '900',
        }
        ;[apis, platforms, bridges] = await Promise.all([
            Promise.all([startApi(service), startApi(service)]),
            Promise.all([startPlatformProcess(service), startPlatformProcess(service)]),
            Promise.all([startBridge(bridge), startBridge(bridge)]),
        ])
        apiLb = await balancer(apis.map((a) => a.explorerUrl))
        platformLb = await balancer(platforms.map((p) => p.platformUrl))
        bridgeLb = await balancer(bridges.map((b) => b.url))
        await fundVaults(w, bridges[0])
    })

    after(async function () {
        await Promise.allSettled(proxies.map((p) => p.stop()))
        await Promise.allSettled([...apis, ...platforms, ...bridges].map((p) => p.stop()))
        await indexer?.stop()
        await pool?.end()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    it('every api replica pushes every new block to its live-update sockets', async function () {
        const url = `${apiLb.url.replace(/^http/, 'ws')}/socket/v2/websocket?vsn=2.0.0`
        const clients = await Promise.all(Array.from({ length: SOCKETS }, () => WsClient.connect(url)))
        expect(apiLb.upgrades).to.deep.equal([SOCKETS / 2, SOCKETS / 2])
        for (const c of clients) {
            c.send(['1', '1', 'blocks:new_block', 'phx_join', {}])
            expect((await c.next((f) => f[3] === 'phx_reply'))[4]).to.deep.equal({ status: 'ok', response: {} })
        }
        // Every block committed from here on is pushed by both replicas (the chain mines one a second).
        const { rows: [{ last }] } = await pool.query(`SELECT last_block AS last FROM chain_counters WHERE id = 'chain'`)
        const heights = [last + 1, last + 2, last + 3]
        const pushed = (c: WsClient, height: number) => c.messages.filter((f) => f[3] === 'new_block' && f[4].block.height === height)
        for (const c of clients) await c.next((f) => f[3] === 'new_block' && f[4].block.height === heights[2], 60_000)
        for (const height of heights) {
            const block = await native().client.getBlock({ blockNumber: BigInt(height) })
            for (const c of clients) expect(pushed(c, height).map((f) => f[4].block.hash)).to.deep.equal([block.hash])
        }
        for (const c of clients) c.close()
    })

    it('sends from one platform wallet through both replicas: all mined, nonces contiguous, balances exact', async function () {
        const N = 20
        const http = new PlatformClient(platformLb.url)
        const wallet = await newWallet(http, 'replicas', PWD)
        await native().client.request({ method: 'anvil_setBalance' as any, params: [wallet, numberToHex(parseEther('100'))] as any })
        const recipient = privateKeyToAccount(generatePrivateKey()).address
        // One read per replica first, so each has checked the password before the burst.
        for (let i = 0; i < 2; i++) expect((await http.get(`/api/wallet/balance/${wallet}`, { user_id: 'replicas' }, PWD)).status).to.equal(200)
        const walletBefore = await native().client.getBalance({ address: wallet })
        const nonceBefore = await native().client.getTransactionCount({ address: wallet })
        const amounts = Array.from({ length: N }, (_, i) => parseEther(`0.${String(i + 1).padStart(3, '0')}`))
        const sentBefore = [...platformLb.requests]

        const replies = await Promise.all(amounts.map((amount, i) =>
            http.post('/api/wallet/send', { address_from: wallet, token: 'NATIVE', amount: `0.${String(i + 1).padStart(3, '0')}`, address_to: recipient }, PWD)))

        expect(platformLb.requests.map((n, i) => n - sentBefore[i])).to.deep.equal([N / 2, N / 2])
        for (const r of replies) expect(r.status, JSON.stringify(r.body)).to.equal(200)
        const hashes = replies.map((r) => r.body.hash as Hash)
        expect(new Set(hashes).size).to.equal(N)
        const txs = await Promise.all(hashes.map((hash) => native().client.getTransaction({ hash })))
        const receipts = await Promise.all(hashes.map((hash) => native().client.getTransactionReceipt({ hash })))
        expect(receipts.every((r) => r.status === 'success')).to.equal(true)
        expect(txs.map((t) => t.nonce).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: N }, (_, i) => nonceBefore + i))
        expect(await native().client.getTransactionCount({ address: wallet })).to.equal(nonceBefore + N)
        // Each transfer once: the recipient holds exactly their sum, the wallet lost exactly that and the fees.
        const total = amounts.reduce((s, a) => s + a, 0n)
        expect(txs.map((t) => t.value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).to.deep.equal(amounts)
        expect(await native().client.getBalance({ address: recipient })).to.equal(total)
        const fees = receipts.reduce((s, r) => s + r.gasUsed * r.effectiveGasPrice, 0n)
        expect(await native().client.getBalance({ address: wallet })).to.equal(walletBefore - total - fees)
    })

    it('a platform replica killed amid sends from one wallet: the other lands everything stored, nonces stay contiguous', async function () {
        const N = 30
        const http = new PlatformClient(platformLb.url)
        const wallet = await newWallet(http, 'replicas-crash', PWD)
        await native().client.request({ method: 'anvil_setBalance' as any, params: [wallet, numberToHex(parseEther('100'))] as any })
        const recipient = privateKeyToAccount(generatePrivateKey()).address
        for (let i = 0; i < 2; i++) expect((await http.get(`/api/wallet/balance/${wallet}`, { user_id: 'replicas-crash' }, PWD)).status).to.equal(200)
        const nonceBefore = await native().client.getTransactionCount({ address: wallet })
        const stored = async (statuses: string[]) => (await pool.query(
            'SELECT tx_hash, nonce, status FROM platform_tx WHERE from_address = $1 AND status = ANY($2) ORDER BY nonce', [wallet.toLowerCase(), statuses]
        )).rows

        const replies = Promise.all(Array.from({ length: N }, (_, i) =>
            http.post('/api/wallet/send', { address_from: wallet, token: 'NATIVE', amount: `0.${String(i + 1).padStart(3, '0')}`, address_to: recipient }, PWD)))
        // SIGKILL while the burst is being signed: the dead replica's requests fail, what it stored stays.
        await waitFor('some of the sends stored', async () => (await stored(['signed', 'broadcast', 'confirmed'])).length >= 4, 60_000, 10)
        platforms[0].process.kill('SIGKILL')
        const answered = await replies
        await waitFor('every stored send followed to its end by the surviving replica', async () => (await stored(['signed', 'broadcast'])).length === 0, 120_000, 250)

        // Nothing stored was lost or doubled: each landed once, at the next nonce.
        const rows = await stored(['signed', 'broadcast', 'confirmed', 'reverted', 'rejected', 'dead'])
        expect(rows.map((r) => r.status)).to.deep.equal(rows.map(() => 'confirmed'))
        expect(rows.map((r) => Number(r.nonce))).to.deep.equal(rows.map((_, i) => nonceBefore + i))
        expect(await native().client.getTransactionCount({ address: wallet })).to.equal(nonceBefore + rows.length)
        const txs = await Promise.all(rows.map((r) => native().client.getTransaction({ hash: r.tx_hash })))
        expect(txs.map((t) => t.nonce)).to.deep.equal(rows.map((r) => Number(r.nonce)))
        expect(await native().client.getBalance({ address: recipient })).to.equal(txs.reduce((sum, t) => sum + t.value, 0n))
        // Every send answered 200 is among them; the survivor answered all of its share.
        const ok = answered.filter((r) => r.status === 200)
        expect(ok.length).to.be.at.least(N / 2)
        expect(rows.map((r) => r.tx_hash)).to.include.members(ok.map((r) => r.body.hash))
    })

    describe('bridge swaps created through the load balancer', function () {
        /** The four swaps, each paying USDT to a fresh address on its target chain. */
        const routes: { target: ChainName; from: number }[] = [
            { target: 'ETHEREUM', from: 5 }, { target: 'POLYGON', from: 6 }, { target: 'BSC', from: 7 }, { target: 'ETHEREUM', from: 8 },
        ]
        let viaLb: BridgeProcess
        let swaps: { id: string; target: ChainName; recipient: Address; done: any; events: any[] }[]
        let sockets: WsClient[]
        let receiver: Receiver
        let subscription: any
        const HOOK = '/replicas'

        before(async function () {
            viaLb = { ...bridges[0], url: bridgeLb.url, output: () => bridges.map((b) => b.output()).join('\n----\n') }
            receiver = new Receiver()
            await receiver.start()
            const created = await api(viaLb, 'POST', '/api/webhook/subscriptions', { url: receiver.url(HOOK) }, ADMIN)
            expect(created.status, JSON.stringify(created.body)).to.equal(201)
            subscription = created.body

            const recipients = routes.map(() => privateKeyToAccount(generatePrivateKey()).address)
            const made = []
            for (const [i, r] of routes.entries()) {
                made.push(await createSwap(viaLb, {
                    source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: r.target, target_token: 'USDT',
                    source_token_amount: '0.5', target_wallet: recipients[i], refund_address: account(r.from).address,
                }))
            }
            // Every socket follows every swap before any deposit: each must then see each swap's whole history after its creation.
            sockets = await Promise.all(Array.from({ length: SOCKETS }, () => WsClient.connect(`${bridgeLb.url.replace(/^http/, 'ws')}/ws`)))
            for (const s of sockets) {
                for (const swap of made) {
                    s.send({ type: 'subscribe', swap_id: swap.id })
                    expect(await s.next((m) => m.type === 'subscribed' && m.swap_id === swap.id)).to.include({ status: 'pending_deposit' })
                }
            }
            await Promise.all(made.map((swap, i) => send(native(), routes[i].from, swap.deposit_address, parseUnits('0.5', 18))))
            const done = await Promise.all(made.map((swap) => waitForStatus(viaLb, swap.id, ['completed'], 300_000)))
            swaps = await Promise.all(made.map(async (swap, i) => ({
                id: swap.id, target: routes[i].target, recipient: recipients[i], done: done[i], events: await eventsOf(viaLb, swap.id),
            })))
        })

        after(async function () {
            for (const s of sockets ?? []) s.close()
            await receiver?.stop()
        })

        it('complete, each payout made exactly once on chain', async function () {
            expect(bridgeLb.requests.every((n) => n > 0)).to.equal(true)
            for (const s of swaps) {
                const chain = w.chains[s.target]
                const paid = await transfersTo(chain.client, chain.tokens.USDT, s.recipient)
                const decimals = s.target === 'BSC' ? 18 : 6
                expect(paid, `${s.target} payout of ${s.id}`).to.deep.equal([parseUnits(s.done.amount_sent, decimals)])
                expect(s.events.map((e) => e.event)).to.deep.equal(COMPLETED)
                expect(s.events.find((e) => e.event === 'target_token_sent').tx_hash).to.equal(s.done.payout_tx_hash)
            }
            // Two processes signing from the same vaults in turn never look to the ledger guard like an unknown transaction.
            expect(await ledgerGuardHolds(pool), 'ledger guard holds').to.deep.equal([])
        })

        it('push every status event of every swap, in order, to every socket on either replica', async function () {
            expect(bridgeLb.upgrades).to.deep.equal([SOCKETS / 2, SOCKETS / 2])
            for (const socket of sockets) {
                for (const s of swaps) {
                    // Subscribed after deposit_wallet_created, before the deposit: every later event, once, in order.
                    const expected = s.events.slice(1)
                    await socket.next((m) => m.type === 'swap_update' && m.swap_id === s.id && m.event === 'target_token_sent')
                    const pushed = socket.messages.filter((m) => m.type === 'swap_update' && m.swap_id === s.id)
                    expect(pushed.map((m) => [m.event_id, m.event, m.status])).to.deep.equal(expected.map((e) => [e.id, e.event, e.status]))
                }
            }
        })

        it('deliver every event to the webhook, a delivery again only after a failed attempt', async function () {
            const history = await waitFor('every delivery delivered', async () => {
                const res = await api(viaLb, 'GET', `/api/webhook/subscriptions/${subscription.id}/deliveries?limit=200`, undefined, ADMIN)
                const items = res.body.items as any[]
                const expected = swaps.reduce((n, s) => n + s.events.length, 0)
                return items.length === expected && items.every((d) => d.state === 'delivered') ? items : undefined
            }, 120_000, 250)
            const received = receiver.on(HOOK)
            const bodies = received.map((r) => JSON.parse(r.raw.toString()))
            for (const s of swaps) {
                const got = new Set(bodies.filter((b) => b.swap_id === s.id).map((b) => `${b.event}@${b.timestamp}`))
                expect([...got].sort()).to.deep.equal(s.events.map((e) => `${e.event}@${e.timestamp}`).sort())
            }
            // At least once (docs/bridge/webhooks.md#delivery): a delivery is sent again only after an attempt that failed.
            const byDelivery = (id: string) => received.filter((r: Received) => r.headers['x-bridge-delivery'] === id).length
            for (const d of history) {
                expect(byDelivery(d.id), `requests of delivery ${d.id}`).to.equal(d.attempts)
                const failedBefore = d.history.slice(0, -1).filter((a: any) => a.status === null || a.status < 200 || a.status > 299)
                expect(failedBefore, `attempts of ${d.id} before the last`).to.have.length(d.attempts - 1)
            }
            expect(received).to.have.length(history.reduce((n, d) => n + d.attempts, 0))
            // Each replica counts only the attempts it made: together, every request the receiver got.
            const metrics = await Promise.all(bridges.map(async (b) => (await fetch(`${b.url}/metrics`)).text()))
            const delivered = metrics.map((m) => sumOf(m, 'bridge_webhook_deliveries_total', 'outcome="delivered"'))
            expect(delivered.reduce((a, b) => a + b, 0)).to.equal(history.length)
        })
    })
})
