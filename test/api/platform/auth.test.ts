import { expect } from 'chai'
import { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { PlatformProcess, startPlatformProcess } from '../../support/api'
import { newWallet, PlatformClient, PlatformFixture, startPlatform } from './support'
import { waitForOutput } from '../../support/output'

const A_PWD = 'password-of-alice'
const B_PWD = 'password-of-bobby'
const AUTH_FAILED = { success: false, error: 'Authentication failed' }

interface Case {
    name: string
    level: 'user' | 'wallet'
    /** A request by `user` on `wallet` (for user-level routes the wallet is only data). */
    call(http: PlatformClient, user: string, wallet: Address, pwd?: string): Promise<{ status: number; body: any }>
}

describe('wallet platform: authentication', function () {
    let f: PlatformFixture
    let alice: Address
    let bob: Address
    let stable: Address
    let wnative: Address

    const cases: Case[] = [
        { name: 'GET /api/wallet/create', level: 'user', call: (h, u, _w, p) => h.get('/api/wallet/create', { user_id: u }, p) },
        { name: 'POST /api/wallet/from-mnemonic', level: 'user', call: (h, u, _w, p) => h.post('/api/wallet/from-mnemonic', { user_id: u, mnemonic: 'legal winner thank year wave sausage worth useful legal winner thank yellow' }, p) },
        { name: 'POST /api/wallet/from-private-key', level: 'user', call: (h, u, _w, p) => h.post('/api/wallet/from-private-key', { user_id: u, privateKey: generatePrivateKey() }, p) },
        { name: 'GET /api/wallet/balance/:address', level: 'user', call: (h, u, w, p) => h.get(`/api/wallet/balance/${w}`, { user_id: u }, p) },
        { name: 'GET /api/token/info/:address', level: 'user', call: (h, u, _w, p) => h.get(`/api/token/info/${stable}`, { user_id: u }, p) },
        { name: 'POST /api/token/info_by_address', level: 'user', call: (h, u, _w, p) => h.post('/api/token/info_by_address', { user_id: u, address: stable }, p) },
        { name: 'GET /api/token/list', level: 'user', call: (h, u, _w, p) => h.get('/api/token/list', { user_id: u }, p) },
        { name: 'GET /api/token/tokens', level: 'user', call: (h, u, _w, p) => h.get('/api/token/tokens', { user_id: u }, p) },
        { name: 'GET /api/pools/list_by_user', level: 'user', call: (h, u, _w, p) => h.get('/api/pools/list_by_user', { user_id: u }, p) },
        { name: 'GET /api/pools/info_by_address', level: 'user', call: (h, u, _w, p) => h.get('/api/pools/info_by_address', { user_id: u, address: stable }, p) },
        { name: 'GET /api/pools/info_by_tokens', level: 'user', call: (h, u, _w, p) => h.get('/api/pools/info_by_tokens', { user_id: u, token1: stable, token2: wnative }, p) },
        { name: 'POST /api/token/deploy', level: 'user', call: (h, u, w, p) => h.post('/api/token/deploy', { user_id: u, address: w, tokenName: 'Auth', tokenSymbol: 'AUTH', totalSupply: '1', destinationAddress: w }, p) },
        { name: 'GET /api/wallet/tokens', level: 'wallet', call: (h, _u, w, p) => h.get('/api/wallet/tokens', { address: w }, p) },
        { name: 'POST /api/wallet/send', level: 'wallet', call: (h, _u, w, p) => h.post('/api/wallet/send', { address_from: w, token: 'NATIVE', amount: '1', address_to: stable }, p) },
        { name: 'POST /api/wallet/withdraw', level: 'wallet', call: (h, _u, w, p) => h.post('/api/wallet/withdraw', { address_from: w, token: stable, amount: '1', address_to: wnative }, p) },
        { name: 'GET /api/pools/list', level: 'wallet', call: (h, _u, w, p) => h.get('/api/pools/list', { address: w }, p) },
        { name: 'GET /api/pools/list_by_user_and_address', level: 'wallet', call: (h, u, w, p) => h.get('/api/pools/list_by_user_and_address', { user_id: u, user_addr: w }, p) },
        { name: 'POST /api/pools/add_liquidity', level: 'wallet', call: (h, _u, w, p) => h.post('/api/pools/add_liquidity', { token1: stable, token2: wnative, amount1_desired: '1', amount2_desired: '1', amount1_min: '0', amount2_min: '0', address: w }, p) },
        { name: 'POST /api/pools/add_liquidity_native', level: 'wallet', call: (h, _u, w, p) => h.post('/api/pools/add_liquidity_native', { token: stable, amount_token_desired: '1', amount_native_desired: '1', amount_token_min: '0', amount_native_min: '0', address: w }, p) },
        { name: 'POST /api/pools/remove_liquidity', level: 'wallet', call: (h, _u, w, p) => h.post('/api/pools/remove_liquidity', { token1: stable, token2: wnative, liquidity: '1', amount1_min: '0', amount2_min: '0', address_to: w }, p) },
        { name: 'POST /api/pools/remove_liquidity_native', level: 'wallet', call: (h, _u, w, p) => h.post('/api/pools/remove_liquidity_native', { token: stable, liquidity: '1', amount_token_min: '0', amount_native_min: '0', address_to: w }, p) },
        { name: 'POST /api/swap/execute_exact_tokens_for_tokens', level: 'wallet', call: (h, _u, w, p) => h.post('/api/swap/execute_exact_tokens_for_tokens', { amount_in: '1', amount_out_min: '0', token1: stable, token2: wnative, from: w, to: w }, p) },
        { name: 'POST /api/swap/execute_tokens_for_exact_tokens', level: 'wallet', call: (h, _u, w, p) => h.post('/api/swap/execute_tokens_for_exact_tokens', { amount_in_max: '1', amount_out: '1', token1: stable, token2: wnative, from: w, to: w }, p) },
        { name: 'POST /api/swap/execute_exact_native_for_tokens', level: 'wallet', call: (h, _u, w, p) => h.post('/api/swap/execute_exact_native_for_tokens', { amount_native: '1', amount_out_min: '0', token: stable, from: w, to: w }, p) },
        { name: 'POST /api/swap/execute_native_for_exact_tokens', level: 'wallet', call: (h, _u, w, p) => h.post('/api/swap/execute_native_for_exact_tokens', { amount_native: '1', amount_out_min: '1', token: stable, from: w, to: w }, p) },
        { name: 'POST /api/swap/execute_exact_tokens_for_native', level: 'wallet', call: (h, _u, w, p) => h.post('/api/swap/execute_exact_tokens_for_native', { amount_in_max: '1', amount_out: '0', token1: stable, token2: 'NATIVE', from: w, to: w }, p) },
        { name: 'POST /api/swap/execute_tokens_for_exact_native', level: 'wallet', call: (h, _u, w, p) => h.post('/api/swap/execute_tokens_for_exact_native', { amount_in_max: '1', amount_out: '1', token1: stable, from: w, to: w }, p) },
    ]

    before(async function () {
        // The matrix fails far more often than the default limits allow, all from one IP; the limits have their own tests.
        f = await startPlatform({ env: { PLATFORM_AUTH_MAX_FAILURES: '10000', PLATFORM_AUTH_IP_MAX_FAILURES: '10000' } })
        stable = f.chain.contracts.stable
        wnative = f.chain.contracts.wnative
        alice = await newWallet(f.http, 'alice', A_PWD)
        bob = await newWallet(f.http, 'bob', B_PWD)
    })

    after(async function () {
        await f?.stop()
    })

    for (const c of cases) {
        it(`${c.name} (${c.level}-level): one 401 for no password, a wrong one, and someone else's ${c.level === 'wallet' ? 'wallet' : 'user_id'}`, async function () {
            const failures = [
                await c.call(f.http, 'alice', alice, undefined),
                await c.call(f.http, 'alice', alice, 'wrong password'),
                // Bob's password on Alice's user_id or wallet
                await c.call(f.http, 'alice', alice, B_PWD),
            ]
            if (c.level === 'user') {
                failures.push(await c.call(f.http, 'nobody', alice, A_PWD))
            } else {
                // Alice proves who she is, but the wallet is Bob's: user-level proof where wallet-level is needed.
                failures.push(await c.call(f.http, 'alice', bob, A_PWD))
                // A wallet the platform does not manage at all
                failures.push(await c.call(f.http, 'alice', privateKeyToAccount(generatePrivateKey()).address, A_PWD))
            }
            for (const res of failures) {
                expect(res.status, JSON.stringify(res.body)).to.equal(401)
                expect(res.body).to.deep.equal(AUTH_FAILED)
            }
            const ok = await c.call(f.http, 'alice', alice, A_PWD)
            expect(ok.status, JSON.stringify(ok.body)).to.not.equal(401)
            expect(ok.status, JSON.stringify(ok.body)).to.be.below(500)
        })
    }

    it('names the user too on wallet-level routes when user_id is given, and the wallet must be that user\'s', async function () {
        const mismatch = await f.http.get('/api/pools/list_by_user_and_address', { user_id: 'bob', user_addr: alice }, A_PWD)
        expect(mismatch.status).to.equal(401)
        const sendAsBob = await f.http.post('/api/wallet/send', { user_id: 'bob', address_from: alice, token: 'NATIVE', amount: '1', address_to: bob }, B_PWD)
        expect(sendAsBob.status).to.equal(401)
        expect(sendAsBob.body).to.deep.equal(AUTH_FAILED)
    })

    it('takes the password from the header first, then the body, then the query (logged without its value)', async function () {
        const headerWins = await f.http.post('/api/wallet/from-private-key', { user_id: 'alice', user_pwd: A_PWD, privateKey: generatePrivateKey() }, 'wrong password')
        expect(headerWins.status).to.equal(401)
        const body = await f.http.post('/api/wallet/from-private-key', { user_id: 'alice', user_pwd: A_PWD, privateKey: generatePrivateKey() })
        expect(body.status).to.equal(201)
        const query = await f.http.get(`/api/wallet/balance/${alice}`, { user_id: 'alice', user_pwd: A_PWD })
        expect(query.status).to.equal(200)
        await waitForOutput(f.platform, 'user_pwd query parameter')
        expect(f.platform.output()).to.not.include(A_PWD)
        const nonString = await f.http.post('/api/wallet/from-private-key', { user_id: 'alice', user_pwd: 12345678, privateKey: generatePrivateKey() })
        expect(nonString.status).to.equal(401)
    })

    describe('repeated failures', function () {
        let limited: PlatformProcess
        let http: PlatformClient

        before(async function () {
            limited = await startPlatformProcess({
                databaseUrl: f.databaseUrl, rpcUrl: f.chain.url, contracts: f.chain.contracts,
                // The matrix's failures came from this IP too; the per-IP limit has its test in auth-limits.test.ts.
                env: { PLATFORM_AUTH_MAX_FAILURES: '3', PLATFORM_AUTH_IP_MAX_FAILURES: '10000', PLATFORM_AUTH_CACHE_SECONDS: '0' },
            })
            http = new PlatformClient(limited.platformUrl)
        })

        after(async function () {
            await limited?.stop()
        })

        it('rate-limits a user_id after the allowed failures, with RateLimit headers, and no other user', async function () {
            await newWallet(http, 'target', 'target-password')
            for (let i = 0; i < 3; i++) {
                expect((await http.get('/api/token/list', { user_id: 'target' }, 'guess')).status).to.equal(401)
            }
            const blocked = await http.get('/api/token/list', { user_id: 'target' }, 'target-password')
            expect(blocked.status).to.equal(429)
            expect(blocked.body.success).to.equal(false)
            expect(blocked.headers.get('ratelimit-limit')).to.equal('3')
            expect(blocked.headers.get('ratelimit-remaining')).to.equal('0')
            expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0)
            // Shared through Postgres: the other api process refuses too.
            expect((await f.http.get('/api/token/list', { user_id: 'target' }, 'guess')).status).to.equal(401)
            await newWallet(http, 'bystander', 'bystander-password')
            expect((await http.get('/api/token/list', { user_id: 'bystander' }, 'bystander-password')).status).to.equal(200)
        })

        it('counts failures for unknown users the same way, and a success clears the count', async function () {
            for (let i = 0; i < 3; i++) expect((await http.get('/api/token/list', { user_id: 'ghost' }, 'guess')).status).to.equal(401)
            expect((await http.get('/api/token/list', { user_id: 'ghost' }, 'guess')).status).to.equal(429)

            await newWallet(http, 'clearer', 'clearer-password')
            for (let i = 0; i < 2; i++) expect((await http.get('/api/token/list', { user_id: 'clearer' }, 'guess')).status).to.equal(401)
            expect((await http.get('/api/token/list', { user_id: 'clearer' }, 'clearer-password')).status).to.equal(200)
            for (let i = 0; i < 2; i++) expect((await http.get('/api/token/list', { user_id: 'clearer' }, 'guess')).status).to.equal(401)
            expect((await http.get('/api/token/list', { user_id: 'clearer' }, 'clearer-password')).status).to.equal(200)
        })
    })
})
