import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client } from 'pg'
import { Address, parseEther, parseUnits } from 'viem'
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { startPlatformProcess } from '../../support/api'
import {
    deployer, giveStable, nativeBalance, newWallet, ONE, PlatformClient, PlatformFixture, setNativeBalance, startPlatform, tokenBalance,
    transferFromDeployer, waitForIndexedHead,
} from './support'

const PWD = 'correct horse battery'

describe('wallet platform: wallets, balances and transfers', function () {
    let f: PlatformFixture

    before(async function () {
        f = await startPlatform({ indexer: true })
    })

    after(async function () {
        await f?.stop()
    })

    describe('GET /health', function () {
        it('answers without authentication with status, timestamp, chain id and rpcConfigured', async function () {
            const res = await f.http.get('/health')
            expect(res.status).to.equal(200)
            expect(res.body).to.deep.include({ status: 'ok', chainId: '3009', rpcConfigured: true })
            expect(new Date(res.body.timestamp).toISOString()).to.equal(res.body.timestamp)
        })

        it('without chain contracts configured: rpcConfigured false and 503 on chain routes, the rest still works', async function () {
            const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-nochain-'))
            const bare = await startPlatformProcess({ databaseUrl: f.databaseUrl, env: { DATA_DIR: dataDir } })
            try {
                const http = new PlatformClient(bare.platformUrl)
                expect((await http.get('/health')).body.rpcConfigured).to.equal(false)
                const wallet = await newWallet(http, 'no-chain-user', PWD)
                const res = await http.get(`/api/wallet/balance/${wallet}`, { user_id: 'no-chain-user' }, PWD)
                expect(res.status).to.equal(503)
                expect(res.body.success).to.equal(false)
                expect(res.body.error).to.match(/not|no chain/i)
            } finally {
                await bare.stop()
                fs.rmSync(dataDir, { recursive: true, force: true })
            }
        })
    })

    describe('POST /api/wallet/register', function () {
        it('stores an existing key for a new user and returns its address', async function () {
            const key = generatePrivateKey()
            const address = privateKeyToAccount(key).address
            const res = await f.http.post('/api/wallet/register', { user_id: 'reg-alice', user_pwd: PWD, address, priv_key: key })
            expect(res.status).to.equal(201)
            expect(res.body).to.deep.equal({ success: true, data: { address } })
        })

        it('adds a second wallet to an existing user only with that user\'s password', async function () {
            const key = generatePrivateKey()
            const address = privateKeyToAccount(key).address
            const wrong = await f.http.post('/api/wallet/register', { user_id: 'reg-alice', user_pwd: 'not the password', address, priv_key: key })
            expect(wrong.status).to.equal(401)
            expect(wrong.body).to.deep.equal({ success: false, error: 'Authentication failed' })
            const right = await f.http.post('/api/wallet/register', { user_id: 'reg-alice', user_pwd: PWD, address, priv_key: key })
            expect(right.status).to.equal(201)
            const again = await f.http.post('/api/wallet/register', { user_id: 'reg-alice', user_pwd: PWD, address, priv_key: key })
            expect(again.status).to.equal(200)
            expect(again.body.data.address).to.equal(address)
        })

        it('refuses a key that is not the address\'s, an address held by another user, and malformed input', async function () {
            const key = generatePrivateKey()
            const other = privateKeyToAccount(generatePrivateKey()).address
            const mismatch = await f.http.post('/api/wallet/register', { user_id: 'reg-bob', user_pwd: PWD, address: other, priv_key: key })
            expect(mismatch.status).to.equal(400)
            expect(mismatch.body.success).to.equal(false)
            expect(mismatch.body.error).to.match(/priv_key/)

            const address = privateKeyToAccount(key).address
            expect((await f.http.post('/api/wallet/register', { user_id: 'reg-bob', user_pwd: PWD, address, priv_key: key })).status).to.equal(201)
            const taken = await f.http.post('/api/wallet/register', { user_id: 'reg-carol', user_pwd: PWD, address, priv_key: key })
            expect(taken.status).to.equal(409)

            for (const body of [
                {},
                { user_id: 'x', user_pwd: PWD, address: 'nope', priv_key: key },
                { user_id: 'x', user_pwd: PWD, address, priv_key: '0x1234' },
                { user_id: 'x', user_pwd: PWD, address, priv_key: '0x' + '00'.repeat(32) },
                { user_id: 'x', user_pwd: PWD, address: address.toLowerCase().replace('0x', '0X'), priv_key: key },
                { user_id: 12, user_pwd: PWD, address, priv_key: key },
                { user_id: '', user_pwd: PWD, address, priv_key: key },
            ]) {
                const res = await f.http.post('/api/wallet/register', body)
                expect(res.status, JSON.stringify(body)).to.equal(400)
                expect(res.body.success).to.equal(false)
                expect(res.body.error).to.be.a('string')
            }
            // A mistyped EIP-55 checksum is refused, not silently accepted.
            const badChecksum = address.replace(/[a-f]/, (c) => c.toUpperCase())
            if (badChecksum !== address) {
                const res = await f.http.post('/api/wallet/register', { user_id: 'x', user_pwd: PWD, address: badChecksum, priv_key: key })
                expect(res.status).to.equal(400)
            }
        })

        it('requires a password of at least 8 characters for a new user, and a password at all', async function () {
            const key = generatePrivateKey()
            const address = privateKeyToAccount(key).address
            expect((await f.http.post('/api/wallet/register', { user_id: 'reg-short', user_pwd: 'short', address, priv_key: key })).status).to.equal(400)
            const none = await f.http.post('/api/wallet/register', { user_id: 'reg-short', address, priv_key: key })
            expect(none.status).to.equal(401)
        })
    })

    describe('POST /api/wallet/register_random', function () {
        it('creates and stores a random wallet, returning the spec\'s record', async function () {
            const res = await f.http.post('/api/wallet/register_random', { user_id: 'rand-user', user_pwd: PWD })
            expect(res.status).to.equal(201)
            expect(res.body.success).to.equal(true)
            expect(res.body.result).to.have.keys('user_id', 'pub_key', 'address', 'created_at', 'updated_at')
            expect(res.body.result.user_id).to.equal('rand-user')
            expect(res.body.result.pub_key).to.match(/^0x[0-9a-fA-F]{40}$/)
            const second = await f.http.post('/api/wallet/register_random', { user_id: 'rand-user', user_pwd: PWD })
            expect(second.status).to.equal(201)
            expect(second.body.result.pub_key).to.not.equal(res.body.result.pub_key)
            expect((await f.http.post('/api/wallet/register_random', { user_id: 'rand-user', user_pwd: 'wrong password' })).status).to.equal(401)
            expect((await f.http.post('/api/wallet/register_random', { user_pwd: PWD })).status).to.equal(400)
            expect((await f.http.post('/api/wallet/register_random', { user_id: ['a'], user_pwd: PWD })).status).to.equal(400)
        })
    })

    describe('GET /api/wallet/create', function () {
        it('returns a random wallet (address, key, mnemonic) without storing it', async function () {
            await newWallet(f.http, 'create-user', PWD)
            const res = await f.http.get('/api/wallet/create', { user_id: 'create-user' }, PWD)
            expect(res.status).to.equal(200)
            expect(res.headers.get('cache-control')).to.equal('no-store')
            const { address, privateKey, mnemonic } = res.body
            expect(mnemonic.split(' ')).to.have.length(12)
            expect(mnemonicToAccount(mnemonic).address).to.equal(address)
            expect(privateKeyToAccount(privateKey).address).to.equal(address)
            const db = new Client({ connectionString: f.databaseUrl })
            await db.connect()
            const { rowCount } = await db.query('SELECT 1 FROM platform_wallet WHERE address = $1', [address.toLowerCase()])
            await db.end()
            expect(rowCount).to.equal(0)
            expect((await f.http.get('/api/wallet/create', {}, PWD)).status).to.equal(400)
            expect((await f.http.get('/api/wallet/create', { user_id: 'create-user' })).status).to.equal(401)
        })
    })

    describe('POST /api/wallet/from-mnemonic and /from-private-key', function () {
        const mnemonic = 'legal winner thank year wave sausage worth useful legal winner thank yellow'

        it('imports the first account of a mnemonic into the user\'s wallets', async function () {
            await newWallet(f.http, 'import-user', PWD)
            const res = await f.http.post('/api/wallet/from-mnemonic', { user_id: 'import-user', user_pwd: PWD, mnemonic })
            expect(res.status).to.equal(201)
            const expected = mnemonicToAccount(mnemonic)
            expect(res.body.address).to.equal(expected.address)
            expect(privateKeyToAccount(res.body.privateKey).address).to.equal(expected.address)
            // Imported means usable: a wallet-level route accepts it with the user's password.
            expect((await f.http.get('/api/wallet/tokens', { address: expected.address }, PWD)).status).to.equal(200)
        })

        it('gives 400 for an invalid phrase', async function () {
            for (const phrase of ['legal winner thank year wave sausage worth useful legal winner thank thank', 'not a mnemonic', '']) {
                const res = await f.http.post('/api/wallet/from-mnemonic', { user_id: 'import-user', user_pwd: PWD, mnemonic: phrase })
                expect(res.status, phrase).to.equal(400)
                expect(res.body.success).to.equal(false)
            }
            expect((await f.http.post('/api/wallet/from-mnemonic', { user_id: 'import-user', user_pwd: PWD })).status).to.equal(400)
        })

        it('imports a private key, with or without 0x; 400 for an invalid one', async function () {
            const key = generatePrivateKey()
            const res = await f.http.post('/api/wallet/from-private-key', { user_id: 'import-user', user_pwd: PWD, privateKey: key.slice(2) })
            expect(res.status).to.equal(201)
            expect(res.body).to.deep.equal({ success: true, address: privateKeyToAccount(key).address })
            for (const privateKey of ['0x12', 'zz'.repeat(32), '0x' + 'ff'.repeat(32)]) {
                expect((await f.http.post('/api/wallet/from-private-key', { user_id: 'import-user', user_pwd: PWD, privateKey })).status).to.equal(400)
            }
            // user-level: an unknown user gets the same 401 as a wrong password
            const unknown = await f.http.post('/api/wallet/from-private-key', { user_id: 'nobody-here', user_pwd: PWD, privateKey: generatePrivateKey() })
            expect(unknown.status).to.equal(401)
            expect(unknown.body).to.deep.equal({ success: false, error: 'Authentication failed' })
        })
    })

    describe('balances and transfers', function () {
        let wallet: Address
        const recipient = privateKeyToAccount(generatePrivateKey()).address

        before(async function () {
            wallet = await newWallet(f.http, 'sender', PWD)
            await setNativeBalance(f.chain, wallet, parseEther('100'))
            await giveStable(f.chain, wallet, parseUnits('1000', 6))
        })

        it('GET /api/wallet/balance/:address gives anative and NATIVE strings', async function () {
            const res = await f.http.get(`/api/wallet/balance/${wallet}`, { user_id: 'sender' }, PWD)
            expect(res.status).to.equal(200)
            expect(res.body).to.deep.equal({ success: true, data: { address: wallet, balance: parseEther('100').toString(), balanceEth: '100' } })
            expect((await f.http.get('/api/wallet/balance/0x1234', { user_id: 'sender' }, PWD)).status).to.equal(400)
            expect((await f.http.get(`/api/wallet/balance/${wallet}`, {}, PWD)).status).to.equal(400)
        })

        it('sends the native coin (amount in whole NATIVE) and an ERC-20 (amount in whole tokens)', async function () {
            const native = await f.http.post('/api/wallet/send', { address_from: wallet, token: 'NATIVE', amount: '1.5', address_to: recipient }, PWD)
            expect(native.status, JSON.stringify(native.body)).to.equal(200)
            expect(native.body.success).to.equal(true)
            expect(native.body.hash).to.match(/^0x[0-9a-f]{64}$/)
            expect(await nativeBalance(f.chain, recipient)).to.equal(parseEther('1.5'))

            const stable = await f.http.post('/api/wallet/withdraw', { address_from: wallet, token: f.chain.contracts.stable, amount: '12.345678', address_to: recipient, user_pwd: PWD })
            expect(stable.status, JSON.stringify(stable.body)).to.equal(200)
            // amount in whole tokens, as the spec has it, and its base-unit twin (docs/platform-api.md, Amounts per route).
            expect(stable.body).to.include({ amount: '12.345678', amount_raw: '12345678' })
            expect(await tokenBalance(f.chain, f.chain.contracts.stable, recipient)).to.equal(12_345_678n)
            const receipt = await f.chain.client.getTransactionReceipt({ hash: stable.body.hash })
            expect(receipt.status).to.equal('success')
        })

        it('refuses more fractional digits than the token has, non-positive and malformed amounts, and overdrafts', async function () {
            const base = { address_from: wallet, address_to: recipient }
            const cases: [Record<string, unknown>, RegExp][] = [
                [{ token: f.chain.contracts.stable, amount: '1.0000001' }, /fractional digits/],
                [{ token: 'NATIVE', amount: '0.0000000000000000001' }, /fractional digits/],
                [{ token: 'NATIVE', amount: '0' }, /greater than 0/],
                [{ token: 'NATIVE', amount: '-1' }, /decimal/],
                [{ token: 'NATIVE', amount: '1e3' }, /decimal/],
                [{ token: 'NATIVE', amount: 1e21 }, /decimal string/],
                [{ token: 'NATIVE', amount: true }, /amount/],
                [{ token: 'NATIVE' }, /amount is required/],
                [{ token: 'GOLD', amount: '1' }, /token/],
                [{ token: 'NATIVE', amount: '1000' }, /insufficient funds/],
                [{ token: f.chain.contracts.stable, amount: '5000' }, /insufficient STABLE balance/],
                [{ token: recipient, amount: '1' }, /no contract/i],
                [{ token: 'NATIVE', amount: '1', address_to: '0x0000000000000000000000000000000000000000' }, /zero address/],
            ]
            for (const [body, message] of cases) {
                const res = await f.http.post('/api/wallet/send', { ...base, ...body }, PWD)
                expect(res.status, JSON.stringify(body)).to.equal(400)
                expect(res.body.success).to.equal(false)
                expect(res.body.error, JSON.stringify(body)).to.match(message)
            }
            const malformed = await f.http.send('POST', '/api/wallet/send', undefined, PWD, '{"address_from": ')
            expect(malformed.status).to.equal(400)
            expect(malformed.body).to.deep.equal({ success: false, error: 'Malformed JSON body' })
        })

        it('lands 50 concurrent sends from one wallet with consecutive nonces', async function () {
            const before = await f.chain.client.getTransactionCount({ address: wallet })
            const replies = await Promise.all(Array.from({ length: 50 }, (_, i) =>
                f.http.post('/api/wallet/send', { address_from: wallet, token: 'NATIVE', amount: `0.0${String(i + 1).padStart(2, '0')}`, address_to: recipient }, PWD)
            ))
            for (const r of replies) expect(r.status, JSON.stringify(r.body)).to.equal(200)
            const txs = await Promise.all(replies.map((r) => f.chain.client.getTransaction({ hash: r.body.hash })))
            const nonces = txs.map((t) => t.nonce).sort((a, b) => a - b)
            expect(nonces).to.deep.equal(Array.from({ length: 50 }, (_, i) => before + i))
            const receipts = await Promise.all(replies.map((r) => f.chain.client.getTransactionReceipt({ hash: r.body.hash })))
            expect(receipts.every((r) => r.status === 'success')).to.equal(true)
            expect(await f.chain.client.getTransactionCount({ address: wallet })).to.equal(before + 50)
        })

        it('recovers from a refused send without leaving a nonce gap', async function () {
            const poor = await newWallet(f.http, 'poor-sender', PWD)
            await setNativeBalance(f.chain, poor, ONE)
            // Concurrent sends of which some must fail on funds: the ones that pass keep consecutive nonces.
            const replies = await Promise.all(Array.from({ length: 6 }, () =>
                f.http.post('/api/wallet/send', { address_from: poor, token: 'NATIVE', amount: '0.3', address_to: recipient }, PWD)
            ))
            const ok = replies.filter((r) => r.status === 200)
            expect(ok.length).to.be.within(1, 3)
            for (const r of replies.filter((r) => r.status !== 200)) {
                expect(r.status).to.equal(400)
                expect(r.body.error).to.match(/insufficient funds/)
            }
            const txs = await Promise.all(ok.map((r) => f.chain.client.getTransaction({ hash: r.body.hash })))
            expect(txs.map((t) => t.nonce).sort()).to.deep.equal(ok.map((_, i) => i))
            const after = await f.http.post('/api/wallet/send', { address_from: poor, token: 'NATIVE', amount: '0.01', address_to: recipient }, PWD)
            expect(after.status).to.equal(200)
            expect((await f.chain.client.getTransaction({ hash: after.body.hash })).nonce).to.equal(ok.length)
        })

        it('GET /api/wallet/tokens lists the wallet\'s token balances from the indexer', async function () {
            const holder = await newWallet(f.http, 'token-holder', PWD)
            await giveStable(f.chain, holder, parseUnits('42.5', 6))
            await waitForIndexedHead(f)
            const res = await f.http.get('/api/wallet/tokens', { address: holder }, PWD)
            expect(res.status).to.equal(200)
            expect(res.body.success).to.equal(true)
            expect(res.body.tokens).to.deep.equal([{
                token: f.chain.contracts.stable,
                name: await f.chain.client.readContract({ address: f.chain.contracts.stable, abi: [{ type: 'function', name: 'name', inputs: [], outputs: [{ type: 'string' }], stateMutability: 'view' }] as const, functionName: 'name' }),
                symbol: 'STABLE',
                decimals: 6,
                type: res.body.tokens[0].type,
                balance: '42500000',
                balanceFormatted: '42.5',
            }])
            expect([res.body.total, res.body.limit, res.body.offset]).to.deep.equal([1, 1000, 0])
            const beyond = await f.http.get('/api/wallet/tokens', { address: holder, limit: '1', offset: '1' }, PWD)
            expect([beyond.body.tokens, beyond.body.total]).to.deep.equal([[], 1])
            expect((await f.http.get('/api/wallet/tokens', { address: holder, limit: '1001' }, PWD)).status).to.equal(400)
            expect((await f.http.get('/api/wallet/tokens', { address: 'x' }, PWD)).status).to.equal(400)
            expect((await f.http.get('/api/wallet/tokens', {}, PWD)).status).to.equal(400)
        })

        it('sends a token deployed outside the platform, read from the chain', async function () {
            const holder = await newWallet(f.http, 'outside-token', PWD)
            await giveStable(f.chain, deployer.address, 5_000_000n)
            await transferFromDeployer(f.chain, f.chain.contracts.stable, holder, 5_000_000n)
            const res = await f.http.post('/api/wallet/send', { address_from: holder, token: f.chain.contracts.stable.toLowerCase(), amount: 5, address_to: recipient }, PWD)
            expect(res.status, JSON.stringify(res.body)).to.equal(200)
            expect(res.body.amount).to.equal('5')
        })
    })

    describe('storage', function () {
        it('keeps no private key, mnemonic or password in clear in any platform table', async function () {
            const key = generatePrivateKey()
            const address = privateKeyToAccount(key).address
            const password = 'dump-test-password-123'
            await f.http.post('/api/wallet/register', { user_id: 'dump-user', user_pwd: password, address, priv_key: key })
            const mnemonic = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
            const imported = await f.http.post('/api/wallet/from-mnemonic', { user_id: 'dump-user', user_pwd: password, mnemonic })
            expect(imported.status).to.equal(201)
            const db = new Client({ connectionString: f.databaseUrl })
            await db.connect()
            try {
                const { rows: columns } = await db.query(
                    `SELECT table_name, column_name, data_type FROM information_schema.columns
                     WHERE table_schema = 'public' AND table_name LIKE 'platform_%' AND data_type IN ('text', 'bytea', 'character varying', 'jsonb')`
                )
                expect(columns.length).to.be.greaterThan(10)
                let dump = ''
                for (const c of columns) {
                    const { rows } = await db.query(`SELECT "${c.column_name}"::text AS v, ${c.data_type === 'bytea' ? `encode("${c.column_name}", 'escape')` : 'NULL'} AS raw FROM "${c.table_name}"`)
                    for (const r of rows) dump += `${r.v ?? ''}\n${r.raw ?? ''}\n`
                }
                expect(dump).to.include('dump-user')
                const secrets = [key.slice(2), imported.body.privateKey.slice(2), password, 'abandon abandon', 'correct horse battery']
                // bytea columns are dumped as hex (::text) and as escaped bytes, so raw key bytes would show as hex here.
                for (const secret of secrets) expect(dump.toLowerCase()).to.not.include(secret.toLowerCase())
                expect(dump).to.not.include(Buffer.from(password).toString('base64'))
            } finally {
                await db.end()
            }
        })

        it('answers unknown routes with a 404 in the platform error shape', async function () {
            const res = await f.http.get('/api/wallet/nope')
            expect(res.status).to.equal(404)
            expect(res.body).to.deep.equal({ success: false, error: 'No such route' })
        })
    })
})
