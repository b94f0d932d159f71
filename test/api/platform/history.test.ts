import { expect } from 'chai'
import { Client } from 'pg'
import { Address, createWalletClient, http, maxUint256, parseUnits } from 'viem'
import { platformTokenAbi } from '../../../abi'
import { nativeChain, ZERO_FEES } from '../../../common/chain'
import { CHAIN_ID } from '../../support/chain'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { deployer, giveStable, newWallet, ONE, PlatformFixture, setNativeBalance, startPlatform } from './support'

const PWD = 'history password 1'
const OTHER_PWD = 'history password 2'
/** Blocks a mined transaction needs to be `confirmed` in this suite. */
const FINALITY = 3

/** Status and history routes against real sends (docs/platform-api.md, History). */
describe('wallet platform: status and history', function () {
    let f: PlatformFixture
    let wallet: Address

    before(async function () {
        f = await startPlatform({ env: { INDEXER_FINALITY_CONFIRMATION: String(FINALITY), PLATFORM_TX_TIMEOUT_SECONDS: '2' } })
        wallet = await newWallet(f.http, 'hist-alice', PWD)
        await setNativeBalance(f.chain, wallet, 100n * ONE)
    })

    after(async function () {
        await f?.stop()
    })

    const someone = () => privateKeyToAccount(generatePrivateKey()).address
    async function sendNative(from: Address, pwd = PWD): Promise<string> {
        const res = await f.http.post('/api/wallet/send', { address_from: from, address_to: someone(), token: 'NATIVE', amount: '0.01' }, pwd)
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        return res.body.hash
    }
    const page = (address: Address, query: Record<string, string>, pwd = PWD) => f.http.get(`/api/wallet/transactions/${address}`, query, pwd)
    const status = (hash: string, userId = 'hist-alice', pwd = PWD) => f.http.get(`/api/wallet/tx/${hash}`, { user_id: userId }, pwd)
    const mine = (blocks = 1) => f.chain.client.request({ method: 'anvil_mine' as any, params: [`0x${blocks.toString(16)}`] as any })
    const automine = (on: boolean) => f.chain.client.request({ method: 'evm_setAutomine' as any, params: [on] as any })

    it("GET /api/wallet/list: the user's wallets, oldest first, with the user's password only", async function () {
        const second = await newWallet(f.http, 'hist-alice', PWD)
        await newWallet(f.http, 'hist-bob', OTHER_PWD)
        const res = await f.http.get('/api/wallet/list', { user_id: 'hist-alice' }, PWD)
        expect(res.status).to.equal(200)
        expect(res.body.success).to.equal(true)
        expect(res.body.data.user_id).to.equal('hist-alice')
        expect(res.body.data.wallets.map((w: any) => w.address)).to.deep.equal([wallet, second])
        expect(res.body.data.wallets[0].origin).to.equal('random')
        expect((await f.http.get('/api/wallet/list', { user_id: 'hist-alice' }, OTHER_PWD)).status).to.equal(401)
        expect((await f.http.get('/api/wallet/list', { user_id: 'hist-nobody' }, PWD)).status).to.equal(401)
        expect((await f.http.get('/api/wallet/list', {}, PWD)).status).to.equal(400)
    })

    it('pages a wallet\'s transactions newest first, without gaps or repeats, while a send lands between two reads', async function () {
        const sent: string[] = []
        for (let i = 0; i < 7; i++) sent.push(await sendNative(wallet))
        const first = await page(wallet, { limit: '3' })
        expect(first.status, JSON.stringify(first.body)).to.equal(200)
        expect(first.body.data.address).to.equal(wallet)
        expect(first.body.data.transactions).to.have.length(3)
        // A send between two page reads goes to the top: the pages after the first neither repeat nor skip.
        const between = await sendNative(wallet)
        const seen: string[] = first.body.data.transactions.map((t: any) => t.hash)
        let cursor: string | null = first.body.data.next_cursor
        let pages = 1
        while (cursor) {
            const res = await page(wallet, { limit: '3', cursor })
            expect(res.status, JSON.stringify(res.body)).to.equal(200)
            expect(res.body.data.transactions.length).to.be.within(1, 3)
            seen.push(...res.body.data.transactions.map((t: any) => t.hash))
            cursor = res.body.data.next_cursor
            pages++
        }
        expect(pages).to.equal(3)
        expect(seen).to.deep.equal([...sent].reverse())
        expect(seen).to.not.include(between)

        const fresh = await page(wallet, {})
        expect(fresh.body.data.next_cursor).to.equal(null)
        const rows = fresh.body.data.transactions
        expect(rows.map((t: any) => t.hash)).to.deep.equal([between, ...[...sent].reverse()])
        const top = rows[0]
        expect(top).to.include({ from: wallet, stored_status: 'confirmed', step: 0 })
        expect(top.status).to.be.oneOf(['mined', 'confirmed'])
        expect(top.block_number).to.be.a('number')
        expect(top.nonce).to.equal(7)
        expect(rows[rows.length - 1].nonce).to.equal(0)
        // The oldest is deeper than FINALITY blocks by now.
        expect(rows[rows.length - 1].status).to.equal('confirmed')
    })

    it('refuses bad limits and cursors, and another owner\'s wallet (the same 401 as a wrong password)', async function () {
        for (const query of <Record<string, string>[]>[{ limit: '0' }, { limit: '101' }, { limit: 'x' }, { cursor: 'nope!' }, { cursor: Buffer.from('tx:0').toString('base64url') }, { cursor: Buffer.from('12').toString('base64url') }]) {
            const res = await page(wallet, query)
            expect(res.status, JSON.stringify(query)).to.equal(400)
            expect(res.body.success).to.equal(false)
        }
        expect((await f.http.get('/api/wallet/transactions/0x1234', {}, PWD)).status).to.equal(400)
        expect((await page(wallet, {}, OTHER_PWD)).status).to.equal(401)
        expect((await page(wallet, { user_id: 'hist-bob' }, OTHER_PWD)).status).to.equal(401)
        expect((await f.http.get(`/api/wallet/transactions/${wallet}`)).status).to.equal(401)
    })

    it('GET /api/wallet/tx/:hash follows a send from pending to mined to confirmed, with block and gas', async function () {
        await automine(false)
        let hash: string
        try {
            const res = await f.http.post('/api/wallet/send', { address_from: wallet, address_to: someone(), token: 'NATIVE', amount: '0.5' }, PWD)
            expect(res.status, JSON.stringify(res.body)).to.equal(202)
            hash = res.body.hash
            const pending = await status(hash)
            expect(pending.status, JSON.stringify(pending.body)).to.equal(200)
            expect(pending.body.data).to.include({ hash, status: 'pending', block_number: null, gas_used: null, from: wallet, finality_confirmations: FINALITY })
            expect(['signed', 'broadcast']).to.include(pending.body.data.stored_status)
            const listed = (await page(wallet, { limit: '1' })).body.data.transactions[0]
            expect(listed).to.include({ hash, status: 'pending' })
            await mine(1)
        } finally {
            await automine(true)
        }
        const mined = await status(hash)
        expect(mined.body.data).to.include({ status: 'mined', confirmations: 1, gas_used: '21000', effective_gas_price: '0' })
        const block = Number((await f.chain.client.getTransactionReceipt({ hash: hash as `0x${string}` })).blockNumber)
        expect(mined.body.data.block_number).to.equal(block)
        await mine(FINALITY - 1)
        const confirmed = await status(hash)
        expect(confirmed.body.data).to.include({ status: 'confirmed', confirmations: FINALITY, block_number: block, gas_used: '21000' })
    })

    it('a transaction that reverted on the chain is failed; another user\'s or an unknown hash is 404', async function () {
        // A wallet whose key the test holds too: it lets the deployer spend its STABLE.
        const key = generatePrivateKey()
        const holder = privateKeyToAccount(key)
        expect((await f.http.post('/api/wallet/register', { user_id: 'hist-alice', address: holder.address, priv_key: key }, PWD)).status).to.equal(201)
        await setNativeBalance(f.chain, holder.address, ONE)
        await giveStable(f.chain, holder.address, parseUnits('5', 6))
        const stable = f.chain.contracts.stable
        const chain = nativeChain(CHAIN_ID, f.chain.url)
        const approve = await createWalletClient({ account: holder, chain, transport: http(f.chain.url) }).writeContract({
            address: stable, abi: platformTokenAbi, functionName: 'approve', args: [deployer.address, maxUint256], ...ZERO_FEES,
        })
        await f.chain.client.waitForTransactionReceipt({ hash: approve, pollingInterval: 50 })
        // The platform's send passes its simulation; the deployer's transferFrom is mined before it and takes the balance.
        await automine(false)
        let hash: string
        try {
            const res = await f.http.post('/api/wallet/send', { address_from: holder.address, address_to: someone(), token: stable, amount: '5' }, PWD)
            expect(res.status, JSON.stringify(res.body)).to.equal(202)
            hash = res.body.hash
            // Out of the pool until the deployer's transferFrom has taken the balance, then back with the bytes the platform stored.
            await f.chain.client.request({ method: 'anvil_dropTransaction' as any, params: [hash] as any })
            await createWalletClient({ account: deployer, chain, transport: http(f.chain.url) }).writeContract({
                address: stable, abi: platformTokenAbi, functionName: 'transferFrom', args: [holder.address, deployer.address, parseUnits('5', 6)],
                gas: 100_000n, ...ZERO_FEES,
            })
            await mine(1)
            const db = new Client({ connectionString: f.databaseUrl })
            await db.connect()
            const { rows } = await db.query('SELECT raw FROM platform_tx WHERE tx_hash = $1', [hash])
            await db.end()
            await f.chain.client.sendRawTransaction({ serializedTransaction: rows[0].raw }).catch(() => undefined)
            await mine(1)
        } finally {
            await automine(true)
        }
        expect((await f.chain.client.getTransactionReceipt({ hash: hash as `0x${string}` })).status).to.equal('reverted')
        const failed = await status(hash)
        expect(failed.status).to.equal(200)
        expect(failed.body.data).to.include({ hash, status: 'failed', to: stable, from: holder.address })
        expect(failed.body.data.block_number).to.be.a('number')
        expect(Number(failed.body.data.gas_used)).to.be.greaterThan(0)
        const hashes = [hash]

        // Bob proves his own password, and still does not see Alice's transaction, nor learns that it exists.
        const foreign = await status(hashes[0], 'hist-bob', OTHER_PWD)
        expect(foreign.status).to.equal(404)
        const unknown = await status(`0x${'ab'.repeat(32)}`, 'hist-bob', OTHER_PWD)
        expect(unknown.status).to.equal(404)
        expect(foreign.body).to.deep.equal(unknown.body)
        expect((await status(hashes[0], 'hist-alice', OTHER_PWD)).status).to.equal(401)
        expect((await status('0x12', 'hist-alice')).status).to.equal(400)
    })
})
