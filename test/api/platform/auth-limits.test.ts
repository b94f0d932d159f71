import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { PlatformProcess, startPlatformProcess } from '../../support/api'
import { createTestDatabase } from '../../support/postgres'
import { newWallet, nextIp, PlatformClient, Reply } from './support'

const PWD = 'password-of-the-owner'

/** Password checks on a route that needs no chain: GET /api/wallet/create is user-level. */
const signIn = (http: PlatformClient, userId: string, pwd: string) => http.get('/api/wallet/create', { user_id: userId }, pwd)

function expectRefused(res: Reply, status: 429 | 503): void {
    expect(res.status, JSON.stringify(res.body)).to.equal(status)
    expect(res.body.success).to.equal(false)
    expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0)
}

describe('wallet platform: limits under abuse', function () {
    let databaseUrl: string
    let dataDir: string
    const started: PlatformProcess[] = []

    /** The api without a chain (these routes need none), behind a declared proxy so each client picks its IP. */
    async function platform(env: Record<string, string>): Promise<PlatformProcess> {
        const api = await startPlatformProcess({ databaseUrl, env: { DATA_DIR: dataDir, TRUST_PROXY: 'true', PLATFORM_AUTH_CACHE_SECONDS: '0', ...env } })
        started.push(api)
        return api
    }

    before(async function () {
        databaseUrl = await createTestDatabase('platform-limits')
        dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-limits-'))
    })

    after(async function () {
        for (const api of started) await api.stop()
        fs.rmSync(dataDir, { recursive: true, force: true })
    })

    describe('failed passwords', function () {
        let api: PlatformProcess

        before(async function () {
            api = await platform({ PLATFORM_AUTH_MAX_FAILURES: '3', PLATFORM_AUTH_IP_MAX_FAILURES: '5' })
        })

        it('a guesser at one IP is refused, and the owner at another IP still gets in', async function () {
            const owner = new PlatformClient(api.platformUrl, nextIp())
            const attacker = new PlatformClient(api.platformUrl, nextIp())
            await newWallet(owner, 'victim', PWD)
            for (let i = 0; i < 3; i++) expect((await signIn(attacker, 'victim', `guess-${i}`)).status).to.equal(401)
            for (let i = 0; i < 10; i++) expectRefused(await signIn(attacker, 'victim', `guess-${i}`), 429)
            // Refused before the password is looked at: the right one from the guessing IP is refused too.
            const blocked = await signIn(attacker, 'victim', PWD)
            expectRefused(blocked, 429)
            expect(blocked.headers.get('ratelimit-limit')).to.equal('3')

            const ok = await signIn(owner, 'victim', PWD)
            expect(ok.status, JSON.stringify(ok.body)).to.equal(200)
            // From a third IP, the guessing starts from nothing: the owner's account holds no count of its own.
            expect((await signIn(new PlatformClient(api.platformUrl, nextIp()), 'victim', 'guess')).status).to.equal(401)
        })

        it('guesses sent at once get no more checks than the limit: each is counted before its hash', async function () {
            await newWallet(new PlatformClient(api.platformUrl, nextIp()), 'raced', PWD)
            const guesser = new PlatformClient(api.platformUrl, nextIp())
            const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn(guesser, 'raced', `guess-${i}`)))
            const statuses = replies.map((r) => r.status).sort()
            expect(statuses).to.deep.equal([...Array(3).fill(401), ...Array(9).fill(429)])
            expect((await signIn(new PlatformClient(api.platformUrl, nextIp()), 'raced', PWD)).status).to.equal(200)
        })

        it('counts an IP\'s failures over all user_ids and wallets, so spreading guesses does not help', async function () {
            const owner = new PlatformClient(api.platformUrl, nextIp())
            const sprayer = new PlatformClient(api.platformUrl, nextIp())
            const wallet = await newWallet(owner, 'sprayed', PWD)
            for (let i = 0; i < 4; i++) expect((await signIn(sprayer, `nobody-${i}`, 'guess')).status).to.equal(401)
            expect((await sprayer.get('/api/wallet/tokens', { address: wallet }, 'guess')).status).to.equal(401)
            const refused = await signIn(sprayer, 'nobody-else', 'guess')
            expectRefused(refused, 429)
            expect(refused.headers.get('ratelimit-limit')).to.equal('5')
            expectRefused(await sprayer.get('/api/wallet/tokens', { address: wallet }, PWD), 429)
            expect((await signIn(owner, 'sprayed', PWD)).status).to.equal(200)
            expect((await owner.get('/api/wallet/tokens', { address: wallet }, PWD)).status).to.be.oneOf([200, 503])
        })
    })

    describe('registrations', function () {
        let api: PlatformProcess

        before(async function () {
            api = await platform({ PLATFORM_REGISTER_PER_IP: '3' })
        })

        it('register and register_random share a budget per IP; another IP still registers', async function () {
            const busy = new PlatformClient(api.platformUrl, nextIp())
            for (let i = 0; i < 2; i++) await newWallet(busy, `bulk-${i}`, PWD)
            const key = generatePrivateKey()
            const imported = await busy.post('/api/wallet/register', { user_id: 'bulk-import', user_pwd: PWD, address: privateKeyToAccount(key).address, priv_key: key })
            expect(imported.status, JSON.stringify(imported.body)).to.equal(201)
            expect(imported.headers.get('ratelimit-remaining')).to.equal('0')

            const refused = await busy.post('/api/wallet/register_random', { user_id: 'bulk-3', user_pwd: PWD })
            expectRefused(refused, 429)
            expect(refused.headers.get('ratelimit-limit')).to.equal('3')
            expectRefused(await busy.post('/api/wallet/register', { user_id: 'bulk-4', user_pwd: PWD, address: privateKeyToAccount(key).address, priv_key: key }), 429)

            await newWallet(new PlatformClient(api.platformUrl, nextIp()), 'elsewhere', PWD)
        })
    })

    describe('the hashing pool', function () {
        let api: PlatformProcess

        before(async function () {
            api = await platform({ PLATFORM_HASH_CONCURRENCY: '1', PLATFORM_HASH_QUEUE: '1' })
        })

        it('answers 503 with Retry-After when its queue is full, never 500, and serves again after', async function () {
            await newWallet(new PlatformClient(api.platformUrl, nextIp()), 'patient', PWD)
            // Each request comes from its own IP and fails (unknown user, dummy argon2id run), so only the pool refuses.
            const statuses: number[] = []
            let busy: Reply | undefined
            for (let round = 0; round < 5 && !busy; round++) {
                const replies = await Promise.all(Array.from({ length: 16 }, (_, i) =>
                    signIn(new PlatformClient(api.platformUrl, nextIp()), `crowd-${round}-${i}`, 'guess')))
                statuses.push(...replies.map((r) => r.status))
                busy = replies.find((r) => r.status === 503)
            }
            expect(statuses.filter((s) => s !== 401 && s !== 503), JSON.stringify(statuses)).to.deep.equal([])
            expect(busy, 'some request was refused by the full pool').to.not.equal(undefined)
            expectRefused(busy!, 503)
            expect(busy!.headers.get('retry-after')).to.equal('1')
            expect(statuses.filter((s) => s === 401).length, 'the pool still ran hashes').to.be.greaterThan(1)
            expect((await signIn(new PlatformClient(api.platformUrl, nextIp()), 'patient', PWD)).status).to.equal(200)
        })
    })

    describe('a crowd of wrong passwords', function () {
        let api: PlatformProcess

        before(async function () {
            api = await platform({ PLATFORM_HASH_CONCURRENCY: '1', PLATFORM_HASH_QUEUE: '1', PLATFORM_AUTH_MAX_FAILURES: '3' })
        })

        it('64 at once, from one IP and from many, get 401, 429 or 503 and never another 5xx; the owner still gets in', async function () {
            await newWallet(new PlatformClient(api.platformUrl, nextIp()), 'crowded', PWD)
            const guesser = new PlatformClient(api.platformUrl, nextIp())
            const statuses: number[] = []
            let busy: Reply | undefined
            let limited: Reply | undefined
            let guesserChecked = 0
            // Each round's hashes that get a slot count failures, so the guessing IP reaches its limit within a few rounds.
            for (let round = 0; round < 20 && !(busy && limited); round++) {
                const replies = await Promise.all(Array.from({ length: 64 }, (_, i) =>
                    signIn(i % 2 ? guesser : new PlatformClient(api.platformUrl, nextIp()), 'crowded', `guess-${round}-${i}`)))
                statuses.push(...replies.map((r) => r.status))
                guesserChecked += replies.filter((r, i) => i % 2 && r.status === 401).length
                busy ??= replies.find((r) => r.status === 503)
                limited ??= replies.find((r) => r.status === 429)
            }
            expect(statuses.filter((s) => s !== 401 && s !== 429 && s !== 503), JSON.stringify(statuses)).to.deep.equal([])
            expect(busy, 'some request was refused by the full pool').to.not.equal(undefined)
            expectRefused(busy!, 503)
            expect(busy!.headers.get('retry-after')).to.equal('1')
            expect(limited, 'the guessing IP was refused').to.not.equal(undefined)
            expectRefused(limited!, 429)
            // A guess refused by the full pool was never checked, and is not counted: only checked ones are.
            expect(guesserChecked, 'guesses of one IP checked').to.be.at.most(3)
            while (guesserChecked < 3) {
                expect((await signIn(guesser, 'crowded', `late-guess-${guesserChecked}`)).status).to.equal(401)
                guesserChecked++
            }
            expect((await signIn(guesser, 'crowded', PWD)).status, 'the guessing IP is refused once 3 guesses were checked').to.equal(429)
            const owner = await signIn(new PlatformClient(api.platformUrl, nextIp()), 'crowded', PWD)
            expect(owner.status, JSON.stringify(owner.body)).to.equal(200)
        })
    })
})
