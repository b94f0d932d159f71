import { expect } from 'chai'
import * as fs from 'fs'
import { Pool } from 'pg'
import { Webhook } from 'standardwebhooks'
import { parseUnits } from 'viem'
import { writeEvent } from '../../bridge/engine/lifecycle'
import { loadSwap } from '../../bridge/store/swaps'
import { waitFor } from '../../common/processes'
import { inTransaction } from '../../db/transaction'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, BridgeChains, BridgeProcess, bridgeEnv, createSwap, fundVaults, giveTokens, send, startBridge, startBridgeChains,
    tempDir, waitForStatus,
} from './support'
import { bridgeSignatureValid, Received, Receiver } from './webhook-receiver'

/**
 * Webhooks end to end: the real bridge process (lib/bridge/main.js) against the local chains and
 * Postgres, delivering to a real HTTP receiver on loopback. Events come from the engine itself:
 * swaps created through the API (deposit_wallet_created), one real swap driven to completion, and
 * further events written with the engine's own writeEvent. The retry schedule runs 2,000 times
 * faster (BRIDGE_WEBHOOK_TIME_SCALE=0.0005: first retry after 15 ms); the 10 s timeout is real.
 * Assertions are on order, counts and recorded schedules, never on measured durations.
 */

const ADMIN_TOKEN = 'test-bridge-admin-token-0123456789'
const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` }
const SCALE = 0.0005
/** The published swap events (`spec: true` in bridge/webhooks/catalogue.ts), in the order a completed swap writes them. */
const SPEC_ORDER = ['deposit_wallet_created', 'source_token_deposited', 'rate_locked', 'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent']

const admin = (bridge: BridgeProcess, method: string, route: string, body?: unknown, headers: Record<string, string> = AUTH) =>
    api(bridge, method, `/api/webhook${route}`, body, headers)

async function subscribe(bridge: BridgeProcess, body: Record<string, unknown>): Promise<any> {
    const res = await admin(bridge, 'POST', '/subscriptions', body)
    if (res.status !== 201) throw new Error(`subscription creation answered ${res.status}: ${JSON.stringify(res.body)}`)
    return res.body
}

async function history(bridge: BridgeProcess, subscriptionId: string, query = ''): Promise<any[]> {
    const res = await admin(bridge, 'GET', `/subscriptions/${subscriptionId}/deliveries?limit=200${query}`)
    expect(res.status, JSON.stringify(res.body)).to.equal(200)
    return res.body.items
}

async function waitHistory(bridge: BridgeProcess, subscriptionId: string, what: string, done: (items: any[]) => boolean, timeoutMs = 60_000): Promise<any[]> {
    let last: any[] = []
    return waitFor(what, async () => {
        last = await history(bridge, subscriptionId)
        return done(last) ? last : undefined
    }, timeoutMs, 50).catch((err) => {
        throw new Error(`${err.message}; history: ${JSON.stringify(last).slice(0, 3000)}\nbridge output:\n${bridge.output().slice(-3000)}`)
    })
}

const swapBody = () => ({
    source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
    source_token_amount: 100, target_wallet: account(4).address, refund_address: account(3).address,
})

/** A swap created through the API: its deposit_wallet_created event is the first lifecycle event. */
async function newSwap(bridge: BridgeProcess): Promise<string> {
    return (await createSwap(bridge, swapBody())).id
}

/** Lifecycle events written with the engine's own function, in one transaction (as a transition does). */
async function emit(pool: Pool, swapId: string, events: (string | { event: string; txHash?: string; data?: Record<string, unknown> })[]): Promise<void> {
    const swap = await loadSwap(pool, swapId)
    await inTransaction(pool, async (client) => {
        for (const e of events) await writeEvent(client, swap!, typeof e === 'string' ? { event: e } : e)
    })
}

const header = (r: Received, name: string) => r.headers[name.toLowerCase()] as string

describe('bridge webhooks: delivery through the real bridge process', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let pool: Pool
    let env: Record<string, string>
    let receiver: Receiver
    const dirs: string[] = []
    let path = 0
    /** A fresh receiver path per use, so each test counts only its own requests. */
    const nextPath = () => `/hook-${++path}`

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_webhooks')
        w = await startBridgeChains()
        const dir = tempDir()
        dirs.push(dir)
        env = {
            ...bridgeEnv(w, databaseUrl, dir),
            BRIDGE_WEBHOOK_ALLOW_PRIVATE: 'true',
            BRIDGE_WEBHOOK_TIME_SCALE: String(SCALE),
            // 1 h scaled = 1.8 s of failing, and 3 events given up.
            BRIDGE_WEBHOOK_DISABLE_AFTER_HOURS: '1',
            BRIDGE_WEBHOOK_DISABLE_AFTER_EVENTS: '3',
        }
        bridge = await startBridge(env)
        // Swap creation refuses what the target vault cannot pay: the vaults hold what the swaps may need.
        await fundVaults(w, bridge)
        pool = new Pool({ connectionString: databaseUrl, max: 4 })
        receiver = new Receiver()
        await receiver.start()
    })

    afterEach(async function () {
        // Every test starts without subscriptions, so events of one never reach another's.
        if (!bridge) return
        const list = await admin(bridge, 'GET', '/subscriptions')
        for (const s of list.body.items ?? []) await admin(bridge, 'DELETE', `/subscriptions/${s.id}`)
        receiver.respond = () => ({ status: 200 })
    })

    after(async function () {
        await bridge?.stop()
        await pool?.end()
        await receiver?.stop()
        await w?.stop()
        for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
    })

    describe('admin API', function () {
        let strict: BridgeProcess
        let open: BridgeProcess
        let strictPool: Pool

        before(async function () {
            // Another database: a bridge that refuses private targets, and one with no admin token.
            const databaseUrl = await createTestDatabase('bridge_webhooks_strict')
            const dir = tempDir()
            dirs.push(dir)
            const base = bridgeEnv(w, databaseUrl, dir)
            strict = await startBridge(base)
            await fundVaults(w, strict)
            const { BRIDGE_ADMIN_TOKEN: _omitted, ...withoutToken } = base
            open = await startBridge(withoutToken)
            strictPool = new Pool({ connectionString: databaseUrl, max: 2 })
        })

        after(async function () {
            await strict?.stop()
            await open?.stop()
            await strictPool?.end()
        })

        it('answers 503 on every management route when no admin token is configured; event-types stays public', async function () {
            const id = '00000000-0000-4000-8000-000000000000'
            for (const [method, route] of [
                ['POST', '/subscriptions'], ['GET', '/subscriptions'], ['GET', `/subscriptions/${id}`], ['PATCH', `/subscriptions/${id}`],
                ['DELETE', `/subscriptions/${id}`], ['POST', `/subscriptions/${id}/rotate-secret`], ['POST', `/subscriptions/${id}/test`],
                ['GET', `/subscriptions/${id}/deliveries`], ['POST', `/retry/${id}`],
            ]) {
                const res = await admin(open, method, route, method === 'POST' || method === 'PATCH' ? { url: 'https://example.com/' } : undefined)
                expect(res.status, `${method} ${route}`).to.equal(503)
                expect(res.body.error.code).to.equal('not_configured')
                expect(res.body.error.message).to.match(/BRIDGE_ADMIN_TOKEN/)
            }
            const types = await api(open, 'GET', '/api/webhook/event-types')
            expect(types.status).to.equal(200)
        })

        it('answers 401 without a token and with a wrong one (any length), 200 with the right one', async function () {
            for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong' }, { authorization: `Bearer ${ADMIN_TOKEN}x` }, { authorization: `Basic ${ADMIN_TOKEN}` }, { authorization: ADMIN_TOKEN }]) {
                const res = await admin(bridge, 'GET', '/subscriptions', undefined, headers)
                expect(res.status, JSON.stringify(headers)).to.equal(401)
                expect(res.body.error.code).to.equal('unauthorized')
                expect(res.headers.get('www-authenticate')).to.match(/^Bearer/)
            }
            expect((await admin(bridge, 'GET', '/subscriptions')).status).to.equal(200)
            expect((await admin(bridge, 'GET', '/subscriptions', undefined, { authorization: `bearer ${ADMIN_TOKEN}` })).status).to.equal(200)
        })

        it('lists every published event type with its meaning, without a token', async function () {
            const res = await api(bridge, 'GET', '/api/webhook/event-types')
            expect(res.status).to.equal(200)
            const names = res.body.event_types.map((e: any) => e.name)
            expect(names).to.include.members(['deposit_wallet_created', 'source_token_deposited', 'rate_locked', 'vault_locking', 'vault_locked',
                'payout_processing', 'target_token_sent', 'swap_failed', 'swap_expired', 'simpleswap_*', 'test_ping'])
            expect(res.body.event_types.every((e: any) => typeof e.meaning === 'string' && e.meaning.length > 0)).to.equal(true)
        })

        it('returns the secret once, stores it only sealed, and refuses bad input with a 400 naming the field', async function () {
            const created = await subscribe(bridge, { url: receiver.url(nextPath()), description: 'ops', event_types: ['vault_*', 'swap_failed'] })
            expect(created.secret).to.match(/^whsec_/)
            expect(created).to.include({ active: true, method: 'POST', description: 'ops', failure_count: 0, failed_events: 0 })
            expect(created.event_types).to.deep.equal(['vault_*', 'swap_failed'])
            const one = await admin(bridge, 'GET', `/subscriptions/${created.id}`)
            expect(one.body).to.not.have.property('secret')
            expect(one.body.deliveries).to.deep.equal({ pending: 0, delivered: 0, undelivered: 0 })
            const list = await admin(bridge, 'GET', '/subscriptions')
            expect(JSON.stringify(list.body)).to.not.include(created.secret)
            // A dump of every webhook table does not contain the secret, in text or in bytes.
            for (const table of ['bridge_webhook_subscription', 'bridge_webhook_secret']) {
                const { rows } = await pool.query(`SELECT row_to_json(t)::text AS row, t::text AS raw FROM ${table} t`)
                for (const r of rows) {
                    expect(r.row).to.not.include(created.secret)
                    expect(r.raw).to.not.include(Buffer.from(created.secret).toString('hex'))
                }
            }

            const bad: [unknown, string, string?][] = [
                [{}, 'url'],
                [{ url: 'ftp://example.com/' }, 'url'],
                [{ url: 'not a url' }, 'url'],
                [{ url: 'https://u:p@example.com/' }, 'url'],
                [{ url: receiver.url(), event_types: [] }, 'event_types'],
                [{ url: receiver.url(), event_types: ['vault_lockd'] }, 'event_types'],
                [{ url: receiver.url(), event_types: 'vault_locked' }, 'event_types'],
                [{ url: receiver.url(), method: 'GET' }, 'method'],
                [{ url: receiver.url(), description: 7 }, 'description'],
                [{ url: receiver.url(), description: 'a\u0000b' }, 'description'],
                [{ url: receiver.url(), secret: 'mine' }, 'secret'],
                [[1, 2], 'body'],
            ]
            for (const [body, field] of bad) {
                const res = await admin(bridge, 'POST', '/subscriptions', body)
                expect(res.status, JSON.stringify(body)).to.equal(400)
                expect(res.body.error.field, JSON.stringify(body)).to.equal(field)
            }
            const broken = await admin(bridge, 'POST', '/subscriptions', '{"url": ')
            expect(broken.status).to.equal(400)
            expect(broken.body.error.code).to.equal('invalid_json')
            const text = await admin(bridge, 'POST', '/subscriptions', 'url=x', { ...AUTH, 'content-type': 'text/plain' })
            expect(text.status).to.equal(415)
            expect((await admin(bridge, 'GET', '/subscriptions/nope')).status).to.equal(400)
            expect((await admin(bridge, 'GET', '/subscriptions/00000000-0000-4000-8000-000000000000')).status).to.equal(404)
            expect((await admin(bridge, 'PATCH', `/subscriptions/${created.id}`, {})).status).to.equal(400)
            expect((await admin(bridge, 'PATCH', `/subscriptions/${created.id}`, { active: 'yes' })).body.error.field).to.equal('active')
            expect((await admin(bridge, 'GET', `/subscriptions/${created.id}/deliveries?failed=maybe`)).status).to.equal(400)
            expect((await admin(bridge, 'POST', `/subscriptions/${created.id}/rotate-secret`, { grace_seconds: -1 })).status).to.equal(400)
            expect((await admin(bridge, 'POST', '/retry/123')).status).to.equal(400)
            expect((await admin(bridge, 'POST', '/retry/00000000-0000-4000-8000-000000000000')).status).to.equal(404)
        })

        it('PATCH changes only the fields sent', async function () {
            const created = await subscribe(bridge, { url: receiver.url('/a'), description: 'first', event_types: ['rate_locked'] })
            const patched = await admin(bridge, 'PATCH', `/subscriptions/${created.id}`, { description: 'second' })
            expect(patched.status).to.equal(200)
            expect(patched.body).to.include({ url: receiver.url('/a'), description: 'second', method: 'POST', active: true })
            expect(patched.body.event_types).to.deep.equal(['rate_locked'])
            const more = await admin(bridge, 'PATCH', `/subscriptions/${created.id}`, { event_types: null, method: 'PUT', url: receiver.url('/b') })
            expect(more.body).to.include({ url: receiver.url('/b'), description: 'second', method: 'PUT' })
            expect(more.body.event_types).to.equal(null)
            const paused = await admin(bridge, 'PATCH', `/subscriptions/${created.id}`, { active: false })
            expect(paused.body).to.include({ active: false, description: 'second' })
            expect(paused.body.disabled_reason).to.match(/operator/)
        })

        it('refuses loopback, private and link-local destinations at registration and on PATCH', async function () {
            const refused = ['http://127.0.0.1:9/x', 'http://localhost:9/x', 'http://10.1.2.3/', 'http://192.168.0.10/', 'http://169.254.169.254/latest/meta-data',
                'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/', 'https://100.64.1.1/']
            for (const url of refused) {
                const res = await admin(strict, 'POST', '/subscriptions', { url })
                expect(res.status, url).to.equal(400)
                expect(res.body.error, url).to.include({ code: 'url_not_allowed', field: 'url' })
            }
            const ok = await subscribe(strict, { url: 'http://93.184.216.34/hook' })
            const patch = await admin(strict, 'PATCH', `/subscriptions/${ok.id}`, { url: 'http://127.0.0.1/' })
            expect(patch.status).to.equal(400)
            expect(patch.body.error.code).to.equal('url_not_allowed')
        })

        it('refuses them again at delivery time (the address a name resolves to can change after registration)', async function () {
            const p = nextPath()
            const sub = await subscribe(strict, { url: 'http://93.184.216.34/hook' })
            // What a DNS change does to a registered name: the destination is now loopback.
            await strictPool.query('UPDATE bridge_webhook_subscription SET url = $2 WHERE id = $1', [sub.id, receiver.url(p)])
            await newSwap(strict)
            const [delivery] = await waitHistory(strict, sub.id, 'a failed attempt', (items) => items.some((d) => d.attempts >= 1))
            expect(delivery.history[0].status).to.equal(null)
            expect(delivery.history[0].error).to.match(/^blocked_address: 127\.0\.0\.1 is not a public address \(loopback\)/)
            const test = await admin(strict, 'POST', `/subscriptions/${sub.id}/test`)
            expect(test.body).to.include({ delivered: false, status: 0 })
            expect(test.body.error).to.match(/^blocked_address/)
            expect(receiver.on(p)).to.have.length(0)
        })
    })

    describe('delivery', function () {
        it('signs the exact raw body: X-Bridge-Signature (hex HMAC) and the Standard Webhooks headers; the body is the documented one', async function () {
            const p = nextPath()
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            const swapId = await newSwap(bridge)
            const [r] = await receiver.waitFor(p, 1)
            expect(r.method).to.equal('POST')
            expect(header(r, 'content-type')).to.equal('application/json')
            expect(bridgeSignatureValid(sub.secret, r.raw, header(r, 'X-Bridge-Signature'))).to.equal(true)
            // One byte more (re-serialised JSON with a space) is no longer what was signed.
            const reserialised = Buffer.from(JSON.stringify(JSON.parse(r.raw.toString()), null, 1))
            expect(bridgeSignatureValid(sub.secret, reserialised, header(r, 'X-Bridge-Signature'))).to.equal(false)
            expect(() => new Webhook(sub.secret).verify(r.raw, r.headers as Record<string, string>)).to.not.throw()

            const body = JSON.parse(r.raw.toString())
            expect(Object.keys(body)).to.include.members(['event', 'timestamp', 'swap_id', 'tx_hash', 'status', 'amount_sent'])
            expect(body).to.include({ event: 'deposit_wallet_created', swap_id: swapId, status: 'pending_deposit', tx_hash: null, amount_sent: null })
            expect(new Date(body.timestamp).toISOString()).to.equal(body.timestamp)
            expect(header(r, 'X-Bridge-Event')).to.equal('deposit_wallet_created')
            expect(header(r, 'X-Bridge-Subscription')).to.equal(sub.id)
            expect(header(r, 'webhook-id')).to.equal(body.event_id)
            expect(new Date(header(r, 'X-Bridge-Timestamp')).toISOString()).to.equal(header(r, 'X-Bridge-Timestamp'))
            expect(Number(header(r, 'webhook-timestamp'))).to.equal(Math.floor(Date.parse(header(r, 'X-Bridge-Timestamp')) / 1000))
            const [d] = await waitHistory(bridge, sub.id, 'the delivery recorded', (items) => items[0]?.state === 'delivered')
            expect(d).to.include({ id: header(r, 'X-Bridge-Delivery'), event_id: body.event_id, event: 'deposit_wallet_created', swap_id: swapId, attempts: 1, last_status: 200 })
        })

        it('records each event once and makes one delivery per matching subscription (omitted = all, exact names, trailing *)', async function () {
            const [pa, pb, pc] = [nextPath(), nextPath(), nextPath()]
            const all = await subscribe(bridge, { url: receiver.url(pa) })
            const vault = await subscribe(bridge, { url: receiver.url(pb), event_types: ['vault_*'] })
            const provider = await subscribe(bridge, { url: receiver.url(pc), event_types: ['simpleswap_*', 'swap_failed'] })
            const swapId = await newSwap(bridge)
            await emit(pool, swapId, ['vault_locking', { event: 'vault_locked', txHash: '0x' + 'ab'.repeat(32) }, 'simpleswap_exchanging', 'gathering',
                { event: 'swap_failed', data: { reason: 'no liquidity or route for the pair at that moment' } }])
            const got = (p: string) => receiver.on(p).map((r) => JSON.parse(r.raw.toString()).event).sort()
            await receiver.waitFor(pa, 6)
            await receiver.waitFor(pb, 2)
            await receiver.waitFor(pc, 2)
            await waitHistory(bridge, all.id, 'six deliveries', (items) => items.length === 6 && items.every((d) => d.state === 'delivered'))
            expect(got(pa)).to.deep.equal(['deposit_wallet_created', 'gathering', 'simpleswap_exchanging', 'swap_failed', 'vault_locked', 'vault_locking'])
            expect(got(pb)).to.deep.equal(['vault_locked', 'vault_locking'])
            expect(got(pc)).to.deep.equal(['simpleswap_exchanging', 'swap_failed'])
            const failed = receiver.on(pc).map((r) => JSON.parse(r.raw.toString())).find((b) => b.event === 'swap_failed')
            expect(failed.error_message).to.equal('no liquidity or route for the pair at that moment')
            const locked = receiver.on(pb).map((r) => JSON.parse(r.raw.toString())).find((b) => b.event === 'vault_locked')
            expect(locked.tx_hash).to.equal('0x' + 'ab'.repeat(32))

            const events = await pool.query(
                `SELECT (SELECT count(*)::int FROM bridge_webhook_event w WHERE w.swap_event_id = e.id) AS recorded,
                        (SELECT count(*)::int FROM bridge_webhook_delivery d JOIN bridge_webhook_event w ON w.id = d.event_id WHERE w.swap_event_id = e.id) AS deliveries
                 FROM bridge_swap_event e WHERE e.swap_id = $1 ORDER BY e.id`,
                [swapId]
            )
            expect(events.rows.map((r) => r.recorded)).to.deep.equal([1, 1, 1, 1, 1, 1])
            expect(events.rows.map((r) => r.deliveries)).to.deep.equal([1, 2, 2, 2, 1, 2])
            for (const [s, p] of [[all, pa], [vault, pb], [provider, pc]] as const) {
                expect(new Set(receiver.on(p).map((r) => header(r, 'X-Bridge-Delivery'))).size).to.equal(receiver.on(p).length)
                expect(receiver.on(p).every((r) => header(r, 'X-Bridge-Subscription') === s.id)).to.equal(true)
            }
        })

        it('retries a receiver that answers 500 three times, then 200: exactly four attempts, growing delays, same delivery id and bytes', async function () {
            const p = nextPath()
            receiver.respond = (r) => (r.path === p && r.n <= 3 ? { status: 500, body: 'boom' } : { status: 200 })
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            await newSwap(bridge)
            const [d] = await waitHistory(bridge, sub.id, 'delivered', (items) => items[0]?.state === 'delivered')
            const requests = receiver.on(p)
            expect(requests).to.have.length(4)
            expect(new Set(requests.map((r) => header(r, 'X-Bridge-Delivery')))).to.deep.equal(new Set([d.id]))
            expect(new Set(requests.map((r) => header(r, 'webhook-id'))).size).to.equal(1)
            expect(requests.every((r) => r.raw.equals(requests[0].raw))).to.equal(true)
            expect(d.attempts).to.equal(4)
            expect(d.history.map((a: any) => a.status)).to.deep.equal([500, 500, 500, 200])
            expect(d.history.map((a: any) => a.attempt)).to.deep.equal([1, 2, 3, 4])
            expect(d.history[0].error).to.equal('HTTP 500')
            // The delay the bridge scheduled after each failure: 30 s · 2^(n−1) (+ up to 20 %), scaled.
            const delays = d.history.slice(0, 3).map((a: any) => a.retry_in_ms)
            expect(delays[0]).to.be.greaterThan(0)
            expect(delays[0]).to.be.lessThan(delays[1])
            expect(delays[1]).to.be.lessThan(delays[2])
            expect(d.history.slice(0, 3).every((a: any) => a.next_attempt_at !== null)).to.equal(true)
            expect(d.history[3]).to.include({ next_attempt_at: null, retry_in_ms: null })
            const s = (await admin(bridge, 'GET', `/subscriptions/${sub.id}`)).body
            expect(s).to.include({ failure_count: 0, failed_events: 0, failing_since: null, active: true })
        })

        it('honours Retry-After of a 429 within the cap', async function () {
            const p = nextPath()
            receiver.respond = (r) => (r.path === p && r.n === 1 ? { status: 429, headers: { 'Retry-After': '3600' } } : { status: 200 })
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            await newSwap(bridge)
            const [d] = await waitHistory(bridge, sub.id, 'delivered', (items) => items[0]?.state === 'delivered')
            expect(d.history.map((a: any) => a.status)).to.deep.equal([429, 200])
            expect(d.history[0].retry_in_ms).to.be.at.least(3600 * 1000 * SCALE).and.at.most(6 * 3600 * 1000 * SCALE)
        })

        it('counts a receiver that answers after 11 s as a failed attempt (timeout), then delivers on the retry', async function () {
            this.timeout(120_000)
            const p = nextPath()
            receiver.respond = (r) => (r.path === p && r.n === 1 ? { status: 200, delayMs: 11_000 } : { status: 200 })
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            await newSwap(bridge)
            const [d] = await waitHistory(bridge, sub.id, 'delivered', (items) => items[0]?.state === 'delivered', 90_000)
            expect(d.history).to.have.length(2)
            expect(d.history[0]).to.include({ status: null, error: 'timeout: no response within 10 s' })
            expect(d.history[1]).to.include({ status: 200, error: null })
            expect(new Set(receiver.on(p).map((r) => header(r, 'X-Bridge-Delivery')))).to.deep.equal(new Set([d.id]))
        })

        it('does not follow a redirect: a 3xx is a failed attempt', async function () {
            const p = nextPath()
            receiver.respond = (r) => (r.path === p && r.n === 1 ? { status: 301, headers: { Location: `${p}-moved` } } : { status: 200 })
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            await newSwap(bridge)
            const [d] = await waitHistory(bridge, sub.id, 'delivered', (items) => items[0]?.state === 'delivered')
            expect(d.history.map((a: any) => a.status)).to.deep.equal([301, 200])
            expect(d.history[0].error).to.match(/^redirect: HTTP 301 not followed/)
            expect(receiver.on(`${p}-moved`)).to.have.length(0)
        })

        it('gives up after 8 failed attempts: undelivered, kept in history, not rescheduled', async function () {
            const p = nextPath()
            receiver.respond = (r) => (r.path === p ? { status: 500 } : { status: 200 })
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            await newSwap(bridge)
            const [d] = await waitHistory(bridge, sub.id, 'undelivered', (items) => items[0]?.state === 'undelivered')
            expect(d.attempts).to.equal(8)
            expect(d.history.map((a: any) => a.attempt)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8])
            expect(d.history.every((a: any) => a.status === 500)).to.equal(true)
            expect(d.history[7].next_attempt_at).to.equal(null)
            expect(d.next_attempt_at).to.equal(null)
            expect(receiver.on(p)).to.have.length(8)
            expect(new Set(receiver.on(p).map((r) => header(r, 'X-Bridge-Delivery')))).to.deep.equal(new Set([d.id]))
            const failedOnly = await history(bridge, sub.id, '&failed=true')
            expect(failedOnly.map((x) => x.id)).to.deep.equal([d.id])
            const s = (await admin(bridge, 'GET', `/subscriptions/${sub.id}`)).body
            // One event lost is below the auto-disable threshold (3 here).
            expect(s).to.include({ active: true, failure_count: 8, failed_events: 1 })
            expect(s.deliveries).to.deep.equal({ pending: 0, delivered: 0, undelivered: 1 })
        })

        it('disables a subscription on 410 Gone at once; re-enabling clears the counters and sends what waited', async function () {
            const p = nextPath()
            let gone = true
            receiver.respond = (r) => (r.path === p && gone ? { status: 410 } : { status: 200 })
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            const swapId = await newSwap(bridge)
            await waitFor('the subscription to be disabled', async () => !(await admin(bridge, 'GET', `/subscriptions/${sub.id}`)).body.active, 30_000, 50)
            const s = (await admin(bridge, 'GET', `/subscriptions/${sub.id}`)).body
            expect(s.disabled_reason).to.match(/410 Gone/)
            expect(s.failure_count).to.equal(1)
            // Events keep being recorded for it, unsent.
            await emit(pool, swapId, ['rate_locked'])
            const waiting = await waitHistory(bridge, sub.id, 'two deliveries', (items) => items.length === 2)
            expect(waiting.map((d) => [d.event, d.state, d.attempts])).to.deep.equal([['rate_locked', 'pending', 0], ['deposit_wallet_created', 'pending', 1]])
            expect(receiver.on(p)).to.have.length(1)

            gone = false
            const enabled = await admin(bridge, 'PATCH', `/subscriptions/${sub.id}`, { active: true })
            expect(enabled.body).to.include({ active: true, failure_count: 0, failed_events: 0, failing_since: null, disabled_reason: null, disabled_at: null })
            const done = await waitHistory(bridge, sub.id, 'both delivered', (items) => items.every((d) => d.state === 'delivered'))
            expect(done.map((d) => d.attempts).sort()).to.deep.equal([1, 2])
        })

        it('auto-disables after the threshold (failing for the window and 3 events undelivered), keeps the events, and retry/:eventId re-drives them once re-enabled', async function () {
            const p = nextPath()
            let failing = true
            receiver.respond = (r) => (r.path === p && failing ? { status: 503 } : { status: 200 })
            const sub = await subscribe(bridge, { url: receiver.url(p), event_types: ['deposit_wallet_created'] })
            const undelivered = (n: number) => (items: any[]) => items.filter((d) => d.state === 'undelivered').length === n
            await newSwap(bridge)
            await waitHistory(bridge, sub.id, 'one undelivered', undelivered(1))
            await newSwap(bridge)
            await waitHistory(bridge, sub.id, 'two undelivered', undelivered(2))
            let s = (await admin(bridge, 'GET', `/subscriptions/${sub.id}`)).body
            // Failing longer than the window (every attempt of two events failed), but only two events lost: still enabled.
            expect(s).to.include({ active: true, failed_events: 2, failure_count: 16 })
            await newSwap(bridge)
            const lost = await waitHistory(bridge, sub.id, 'three undelivered', undelivered(3))
            s = await waitFor('the subscription to be disabled', async () => {
                const body = (await admin(bridge, 'GET', `/subscriptions/${sub.id}`)).body
                return body.active ? undefined : body
            }, 30_000, 50)
            expect(s).to.include({ active: false, failed_events: 3, failure_count: 24 })
            expect(s.disabled_reason).to.match(/every delivery attempt failed since .* and 3 consecutive events went undelivered \(threshold 3\)/)
            expect(s.disabled_at).to.be.a('string')
            expect(receiver.on(p)).to.have.length(24)

            // Disabled: a new event is recorded and waits.
            await newSwap(bridge)
            const queued = await waitHistory(bridge, sub.id, 'a fourth delivery', (items) => items.length === 4)
            expect(queued[0]).to.include({ state: 'pending', attempts: 0 })
            const events = lost.map((d) => d.event_id)
            const whileDisabled = await admin(bridge, 'POST', `/retry/${events[0]}`)
            expect(whileDisabled.status).to.equal(200)
            expect(whileDisabled.body.redriven).to.deep.equal([])
            expect(whileDisabled.body.skipped[0].reason).to.equal('subscription disabled')

            failing = false
            expect((await admin(bridge, 'PATCH', `/subscriptions/${sub.id}`, { active: true })).body).to.include({ active: true, failure_count: 0, failed_events: 0 })
            await waitHistory(bridge, sub.id, 'the waiting one delivered', (items) => items[0].state === 'delivered')
            const after = await history(bridge, sub.id)
            expect(after.filter((d) => d.state === 'undelivered')).to.have.length(3)
            for (const eventId of events) {
                const res = await admin(bridge, 'POST', `/retry/${eventId}`)
                expect(res.status).to.equal(202)
                expect(res.body.redriven).to.have.length(1)
            }
            const final = await waitHistory(bridge, sub.id, 'every delivery delivered', (items) => items.every((d) => d.state === 'delivered'))
            for (const d of final.filter((x) => events.includes(x.event_id))) {
                expect(d.attempts).to.equal(9)
                expect(d.history.at(-1)).to.include({ attempt: 9, status: 200 })
            }
            const again = await admin(bridge, 'POST', `/retry/${events[0]}`)
            expect(again.status).to.equal(200)
            expect(again.body.skipped[0].reason).to.equal('already delivered')
            expect(new Set(receiver.on(p).map((r) => header(r, 'X-Bridge-Delivery'))).size).to.equal(4)
        })

        it('rotate-secret: the new secret signs, the old one signs beside it for the grace window, grace 0 ends it at once', async function () {
            const p = nextPath()
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            const s1 = sub.secret as string
            const swapId = await newSwap(bridge)
            const [first] = await receiver.waitFor(p, 1)
            expect(bridgeSignatureValid(s1, first.raw, header(first, 'X-Bridge-Signature'))).to.equal(true)
            expect(header(first, 'X-Bridge-Signature-Previous')).to.equal(undefined)

            const rotated = await admin(bridge, 'POST', `/subscriptions/${sub.id}/rotate-secret`)
            expect(rotated.status).to.equal(200)
            const s2 = rotated.body.secret as string
            expect(s2).to.match(/^whsec_/).and.not.equal(s1)
            expect(Date.parse(rotated.body.previous_secret_expires_at)).to.be.greaterThan(Date.now())
            await emit(pool, swapId, ['rate_locked'])
            const [, second] = await receiver.waitFor(p, 2)
            expect(bridgeSignatureValid(s2, second.raw, header(second, 'X-Bridge-Signature'))).to.equal(true)
            expect(bridgeSignatureValid(s1, second.raw, header(second, 'X-Bridge-Signature'))).to.equal(false)
            expect(bridgeSignatureValid(s1, second.raw, header(second, 'X-Bridge-Signature-Previous'))).to.equal(true)
            expect(header(second, 'webhook-signature').split(' ')).to.have.length(2)
            for (const secret of [s1, s2]) expect(() => new Webhook(secret).verify(second.raw, second.headers as Record<string, string>)).to.not.throw()

            const ended = await admin(bridge, 'POST', `/subscriptions/${sub.id}/rotate-secret`, { grace_seconds: 0 })
            const s3 = ended.body.secret as string
            expect(ended.body.previous_secret_expires_at).to.equal(null)
            await emit(pool, swapId, ['vault_locking'])
            const [, , third] = await receiver.waitFor(p, 3)
            expect(bridgeSignatureValid(s3, third.raw, header(third, 'X-Bridge-Signature'))).to.equal(true)
            expect(header(third, 'X-Bridge-Signature-Previous')).to.equal(undefined)
            expect(header(third, 'webhook-signature').split(' ')).to.have.length(1)
            expect(() => new Webhook(s3).verify(third.raw, third.headers as Record<string, string>)).to.not.throw()
            for (const old of [s1, s2]) expect(() => new Webhook(old).verify(third.raw, third.headers as Record<string, string>)).to.throw()
        })

        it('the test route sends a signed test_ping once and reports { delivered, status, error, event_id, delivery_id }', async function () {
            const p = nextPath()
            receiver.respond = (r) => (r.path === p && r.n === 2 ? { status: 500 } : { status: 204 })
            const sub = await subscribe(bridge, { url: receiver.url(p), event_types: ['swap_expired'] })
            const ok = await admin(bridge, 'POST', `/subscriptions/${sub.id}/test`)
            expect(ok.status).to.equal(200)
            expect(Object.keys(ok.body).sort()).to.deep.equal(['delivered', 'delivery_id', 'error', 'event_id', 'status'])
            expect(ok.body).to.include({ delivered: true, status: 204, error: null })
            const [r] = receiver.on(p)
            expect(header(r, 'X-Bridge-Event')).to.equal('test_ping')
            expect(header(r, 'X-Bridge-Delivery')).to.equal(ok.body.delivery_id)
            expect(header(r, 'webhook-id')).to.equal(ok.body.event_id)
            expect(bridgeSignatureValid(sub.secret, r.raw, header(r, 'X-Bridge-Signature'))).to.equal(true)
            expect(JSON.parse(r.raw.toString())).to.include({ event: 'test_ping', event_id: ok.body.event_id, swap_id: null })

            const bad = await admin(bridge, 'POST', `/subscriptions/${sub.id}/test`)
            expect(bad.body).to.include({ delivered: false, status: 500, error: 'HTTP 500' })
            const items = await history(bridge, sub.id)
            const failed = items.find((d) => d.id === bad.body.delivery_id)
            expect(failed).to.include({ state: 'undelivered', attempts: 1, next_attempt_at: null, event: 'test_ping' })
            // Test pings are not the endpoint's record: the failure counters stay clear.
            expect((await admin(bridge, 'GET', `/subscriptions/${sub.id}`)).body).to.include({ failure_count: 0, active: true })

            const closed = new Receiver()
            await closed.start()
            const port = closed.port
            await closed.stop()
            await admin(bridge, 'PATCH', `/subscriptions/${sub.id}`, { url: `http://127.0.0.1:${port}/gone` })
            const unreachable = await admin(bridge, 'POST', `/subscriptions/${sub.id}/test`)
            expect(unreachable.body).to.include({ delivered: false, status: 0, error: 'connect: ECONNREFUSED' })
        })

        it('DELETE removes the subscription and its queued deliveries', async function () {
            const p = nextPath()
            receiver.respond = (r) => (r.path === p ? { status: 503, headers: { 'Retry-After': '3600' } } : { status: 200 })
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            const swapId = await newSwap(bridge)
            await emit(pool, swapId, ['rate_locked', 'vault_locking', 'vault_locked', 'payout_processing'])
            await waitHistory(bridge, sub.id, 'five queued retries', (items) => items.length === 5 && items.every((d) => d.state === 'pending' && d.attempts === 1 && !d.in_flight))
            const res = await admin(bridge, 'DELETE', `/subscriptions/${sub.id}`)
            expect(res.status).to.equal(200)
            expect(res.body).to.deep.equal({ id: sub.id, deleted: true, queued_deliveries_removed: 5 })
            const left = await pool.query('SELECT count(*)::int AS n FROM bridge_webhook_delivery WHERE subscription_id = $1', [sub.id])
            expect(left.rows[0].n).to.equal(0)
            expect((await admin(bridge, 'GET', `/subscriptions/${sub.id}`)).status).to.equal(404)
            expect((await admin(bridge, 'DELETE', `/subscriptions/${sub.id}`)).status).to.equal(404)
        })

        it('two replicas share the queue: every delivery is sent exactly once', async function () {
            const second = await startBridge(env)
            try {
                const p = nextPath()
                const sub = await subscribe(bridge, { url: receiver.url(p) })
                const swapId = await newSwap(bridge)
                await emit(pool, swapId, Array.from({ length: 199 }, (_, i) => `simpleswap_step_${i}`))
                await waitHistory(bridge, sub.id, '200 delivered', (items) => items.length === 200 && items.every((d) => d.state === 'delivered'))
                const ids = receiver.on(p).map((r) => header(r, 'X-Bridge-Delivery'))
                expect(ids).to.have.length(200)
                expect(new Set(ids).size).to.equal(200)
            } finally {
                await second.stop()
            }
        })

        it('delivers a real swap as its lifecycle events, each once, with the payout hash and amount_sent', async function () {
            this.timeout(300_000)
            const p = nextPath()
            const sub = await subscribe(bridge, { url: receiver.url(p) })
            const amount = parseUnits('100', 18)
            await giveTokens(w.chains.BSC, 'USDT', account(3).address, amount)
            const swap = await createSwap(bridge, swapBody())
            const depositHash = await send(w.chains.BSC, 3, swap.deposit_address, amount, w.chains.BSC.tokens.USDT)
            const done = await waitForStatus(bridge, swap.id, ['completed'])
            // Exactly the swap's history (GET /api/swap/:id/events), each event once; deliveries run in parallel, so order by the event time.
            const history = (await api(bridge, 'GET', `/api/swap/${swap.id}/events`)).body.events.map((e: any) => e.event)
            await receiver.waitFor(p, history.length)
            const bodies = receiver.on(p).map((r) => JSON.parse(r.raw.toString())).filter((b) => b.swap_id === swap.id)
            expect(bodies).to.have.length(history.length)
            const byTime = [...bodies].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || history.indexOf(a.event) - history.indexOf(b.event))
            expect(byTime.map((b) => b.event)).to.deep.equal(history)
            expect(byTime.map((b) => b.event).filter((e) => SPEC_ORDER.includes(e))).to.deep.equal(SPEC_ORDER)
            const sent = bodies.find((b) => b.event === 'target_token_sent')
            expect(sent).to.include({ status: 'completed', tx_hash: done.payout_tx_hash, amount_sent: done.amount_sent })
            expect(bodies.find((b) => b.event === 'source_token_deposited').tx_hash).to.equal(depositHash)
            for (const r of receiver.on(p)) expect(bridgeSignatureValid(sub.secret, r.raw, header(r, 'X-Bridge-Signature'))).to.equal(true)
        })
    })

    describe('crash safety', function () {
        it('a bridge killed with SIGKILL while deliveries are queued delivers them all after restart, with the same X-Bridge-Delivery', async function () {
            this.timeout(180_000)
            const databaseUrl = await createTestDatabase('bridge_webhooks_crash')
            const dir = tempDir()
            dirs.push(dir)
            // Four attempts in flight at most: of 20 deliveries, 4 hang at the receiver and 16 wait in the queue.
            const crashEnv = { ...bridgeEnv(w, databaseUrl, dir), BRIDGE_WEBHOOK_ALLOW_PRIVATE: 'true', BRIDGE_WEBHOOK_TIME_SCALE: String(SCALE), BRIDGE_WEBHOOK_CONCURRENCY: '4' }
            const db = new Pool({ connectionString: databaseUrl, max: 2 })
            let crashing = await startBridge(crashEnv)
            await fundVaults(w, crashing)
            try {
                const p = nextPath()
                let hang = true
                receiver.respond = (r) => (r.path === p && hang ? { status: 200, hang: true } : { status: 200 })
                const sub = await subscribe(crashing, { url: receiver.url(p) })
                const swapId = await newSwap(crashing)
                await emit(db, swapId, Array.from({ length: 19 }, (_, i) => `simpleswap_step_${i}`))
                await receiver.waitFor(p, 4)
                const queued = await waitFor('20 deliveries queued', async () => {
                    const { rows } = await db.query(`SELECT id, state, attempts FROM bridge_webhook_delivery WHERE subscription_id = $1`, [sub.id])
                    return rows.length === 20 ? rows : undefined
                }, 30_000, 50)
                expect(queued.every((d) => d.state === 'pending' && d.attempts === 0)).to.equal(true)
                const before = receiver.on(p).map((r) => header(r, 'X-Bridge-Delivery'))
                expect(before).to.have.length(4)

                crashing.process.kill('SIGKILL')
                await crashing.process.exited
                hang = false
                receiver.dropConnections()
                crashing = await startBridge(crashEnv)

                const delivered = await waitFor('all 20 delivered after the restart', async () => {
                    const { rows } = await db.query(`SELECT id, attempts FROM bridge_webhook_delivery WHERE subscription_id = $1 AND state = 'delivered'`, [sub.id])
                    return rows.length === 20 ? rows : undefined
                }, 120_000, 100)
                const ids = new Set(queued.map((d) => d.id))
                const seen = receiver.on(p).map((r) => header(r, 'X-Bridge-Delivery'))
                expect(new Set(seen)).to.deep.equal(ids)
                // The four cut off by the crash were sent again under the same id; the others once.
                for (const id of before) expect(seen.filter((s) => s === id)).to.have.length(2)
                expect(seen).to.have.length(24)
                expect(delivered.every((d) => d.attempts === 1)).to.equal(true)
            } finally {
                await crashing.stop()
                await db.end()
            }
        })
    })
})
