import { expect } from 'chai'
import { Pool } from 'pg'
import { Address, Hash, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { waitFor } from '../../../common/processes'
import { PlatformProcess, startPlatformProcess } from '../../support/api'
import { BroadcastGate } from '../../support/broadcast-gate'
import { startTestChain, TestChain } from '../../support/chain'
import { createTestDatabase } from '../../support/postgres'
import { nativeBalance, newWallet, PlatformClient, Reply, setNativeBalance } from './support'

const PWD = 'durable-password-123'

/**
 * The platform stores every transaction before broadcasting it (docs/sending.md). The node sits
 * behind a gate that holds back or swallows broadcasts; the api process is SIGKILLed with a
 * transaction stored and restarted on the same database, or stays up while an answer is lost.
 * Each transfer must land exactly once (counted in balances and the wallet's nonce on chain, not
 * in rows), and the next send must take the next nonce.
 */
describe('wallet platform: durable sends (killed after storing, answers lost)', function () {
    let chain: TestChain
    let gate: BroadcastGate
    let databaseUrl: string
    let api: PlatformProcess
    let http: PlatformClient
    let pool: Pool
    let wallet: Address

    // Short enough that a request gives up (202) well before the resume pass's second look.
    const TX_TIMEOUT_SECONDS = 8

    async function start(): Promise<void> {
        api = await startPlatformProcess({ databaseUrl, rpcUrl: gate.url, contracts: chain.contracts, env: { PLATFORM_TX_TIMEOUT_SECONDS: String(TX_TIMEOUT_SECONDS) } })
        http = new PlatformClient(api.platformUrl)
    }

    before(async function () {
        chain = await startTestChain()
        gate = new BroadcastGate(chain.url)
        await gate.start()
        databaseUrl = await createTestDatabase('platform_durable')
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
        await start()
        wallet = await newWallet(http, 'durable', PWD)
        await setNativeBalance(chain, wallet, parseEther('100'))
    })

    after(async function () {
        await pool?.end()
        await api?.stop()
        await gate?.stop()
        await chain?.stop()
    })

    afterEach(async function () {
        gate.blocked = false
        gate.swallow = false
        gate.hang = false
        gate.refusal = undefined
        gate.fanOut = false
        gate.underpriced.clear()
        gate.hidden.clear()
        gate.pendingAsLatest = false
        await chain.client.request({ method: 'evm_setAutomine' as any, params: [true] as any })
        if (api.process.child.exitCode !== null || api.process.child.signalCode !== null) await start()
    })

    const fresh = () => privateKeyToAccount(generatePrivateKey()).address
    const nonceOf = (address: Address) => chain.client.getTransactionCount({ address })
    const send = (to: Address, amount: string): Promise<Reply> =>
        http.post('/api/wallet/send', { address_from: wallet, token: 'NATIVE', amount, address_to: to }, PWD)

    async function rows(): Promise<{ tx_hash: Hash; nonce: string; status: string }[]> {
        return (await pool.query(`SELECT tx_hash, nonce::text, status FROM platform_tx WHERE from_address = $1 ORDER BY id`, [wallet.toLowerCase()])).rows
    }

    /** Starts a send and SIGKILLs the api once `ready` holds (the transaction is stored, and maybe on chain). */
    async function sendAndKill(to: Address, amount: string, ready: () => Promise<boolean>): Promise<void> {
        const reply = send(to, amount).catch((err: Error) => err)
        await waitFor('the transaction to be stored', async () => ready(), 30_000, 50)
        api.process.kill('SIGKILL')
        await api.process.exited
        expect(await reply).to.be.instanceOf(Error)
    }

    /** The next send takes the next nonce and lands. */
    async function nextSendTakesNextNonce(): Promise<void> {
        const before = await nonceOf(wallet)
        const to = fresh()
        const reply = await send(to, '0.25')
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200)
        expect((await chain.client.getTransaction({ hash: reply.body.hash })).nonce).to.equal(before)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('0.25'))
        expect(await nonceOf(wallet)).to.equal(before + 1)
    }

    it('killed with the transaction stored and its bytes held back before the node: the restart sends those bytes, once', async function () {
        const to = fresh()
        const nonce = await nonceOf(wallet)
        const stored = (await rows()).length
        gate.blocked = true
        gate.hang = true
        await sendAndKill(to, '1.5', async () => (await rows()).length > stored && gate.refused.length > 0)
        expect(await nativeBalance(chain, to)).to.equal(0n)
        expect(await nonceOf(wallet)).to.equal(nonce)
        const [row] = (await rows()).slice(stored)
        // The intent was written before the bytes went to the gate: from the row alone they may be out.
        expect(row.status).to.equal('broadcast')

        gate.blocked = false
        await start()
        await waitFor('the stored transaction to land', async () => (await nativeBalance(chain, to)) > 0n, 30_000)
        await waitFor('the row to be noted confirmed', async () => (await rows()).slice(stored)[0].status === 'confirmed', 30_000)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('1.5'))
        expect(await nonceOf(wallet)).to.equal(nonce + 1)
        expect((await chain.client.getTransaction({ hash: row.tx_hash })).nonce).to.equal(nonce)
        await nextSendTakesNextNonce()
    })

    it('killed after the node took the transaction but before its answer came back: the restart finds it mined and sends nothing more', async function () {
        const to = fresh()
        const nonce = await nonceOf(wallet)
        const stored = (await rows()).length
        gate.blocked = true
        gate.swallow = true
        await sendAndKill(to, '2', async () => (await rows()).length > stored && (await nativeBalance(chain, to)) > 0n)
        expect((await rows()).slice(stored)[0].status).to.equal('broadcast')

        gate.blocked = false
        await start()
        await waitFor('the row to be noted confirmed', async () => (await rows()).slice(stored)[0].status === 'confirmed', 30_000)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('2'))
        expect(await nonceOf(wallet)).to.equal(nonce + 1)
        await nextSendTakesNextNonce()
        expect(await nativeBalance(chain, to)).to.equal(parseEther('2'))
    })

    it('an answer lost while the api stays up: the request still answers 200 with the mined transaction', async function () {
        const to = fresh()
        const nonce = await nonceOf(wallet)
        gate.blocked = true
        gate.swallow = true
        const reply = await send(to, '0.5')
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200)
        expect(gate.swallowed).to.have.length.greaterThan(0)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('0.5'))
        expect((await chain.client.getTransaction({ hash: reply.body.hash })).nonce).to.equal(nonce)
        gate.blocked = false
        await nextSendTakesNextNonce()
    })

    it('a broadcast the node never took answers 202; the next send does not reuse its nonce, and both land once the node is back', async function () {
        const first = fresh()
        const second = fresh()
        const nonce = await nonceOf(wallet)
        gate.blocked = true
        const pending = await send(first, '0.75')
        expect(pending.status, JSON.stringify(pending.body)).to.equal(202)
        expect(pending.body).to.include({ success: true, pending: true })
        expect(await nonceOf(wallet)).to.equal(nonce)

        gate.blocked = false
        // The stored transaction holds its nonce: this one is signed with the next, and lands once the resume pass rebroadcasts the first.
        const next = await send(second, '0.5')
        expect(next.status, JSON.stringify(next.body)).to.equal(200)
        expect((await chain.client.getTransaction({ hash: next.body.hash })).nonce).to.equal(nonce + 1)
        expect((await chain.client.getTransaction({ hash: pending.body.hash })).nonce).to.equal(nonce)
        expect(await nativeBalance(chain, first)).to.equal(parseEther('0.75'))
        expect(await nativeBalance(chain, second)).to.equal(parseEther('0.5'))
        expect(await nonceOf(wallet)).to.equal(nonce + 2)
    })

    it('a balancer hands the first broadcast to a node that takes it and answers another\'s refusal: the request follows it and answers 200, one transfer', async function () {
        const to = fresh()
        const nonce = await nonceOf(wallet)
        const stored = (await rows()).length
        gate.blocked = true
        gate.refusal = 'transaction underpriced'
        gate.fanOut = true
        const reply = await send(to, '0.4')
        expect(gate.refused).to.have.length.greaterThan(0)
        // One node's refusal is no evidence: the network held the transaction, so it is the request's answer.
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200)
        const [row] = (await rows()).slice(stored)
        expect(reply.body.hash).to.equal(row.tx_hash)
        expect(row.status).to.equal('confirmed')
        expect(await nativeBalance(chain, to)).to.equal(parseEther('0.4'))
        expect(await nonceOf(wallet)).to.equal(nonce + 1)
        gate.blocked = false
        await nextSendTakesNextNonce()
        expect(await nativeBalance(chain, to)).to.equal(parseEther('0.4'))
    })

    it('a refusal of the first broadcast that two looks confirm: the request is refused, and the next send takes that nonce', async function () {
        const to = fresh()
        const nonce = await nonceOf(wallet)
        const stored = (await rows()).length
        gate.blocked = true
        gate.refusal = 'transaction underpriced'
        const reply = await send(to, '0.6')
        expect(reply.status, JSON.stringify(reply.body)).to.equal(502)
        expect(reply.body.error).to.match(/underpriced/)
        const [row] = (await rows()).slice(stored)
        expect(row.status).to.equal('rejected')
        expect(await nativeBalance(chain, to)).to.equal(0n)
        expect(await nonceOf(wallet)).to.equal(nonce)
        gate.blocked = false
        await nextSendTakesNextNonce()
        expect(await nativeBalance(chain, to)).to.equal(0n)
    })

    it('killed after the bytes reached one node and before its answer; after the restart another node refuses them as underpriced: one transfer, and the next send takes the next nonce', async function () {
        const to = fresh()
        const second = fresh()
        const nonce = await nonceOf(wallet)
        const stored = (await rows()).length
        // The first node keeps what it is given in its pool: the original is there, unmined, while the api restarts.
        await chain.client.request({ method: 'evm_setAutomine' as any, params: [false] as any })
        gate.blocked = true
        gate.swallow = true
        await sendAndKill(to, '1', async () => {
            const row = (await rows())[stored]
            return Boolean(row) && (await chain.client.getTransaction({ hash: row.tx_hash }).then(() => true, () => false))
        })
        const [original] = (await rows()).slice(stored)
        // The intent was stored before the bytes left: the row says they may be out.
        expect(original.status).to.equal('broadcast')

        // The api's node from now on is one that never saw the original: it refuses it and counts no pending nonce.
        gate.blocked = false
        gate.swallow = false
        const raw = (await pool.query(`SELECT raw FROM platform_tx WHERE tx_hash = $1`, [original.tx_hash])).rows[0].raw as string
        gate.underpriced.add(raw.toLowerCase())
        gate.hidden.add(original.tx_hash.toLowerCase())
        gate.pendingAsLatest = true
        await start()
        // Two refusals: the resume pass has dealt with the first one when the next pass sends again.
        await waitFor('the restarted api to rebroadcast the original and be refused twice', async () => gate.underpricedAnswers.length >= 2, 60_000)
        expect((await rows())[stored].status).to.equal('broadcast')

        const reply = send(second, '0.5')
        await waitFor('the next transfer to reach the pool', async () => (await chain.client.getTransactionCount({ address: wallet, blockTag: 'pending' })) === nonce + 2, 30_000)
        await chain.client.request({ method: 'evm_mine' as any, params: [] as any })
        const next = await reply
        expect(next.status, JSON.stringify(next.body)).to.equal(200)
        // Not the original's nonce: a transfer signed there would have had to replace it, and one of the two would not be paid.
        expect((await chain.client.getTransaction({ hash: next.body.hash })).nonce).to.equal(nonce + 1)
        expect((await chain.client.getTransaction({ hash: original.tx_hash })).nonce).to.equal(nonce)
        expect(await nativeBalance(chain, to)).to.equal(parseEther('1'))
        expect(await nativeBalance(chain, second)).to.equal(parseEther('0.5'))
        expect(await nonceOf(wallet)).to.equal(nonce + 2)

        gate.hidden.clear()
        await waitFor('the original to be noted confirmed', async () => (await rows())[stored].status === 'confirmed', 30_000)
    })
})
