import { expect } from 'chai'
import * as fs from 'fs'
import { Pool } from 'pg'
import { spawnManaged, waitFor } from '../../common/processes'
import { fingerprintOf } from '../../common/service/idempotency'
import { createTestDatabase } from '../support/postgres'
import { freePort } from '../support/ports'
import * as path from 'path'
import {
    account, api, BridgeChains, BridgeProcess, bridgeEnv, createSwap, fundVaults, startBridge, startBridgeChains, tempDir, WsClient,
} from './support'

/** The HTTP API and the WebSocket protocol at their edges: registry, config, validation, errors, limits. */
describe('bridge: HTTP API and WebSocket protocol', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let databaseUrl: string
    let env: Record<string, string>
    let dir: string

    before(async function () {
        databaseUrl = await createTestDatabase('bridge_api')
        w = await startBridgeChains()
        dir = tempDir()
        env = bridgeEnv(w, databaseUrl, dir)
        bridge = await startBridge(env)
        // Swap creation refuses what the target vault cannot pay: the vaults hold what the swaps may need.
        await fundVaults(w, bridge)
    })

    after(async function () {
        await bridge?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const valid = () => ({
        source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
        source_token_amount: 100, target_wallet: account(4).address, refund_address: account(3).address,
    })

    async function rejected(body: unknown, status: number, code: string, field?: string, message?: RegExp) {
        const res = await api(bridge, 'POST', '/api/swap', body)
        expect(res.status, JSON.stringify(res.body)).to.equal(status)
        expect(res.body.error.code).to.equal(code)
        if (field) expect(res.body.error.field).to.equal(field)
        if (message) expect(res.body.error.message).to.match(message)
        return res.body.error
    }

    it('GET /ready is 200 once every enabled network answered the monitor; /metrics labels by route template and counts swaps by status', async function () {
        const ready = await waitFor('the bridge to be ready', async () => {
            const res = await fetch(`${bridge.url}/ready`)
            return res.status === 200 ? res.json() as Promise<any> : undefined
        }, 60_000, 200)
        expect(ready).to.deep.equal({
            ready: true,
            checks: { database: 'ok', 'network NATIVECHAIN': 'ok', 'network BSC': 'ok', 'network ETHEREUM': 'ok', 'network POLYGON': 'ok' },
        })
        await fetch(`${bridge.url}/api/swap/00000000-0000-4000-8000-00000000abcd`)
        const text = await (await fetch(`${bridge.url}/metrics`)).text()
        const lines = text.split('\n')
        expect(lines.some((l) => l.startsWith('http_request_duration_seconds_count{') && l.includes('route="/api/swap/:id"') && l.includes('service="bridge"'))).to.equal(true)
        expect(text).to.not.include('abcd')
        expect(lines.some((l) => l.startsWith('bridge_swaps{') && l.includes('status="pending_deposit"'))).to.equal(true)
        // A chain's cycle ends after its head read, once its scan and late-deposit watch are done too.
        await waitFor('a monitor cycle of BSC', async () => (await (await fetch(`${bridge.url}/metrics`)).text())
            .split('\n').some((l) => l.startsWith('bridge_monitor_cycle_duration_seconds_count{') && l.includes('chain="BSC"')), 60_000, 200)
        expect(lines.some((l) => l.startsWith('bridge_webhook_queue_depth{'))).to.equal(true)
    })

    it('GET /api/tokens lists every chain and token of the registry with decimals; only the EVM networks are enabled', async function () {
        const { status, body } = await api(bridge, 'GET', '/api/tokens')
        expect(status).to.equal(200)
        const tokens = Object.fromEntries(body.chains.map((c: any) => [c.name, c.tokens.map((t: any) => `${t.symbol}:${t.decimals}`)]))
        expect(tokens).to.deep.equal({
            NATIVECHAIN: ['NATIVE:18', 'STABLE:6'],
            BSC: ['USDT:18', 'WNATIVE:18'],
            ETHEREUM: ['ETH:18', 'USDT:6'],
            TRON: ['TRX:6', 'USDT:6'],
            BITCOIN: ['BTC:8'],
            SOLANA: ['SOL:9'],
            POLYGON: ['POL:18', 'USDT:6'],
        })
        const enabled = Object.fromEntries(body.chains.map((c: any) => [c.name, c.enabled]))
        expect(enabled).to.deep.equal({ NATIVECHAIN: true, BSC: true, ETHEREUM: true, TRON: false, BITCOIN: false, SOLANA: false, POLYGON: true })
        const bsc = body.chains.find((c: any) => c.name === 'BSC')
        expect(bsc.chain_id).to.equal(56)
        expect(bsc.tokens[0].contract_address).to.equal(w.chains.BSC.tokens.USDT)
    })

    it('GET /api/swap/config gives the fee, the networks with their vaults and the route table', async function () {
        const { body } = await api(bridge, 'GET', '/api/swap/config')
        expect(body.fee_percent).to.equal('2.50')
        expect(body.monitor_interval_seconds).to.equal(1)
        const bsc = body.networks.find((n: any) => n.chain === 'BSC')
        expect(bsc).to.include({ enabled: true, chain_id: 56, confirmations: 'finalized' })
        expect(bsc.vault_address).to.match(/^0x[0-9a-fA-F]{40}$/)
        expect(body.networks.find((n: any) => n.chain === 'TRON')).to.include({ enabled: false, vault_address: null })
        const route = (s: string, t: string) => body.routes.find((r: any) => `${r.source_chain}:${r.source_token}` === s && `${r.target_chain}:${r.target_token}` === t)
        expect(route('BSC:USDT', 'NATIVECHAIN:NATIVE')).to.include({ kind: 'pool', enabled: true, min_amount: '1', max_amount: '100000' })
        expect(route('ETHEREUM:USDT', 'POLYGON:USDT')).to.include({ kind: 'vault', enabled: true })
        expect(route('ETHEREUM:ETH', 'NATIVECHAIN:NATIVE')).to.include({ kind: 'multi_hop', enabled: true })
        // TRON USDT is a dollar our vaults hold; BTC goes through the external provider (not configured here).
        expect(route('TRON:USDT', 'BSC:USDT')).to.include({ kind: 'vault', enabled: false, disabled_reason: 'network not enabled: TRON' })
        expect(route('BITCOIN:BTC', 'NATIVECHAIN:NATIVE')).to.include({ kind: 'provider', enabled: false, disabled_reason: 'network not enabled: BITCOIN' })
        expect(body.routes).to.have.length(12 * 11)
    })

    it('GET /api/swap/pool-price/bsc-wnative-usdt reads the BSC pool', async function () {
        const { status, body } = await api(bridge, 'GET', '/api/swap/pool-price/bsc-wnative-usdt')
        expect(status).to.equal(200)
        expect(body).to.include({ pool: 'bsc-wnative-usdt', chain: 'BSC', base_token: 'WNATIVE', quote_token: 'USDT', price: '2000' })
        expect(body.reserve_base).to.equal('10000')
        expect(body.reserve_quote).to.equal('20000000')
        expect(body.pair_address).to.equal(w.bsc.amm!.pairs['WNATIVE/USDT'])
        expect((await api(bridge, 'GET', '/api/swap/pool-price/eth-pepe-usdt')).status).to.equal(404)
    })

    it('GET /api/swap explains swap creation', async function () {
        const { body } = await api(bridge, 'GET', '/api/swap')
        expect(body.method).to.equal('POST')
        expect(Object.keys(body.body)).to.deep.equal(['source_chain', 'source_token', 'target_chain', 'target_token', 'source_token_amount', 'target_wallet', 'refund_address', 'min_target_amount'])
    })

    it('POST /api/swap creates a swap with its own deposit address and expiry', async function () {
        const res = await api(bridge, 'POST', '/api/swap', valid())
        expect(res.status).to.equal(201)
        expect(res.headers.get('location')).to.equal(`/api/swap/${res.body.id}`)
        expect(res.headers.get('ratelimit-limit')).to.equal('1000')
        const swap = res.body
        expect(swap).to.include({ swap_id: swap.id, status: 'pending_deposit', source_token_amount: '100', fee_percent: '2.50', target_wallet: account(4).address })
        expect(swap.deposit_address).to.match(/^0x[0-9a-fA-F]{40}$/)
        expect(Number(swap.estimated_target_amount)).to.be.within(0.048, 0.049)
        const second = await createSwap(bridge, { ...valid(), source_token_amount: '12.5' })
        expect(second.deposit_address).to.not.equal(swap.deposit_address)
        expect(second.source_token_amount).to.equal('12.5')
        const events = (await api(bridge, 'GET', `/api/swap/${swap.id}/events`)).body
        expect(events.events.map((e: any) => e.event)).to.deep.equal(['deposit_wallet_created'])
        expect(events.events[0].data.deposit_address).to.equal(swap.deposit_address)
        expect((await api(bridge, 'GET', `/api/swap/${swap.id}/status`)).body).to.deep.equal({
            id: swap.id, status: 'pending_deposit', deposit_tx_hash: null, payout_tx_hash: null, error_message: null,
        })
        // Lowercase addresses are accepted and stored checksummed.
        const lower = await createSwap(bridge, { ...valid(), target_wallet: account(4).address.toLowerCase() })
        expect(lower.target_wallet).to.equal(account(4).address)
    })

    it('POST /api/swap with an Idempotency-Key: the same key and body (even at once) is the same swap, one row; another body is 422', async function () {
        const post = async (key: string, body: unknown) => {
            const res = await fetch(`${bridge.url}/api/swap`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) })
            return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed'), location: res.headers.get('location') }
        }
        const body = { ...valid(), target_wallet: account(5).address, source_token_amount: 77 }
        const key = `swap-${Date.now()}`
        // Sent at once: one creates the swap; the others are replayed, or told it is in flight (409) and replayed when retried.
        const settle = async () => {
            for (;;) {
                const res = await post(key, body)
                if (res.status !== 409) return res
                await new Promise((r) => setTimeout(r, 100))
            }
        }
        const answers = await Promise.all(Array.from({ length: 5 }, settle))
        expect(answers[0].status, answers[0].text).to.equal(201)
        for (const a of answers) {
            expect(a.status).to.equal(201)
            expect(a.text).to.equal(answers[0].text)
            expect(a.location).to.equal(answers[0].location)
        }
        expect(answers.filter((a) => a.replayed !== 'true')).to.have.length(1)
        const swap = JSON.parse(answers[0].text)
        const pool = new Pool({ connectionString: databaseUrl, max: 1 })
        const swaps = async () => (await pool.query('SELECT count(*)::int AS n FROM bridge_swap WHERE target_wallet = $1', [account(5).address])).rows[0].n
        try {
            expect(await swaps()).to.equal(1)
            const reused = await post(key, { ...body, source_token_amount: 78 })
            expect(reused.status, reused.text).to.equal(422)
            expect(JSON.parse(reused.text).error.code).to.equal('idempotency_key_reused')
            expect((await post(key, body)).text).to.equal(JSON.stringify(swap))
            expect((await post('bad key', body)).status).to.equal(400)

            // A process that died after noting the swap's id and writing it, before keeping its answer
            // (the key in flight, no lock held): the retry answers that swap and writes no other.
            const { rows: [claimed] } = await pool.query('SELECT scope FROM idempotency_key WHERE key = $1', [key])
            await pool.query(
                `INSERT INTO idempotency_key (scope, key, fingerprint, state, owner, request_ids) VALUES ($1, $2, $3, 'in_flight', 'dead', ARRAY[$4])`,
                [claimed.scope, `${key}-crashed`, fingerprintOf('POST', '/api/swap', body, {}), swap.id]
            )
            const recovered = await post(`${key}-crashed`, body)
            expect(recovered.status, recovered.text).to.equal(201)
            expect(JSON.parse(recovered.text)).to.include({ id: swap.id, deposit_address: swap.deposit_address })
            expect(recovered.location).to.equal(`/api/swap/${swap.id}`)
            expect((await post(`${key}-crashed`, body)).text).to.equal(recovered.text)
            expect(await swaps()).to.equal(1)
        } finally {
            await pool.end()
        }
    })

    it('rejects every malformed field with a 400 naming it', async function () {
        const { source_chain: _, ...noChain } = valid()
        await rejected(noChain, 400, 'invalid_request', 'source_chain', /^source_chain: is required$/)
        await rejected({ ...valid(), source_chain: 'bsc' }, 400, 'invalid_request', 'source_chain', /NATIVECHAIN, BSC, ETHEREUM, TRON, BITCOIN, SOLANA, POLYGON/)
        await rejected({ ...valid(), source_token: 'BNB' }, 400, 'invalid_request', 'source_token', /USDT, WNATIVE on BSC/)
        await rejected({ ...valid(), target_token: 'native' }, 400, 'invalid_request', 'target_token')
        await rejected({ ...valid(), source_token_amount: -5 }, 400, 'invalid_request', 'source_token_amount')
        await rejected({ ...valid(), source_token_amount: 0 }, 400, 'invalid_request', 'source_token_amount')
        await rejected({ ...valid(), source_token_amount: 'lots' }, 400, 'invalid_request', 'source_token_amount')
        await rejected({ ...valid(), source_token_amount: true }, 400, 'invalid_request', 'source_token_amount')
        await rejected({ ...valid(), source_token: 'USDT', source_chain: 'ETHEREUM', source_token_amount: '10.0000001' }, 400, 'invalid_request', 'source_token_amount', /6 decimal places/)
        await rejected({ ...valid(), source_token_amount: 0.5 }, 400, 'amount_out_of_range', 'source_token_amount', /from 1 to 100000 USDT/)
        await rejected({ ...valid(), source_token_amount: 100001 }, 400, 'amount_out_of_range', 'source_token_amount')
        await rejected({ ...valid(), target_wallet: '0x1234' }, 400, 'invalid_request', 'target_wallet', /not a valid NATIVECHAIN address/)
        // A mixed-case address with a wrong EIP-55 checksum is a typo, not an address.
        const badChecksum = account(4).address.replace(/[a-f]/, (c) => c.toUpperCase())
        await rejected({ ...valid(), target_wallet: badChecksum }, 400, 'invalid_request', 'target_wallet')
        await rejected({ ...valid(), target_wallet: '0x0000000000000000000000000000000000000000' }, 400, 'invalid_request', 'target_wallet')
        await rejected({ ...valid(), refund_address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' }, 400, 'invalid_request', 'refund_address', /not a valid BSC address/)
        await rejected({ ...valid(), refund_adress: account(3).address }, 400, 'invalid_request', 'refund_adress', /unknown field/)
        await rejected({ ...valid(), target_wallet: 42 }, 400, 'invalid_request', 'target_wallet')
        await rejected([valid()], 400, 'invalid_request', 'body')
        await rejected('{"source_chain": ', 400, 'invalid_json', 'body')
        const form = await fetch(`${bridge.url}/api/swap`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })
        expect(form.status).to.equal(415)
    })

    it('refuses pairs without a route and networks not enabled yet', async function () {
        await rejected({ ...valid(), target_chain: 'TRON', target_token: 'USDT', target_wallet: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' }, 400, 'network_not_enabled', undefined, /^network not enabled: TRON$/)
        await rejected({ ...valid(), source_chain: 'BITCOIN', source_token: 'BTC', source_token_amount: 0.01 }, 400, 'network_not_enabled', undefined, /BITCOIN/)
        await rejected({ ...valid(), target_chain: 'BSC', target_token: 'USDT', target_wallet: account(4).address }, 400, 'no_route', undefined, /no route for the pair/)
    })

    it('answers 400 for a malformed swap id and 404 for an unknown one, as JSON', async function () {
        for (const suffix of ['', '/status', '/events']) {
            expect((await api(bridge, 'GET', `/api/swap/not-a-swap${suffix}`)).status).to.equal(400)
            const missing = await api(bridge, 'GET', `/api/swap/6f1c1f7e-2b6f-4d47-9d1f-1f1f1f1f1f1f${suffix}`)
            expect(missing.status).to.equal(404)
            expect(missing.body.error.code).to.equal('not_found')
        }
        const unknown = await api(bridge, 'GET', '/api/nothing-here')
        expect(unknown.status).to.equal(404)
        expect(unknown.body.error.code).to.equal('not_found')
    })

    it('WebSocket: answers malformed messages with an error and keeps the connection; ping gets pong', async function () {
        const ws = await WsClient.connect(bridge.wsUrl)
        const errors = () => ws.messages.filter((m) => m.type === 'error')
        ws.send('not json')
        ws.send('[1,2]')
        ws.send({ type: 'dance' })
        ws.send({ type: 'subscribe' })
        ws.send({ type: 'subscribe', swap_id: 'abc' })
        ws.send({ type: 'subscribe', swap_id: '6f1c1f7e-2b6f-4d47-9d1f-1f1f1f1f1f1f' })
        ws.send({ type: 'subscribe', address: 'x' })
        ws.socket.send(Buffer.from([1, 2, 3]), { binary: true })
        await ws.next(() => errors().length === 8)
        expect(errors().map((e) => e.error)).to.have.length(8)
        expect(errors()[5].error).to.equal('swap_id: no swap with this id')
        ws.send({ type: 'ping' })
        expect((await ws.next((m) => m.type === 'pong')).timestamp).to.be.a('string')
        const swap = await createSwap(bridge, valid())
        ws.send({ type: 'subscribe', swap_id: swap.id.toUpperCase() })
        expect(await ws.next((m) => m.type === 'subscribed')).to.deep.equal({ type: 'subscribed', swap_id: swap.id, status: 'pending_deposit' })
        ws.send({ type: 'unsubscribe', swap_id: swap.id })
        expect(await ws.next((m) => m.type === 'unsubscribed')).to.deep.equal({ type: 'unsubscribed', swap_id: swap.id })
        expect(ws.closed).to.equal(undefined)
        ws.close()
    })

    describe('with a second bridge process (own database): limits and keys', function () {
        let small: BridgeProcess
        let smallDatabase: string
        before(async function () {
            smallDatabase = await createTestDatabase('bridge_limits')
            small = await startBridge({ ...bridgeEnv(w, smallDatabase, dir), BRIDGE_CREATE_LIMIT: '2', BRIDGE_CREATE_LIMIT_WINDOW_SECONDS: '600', BRIDGE_WS_IDLE_SECONDS: '5' })
            await fundVaults(w, small)
        })
        after(async function () {
            await small?.stop()
        })

        it('limits swap creation per IP with RateLimit-* headers and a 429', async function () {
            const first = await api(small, 'POST', '/api/swap', valid())
            expect(first.status).to.equal(201)
            expect(first.headers.get('ratelimit-remaining')).to.equal('1')
            expect(first.headers.get('ratelimit-policy')).to.equal('2;w=600')
            // Invalid requests count too: the limit is taken before the body is judged.
            expect((await api(small, 'POST', '/api/swap', {})).status).to.equal(400)
            const third = await api(small, 'POST', '/api/swap', valid())
            expect(third.status).to.equal(429)
            expect(third.body.error.code).to.equal('rate_limited')
            expect(third.headers.get('ratelimit-remaining')).to.equal('0')
            expect(Number(third.headers.get('retry-after'))).to.be.greaterThan(0)
        })

        it('closes a WebSocket that sends nothing for the idle timeout', async function () {
            const ws = await WsClient.connect(small.wsUrl)
            const { waitFor } = await import('../../common/processes')
            await waitFor('the idle socket to be closed', async () => ws.closed, 30_000, 100)
            expect(ws.closed!.code).to.equal(4000)
        })

        it('keeps the HD seed sealed: the table holds ciphertext, and another MASTER_KEY cannot start', async function () {
            const pool = new Pool({ connectionString: smallDatabase, max: 1 })
            try {
                const { rows } = await pool.query(`SELECT family, length(ciphertext) AS bytes FROM bridge_key_seed`)
                expect(rows).to.deep.equal([{ family: 'evm', bytes: 64 + 16 }])
            } finally {
                await pool.end()
            }
            let output = ''
            const wrong = spawnManaged(process.execPath, [path.resolve(__dirname, '../../bridge/main.js')], {
                name: 'bridge-wrong-key',
                env: { ...process.env, ...bridgeEnv(w, smallDatabase, dir), MASTER_KEY: '33'.repeat(32), BRIDGE_PORT: String(await freePort()) },
            })
            wrong.child.stdout?.on('data', (d) => (output += d.toString()))
            wrong.child.stderr?.on('data', (d) => (output += d.toString()))
            expect(await wrong.exited).to.equal(1)
            expect(output).to.contain('the evm bridge seed does not open with this MASTER_KEY')
            expect(output).to.not.contain('33'.repeat(32))
        })
    })
})
