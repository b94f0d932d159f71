import { expect } from 'chai'
import { Pool } from 'pg'
import { Address, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { waitFor } from '../../../common/processes'
import { fingerprintOf } from '../../../common/service/idempotency'
import { PlatformProcess, startPlatformProcess } from '../../support/api'
import { BroadcastGate } from '../../support/broadcast-gate'
import { startTestChain, TestChain } from '../../support/chain'
import { createTestDatabase } from '../../support/postgres'
import { nativeBalance, newWallet, PlatformClient, setNativeBalance } from './support'

const PWD = 'idempotent-password-123'

interface Answer {
    status: number
    text: string
    replayed: boolean
    retryAfter: string | null
}

/**
 * Idempotency-Key on the platform's signing routes (docs/platform-api.md, "Retries and
 * idempotency"): two replicas on one database, the node behind a gate; transfers are counted on
 * chain (the recipient's balance and the wallet's nonce), not in rows.
 */
describe('wallet platform: idempotency keys across replicas and a SIGKILL', function () {
    let chain: TestChain
    let gate: BroadcastGate
    let databaseUrl: string
    const replicas: PlatformProcess[] = []
    let pool: Pool
    let wallet: Address

    const start = (i: number) => startPlatformProcess({ databaseUrl, rpcUrl: gate.url, contracts: chain.contracts, env: { PLATFORM_TX_TIMEOUT_SECONDS: '8' } })
        .then((p) => {
            replicas[i] = p
        })

    before(async function () {
        chain = await startTestChain()
        gate = new BroadcastGate(chain.url)
        await gate.start()
        databaseUrl = await createTestDatabase('platform_idempotency')
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
        await Promise.all([start(0), start(1)])
        wallet = await newWallet(new PlatformClient(replicas[0].platformUrl), 'idem', PWD)
        await setNativeBalance(chain, wallet, parseEther('100'))
    })

    after(async function () {
        await pool?.end()
        for (const r of replicas) await r?.stop()
        await gate?.stop()
        await chain?.stop()
    })

    afterEach(async function () {
        gate.blocked = false
        gate.hang = false
        for (const [i, r] of replicas.entries()) if (r.process.child.exitCode !== null || r.process.child.signalCode !== null) await start(i)
    })

    const fresh = () => privateKeyToAccount(generatePrivateKey()).address
    const nonceOf = (address: Address) => chain.client.getTransactionCount({ address })

    async function post(replica: number, path: string, body: unknown, key?: string): Promise<Answer> {
        const headers: Record<string, string> = { 'content-type': 'application/json', 'x-user-pwd': PWD }
        if (key !== undefined) headers['idempotency-key'] = key
        const res = await fetch(`${replicas[replica].platformUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
        return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') === 'true', retryAfter: res.headers.get('retry-after') }
    }

    /** Posts until the answer is not 409 idempotency_in_flight (each such 409 carries Retry-After). */
    async function settle(replica: number, path: string, body: unknown, key: string): Promise<{ final: Answer; inFlight: number }> {
        let inFlight = 0
        for (;;) {
            const answer = await post(replica, path, body, key)
            if (answer.status !== 409 || !answer.text.includes('idempotency_in_flight')) return { final: answer, inFlight }
            expect(answer.retryAfter).to.equal('1')
            inFlight++
            await new Promise((r) => setTimeout(r, 200))
        }
    }

    it('the same send 20 times at once across two replicas: one transfer on chain, 20 identical answers', async function () {
        const to = fresh()
        const nonce = await nonceOf(wallet)
        // With user_id, a checked password is cached: one check per replica first, so the burst is not taken for guessing (429).
        const body = { address_from: wallet, address_to: to, token: 'NATIVE', amount: '1.25', user_id: 'idem' }
        const key = `send-${to}`
        for (const r of replicas) expect((await new PlatformClient(r.platformUrl).get(`/api/wallet/balance/${wallet}`, { user_id: 'idem' }, PWD)).status).to.equal(200)
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => settle(i % 2, '/api/wallet/send', body, key)))
        const finals = results.map((r) => r.final)
        // Every final answer is the first one, byte for byte: status and body.
        expect(finals[0].status, JSON.stringify(finals.map((f) => f.status + f.text))).to.equal(200)
        for (const f of finals) {
            expect(f.status).to.equal(finals[0].status)
            expect(f.text).to.equal(finals[0].text)
        }
        // Exactly one request ran; every other was replayed (after zero or more 409s).
        expect(finals.filter((f) => !f.replayed)).to.have.length(1)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('1.25'))
        expect(await nonceOf(wallet)).to.equal(nonce + 1)
        expect(JSON.parse(finals[0].text).hash).to.be.a('string')

        // Later retries, on either replica: the same answer, still one transfer.
        for (const replica of [0, 1]) {
            const again = await post(replica, '/api/wallet/send', body, key)
            expect(again.status).to.equal(200)
            expect(again.text).to.equal(finals[0].text)
            expect(again.replayed).to.equal(true)
        }
        expect(await nativeBalance(chain, to)).to.equal(parseEther('1.25'))
        expect(await nonceOf(wallet)).to.equal(nonce + 1)
    })

    it('another body, or another signing route, under the same key: 422; a malformed key: 400; no key: sent as before', async function () {
        const to = fresh()
        const body = { address_from: wallet, address_to: to, token: 'NATIVE', amount: '0.5' }
        const key = `reuse-${to}`
        const first = await post(0, '/api/wallet/send', body, key)
        expect(first.status, first.text).to.equal(200)
        for (const replica of [0, 1]) {
            const other = await post(replica, '/api/wallet/send', { ...body, amount: '0.6' }, key)
            expect(other.status, other.text).to.equal(422)
            expect(JSON.parse(other.text)).to.deep.include({ success: false })
            expect(other.text).to.include('idempotency_key_reused')
            const otherRoute = await post(replica, '/api/wallet/withdraw', body, key)
            expect(otherRoute.status, otherRoute.text).to.equal(422)
        }
        // The password is no part of the request's identity: the same body with it in the body replays.
        const withPwd = await post(1, '/api/wallet/send', { ...body, user_pwd: PWD }, key)
        expect(withPwd.status).to.equal(200)
        expect(withPwd.text).to.equal(first.text)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('0.5'))

        for (const bad of ['', 'a b', 'x'.repeat(256), 'ключ']) {
            const res = await fetch(`${replicas[0].platformUrl}/api/wallet/send`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-user-pwd': PWD, 'idempotency-key': bad },
                body: JSON.stringify(body),
            }).catch((err: Error) => err)
            // fetch itself refuses some header values (non-ASCII); those never reach the server.
            if (res instanceof Error) continue
            expect(res.status, `${JSON.stringify(bad)}: ${await res.text()}`).to.equal(400)
        }
        expect(await nativeBalance(chain, to)).to.equal(parseEther('0.5'))

        const plain = await post(0, '/api/wallet/send', body)
        expect(plain.status, plain.text).to.equal(200)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('1'))
    })

    it('a wrong password under a used key is 401, never the stored answer', async function () {
        const to = fresh()
        const body = { address_from: wallet, address_to: to, token: 'NATIVE', amount: '0.1' }
        const key = `auth-${to}`
        expect((await post(0, '/api/wallet/send', body, key)).status).to.equal(200)
        const res = await fetch(`${replicas[1].platformUrl}/api/wallet/send`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-user-pwd': 'not-the-password', 'idempotency-key': key },
            body: JSON.stringify(body),
        })
        expect(res.status).to.equal(401)
    })

    it('SIGKILLed mid-request with its transaction stored: retries on a restarted replica and the other never sign again; one transfer, identical answers', async function () {
        const to = fresh()
        const nonce = await nonceOf(wallet)
        const body = { address_from: wallet, address_to: to, token: 'NATIVE', amount: '2.5' }
        const key = `killed-${to}`
        const stored = async () => (await pool.query('SELECT count(*)::int AS n FROM platform_tx WHERE to_address = $1', [to.toLowerCase()])).rows[0].n as number
        gate.blocked = true
        gate.hang = true
        const first = post(0, '/api/wallet/send', body, key).catch((err: Error) => err)
        await waitFor('the transaction to be stored and its broadcast held', async () => (await stored()) === 1 && gate.refused.length > 0, 30_000, 50)
        // While the first request holds the key, a retry on the other replica is told to wait.
        const waiting = await post(1, '/api/wallet/send', body, key)
        expect(waiting.status, waiting.text).to.equal(409)
        expect(waiting.retryAfter).to.equal('1')

        replicas[0].process.kill('SIGKILL')
        await replicas[0].process.exited
        expect(await first).to.be.instanceOf(Error)
        gate.blocked = false
        gate.hang = false
        await start(0)

        const answers: Answer[] = []
        for (let i = 0; i < 6; i++) answers.push((await settle(i % 2, '/api/wallet/send', body, key)).final)
        // The first answer after the crash comes from what the dead request stored: 202 with its hash.
        expect(answers[0].status, answers[0].text).to.equal(202)
        const recovered = JSON.parse(answers[0].text)
        expect(recovered).to.include({ success: true, pending: true })
        const [row] = (await pool.query('SELECT tx_hash FROM platform_tx WHERE to_address = $1', [to.toLowerCase()])).rows
        expect(recovered.hash).to.equal(row.tx_hash)
        for (const a of answers) {
            expect(a.status).to.equal(202)
            expect(a.text).to.equal(answers[0].text)
        }

        // The stored transaction lands once (the resume pass rebroadcasts its bytes), and nothing else is signed.
        await waitFor('the stored transaction to land', async () => (await nativeBalance(chain, to)) > 0n, 60_000, 200)
        const late = await post(1, '/api/wallet/send', body, key)
        expect(late.text).to.equal(answers[0].text)
        expect(await stored()).to.equal(1)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('2.5'))
        expect(await nonceOf(wallet)).to.equal(nonce + 1)
    })

    it('SIGKILLed before anything was signed: the retry runs the request, once', async function () {
        const to = fresh()
        const body = { address_from: wallet, address_to: to, token: 'NATIVE', amount: '0.3' }
        const key = `early-${to}`
        // A key left in flight by a process that died before signing: its row (no request noted), and no lock held.
        await pool.query(
            `INSERT INTO idempotency_key (scope, key, fingerprint, state, owner) VALUES ('platform:idem', $1, $2, 'in_flight', 'dead')`,
            [key, fingerprintOf('POST', '/api/wallet/send', body, {})]
        )
        const before = await nonceOf(wallet)
        const first = await post(1, '/api/wallet/send', body, key)
        expect(first.status, first.text).to.equal(200)
        expect((await post(0, '/api/wallet/send', body, key)).text).to.equal(first.text)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('0.3'))
        expect(await nonceOf(wallet)).to.equal(before + 1)
    })
})
