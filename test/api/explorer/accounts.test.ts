import bcrypt from 'bcryptjs'
import { expect } from 'chai'
import { randomUUID } from 'crypto'
import * as fs from 'fs'
import jwt from 'jsonwebtoken'
import * as os from 'os'
import * as path from 'path'
import { waitFor } from '../../../common/processes'
import { ApiProcess, startApi } from '../../support/api'
import { createTestDatabase } from '../../support/postgres'
import { waitForOutput } from '../../support/output'
import {
    codeIn, expectError, ExplorerStack, JWT_SECRET, jwtClaims, resetTokenIn, startExplorerStack, uniqueEmail,
    verifiedAccount, verifyLinkIn,
} from './harness'

describe('explorer services API: accounts', function () {
    let stack: ExplorerStack

    before(async function () {
        stack = await startExplorerStack()
    })

    after(async function () {
        await stack?.stop()
    })

    it('signs up, mails a code, verifies it, signs in, and shows me, status and profile', async function () {
        const client = stack.client()
        const email = uniqueEmail('Alice')
        const password = 'correct horse battery'
        const signup = await client.post('/auth/signup', { email: `  ${email.toUpperCase()} `, password, name: 'Alice' })
        expect(signup.status, signup.text).to.equal(201)
        expect(signup.body.account).to.include({ email: email.toLowerCase(), name: 'Alice', email_verified: false })
        expect(signup.body.verification.sent_to).to.equal(email.toLowerCase())

        const mail = await stack.mail.nth(email, 1)
        expect(mail.subject).to.equal('Your verification code')
        const code = codeIn(mail)

        expectError(await client.post('/auth/signin', { email, password }), 403, 'email_not_verified')
        const wrong = code === '000000' ? '111111' : '000000'
        expectError(await client.post('/auth/verify-code', { email, code: wrong }), 400, 'invalid_code', 'code')
        const verified = await client.post('/auth/verify-code', { email: email.toUpperCase(), code })
        expect(verified.status, verified.text).to.equal(200)
        expect(verified.body.verified).to.equal(true)
        expect(verified.body.account.email_verified).to.equal(true)
        expectError(await client.post('/auth/verify-code', { email, code }), 400, 'invalid_code')

        const signin = await client.post('/auth/signin', { email, password })
        expect(signin.status, signin.text).to.equal(200)
        expect(signin.body.token_type).to.equal('Bearer')
        expect(signin.body.account.email).to.equal(email.toLowerCase())
        const token = signin.body.token

        const me = await client.get('/auth/me', token)
        expect(me.status, me.text).to.equal(200)
        expect(me.body.account).to.include({ email: email.toLowerCase(), name: 'Alice', email_verified: true })
        expect(me.body.session.remember).to.equal(false)
        expect(me.body.session.expires_at).to.equal(signin.body.expires_at)

        const status = await client.get('/auth/status', token)
        expect(status.status, status.text).to.equal(200)
        expect(status.body).to.deep.equal({ authenticated: true, email_verified: true, expires_at: signin.body.expires_at })

        const profile = await client.get('/profile', token)
        expect(profile.status, profile.text).to.equal(200)
        expect(profile.body).to.include({ email: email.toLowerCase(), name: 'Alice', email_verified: true })
        expect(profile.body.watchlist).to.deep.equal({ count: 0, limit: 100 })

        for (const route of ['/auth/me', '/auth/status', '/profile', '/watchlist']) {
            const reply = await client.get(route)
            expectError(reply, 401, 'unauthorized')
            expect(reply.headers.get('www-authenticate')).to.equal('Bearer')
        }
    })

    it('answers a wrong password and an unknown email alike', async function () {
        const { email } = await verifiedAccount(stack)
        const client = stack.client()
        const wrong = expectError(await client.post('/auth/signin', { email, password: 'not the password' }), 401, 'invalid_credentials')
        const unknown = expectError(await client.post('/auth/signin', { email: uniqueEmail('nobody'), password: 'not the password' }), 401, 'invalid_credentials')
        expect(unknown).to.deep.equal(wrong)
    })

    it('refuses a second account for the same email in any case (409)', async function () {
        const client = stack.client()
        const email = uniqueEmail('twice')
        expect((await client.post('/auth/signup', { email, password: 'first password 1' })).status).to.equal(201)
        expectError(await client.post('/auth/signup', { email: email.toUpperCase(), password: 'second password 2' }), 409, 'email_taken', 'email')
    })

    it('states the password policy when it refuses a password', async function () {
        const client = stack.client()
        const email = uniqueEmail('weak')
        const short = expectError(await client.post('/auth/signup', { email, password: 'short' }), 400, 'invalid_request', 'password')
        expect(short.message).to.equal('password: must be 8 to 128 characters long')
        expectError(await client.post('/auth/signup', { email, password: 'x'.repeat(129) }), 400, 'invalid_request', 'password')
        expectError(await client.post('/auth/signup', { email, password: email }), 400, 'invalid_request', 'password')
    })

    it('verifies through the mailed link, once', async function () {
        const client = stack.client()
        const email = uniqueEmail('link')
        const password = 'link password 123'
        expect((await client.post('/auth/signup', { email, password })).status).to.equal(201)
        const link = verifyLinkIn(await stack.mail.nth(email, 1))
        expect(link.startsWith(`http://localhost:${new URL(stack.apiUrl).port}/api/auth/verify?token=`), link).to.equal(true)

        const tampered = link.slice(0, -1) + (link.endsWith('A') ? 'B' : 'A')
        expectError(await client.get(`/auth/verify${new URL(tampered).search}`), 400, 'invalid_token', 'token')

        const opened = await fetch(link, { headers: { Accept: 'application/json' } })
        expect(opened.status).to.equal(200)
        const body = await opened.json() as any
        expect(body.verified).to.equal(true)
        expect(body.account.email).to.equal(email)
        const again = await fetch(link, { headers: { Accept: 'application/json' } })
        expect(again.status).to.equal(400)
        expect(((await again.json()) as any).error.code).to.equal('invalid_token')
        expect((await client.post('/auth/signin', { email, password })).status).to.equal(200)

        // A browser gets a fixed page that carries nothing of the account.
        const other = uniqueEmail('browser')
        expect((await client.post('/auth/signup', { email: other, password })).status).to.equal(201)
        const page = await fetch(verifyLinkIn(await stack.mail.nth(other, 1)), { headers: { Accept: 'text/html' } })
        expect(page.status).to.equal(200)
        expect(page.headers.get('content-type')).to.match(/^text\/html/)
        const html = await page.text()
        expect(html).to.include('verified')
        expect(html).to.not.include(other)
    })

    it('resend-code replaces the code, and tells nobody which addresses have accounts', async function () {
        const client = stack.client()
        const email = uniqueEmail('resend')
        expect((await client.post('/auth/signup', { email, password: 'resend password 1' })).status).to.equal(201)
        const first = codeIn(await stack.mail.nth(email, 1))

        const unknownEmail = uniqueEmail('ghost')
        const unknown = await client.post('/auth/resend-code', { email: unknownEmail })
        const known = await client.post('/auth/resend-code', { email })
        expect(known.status).to.equal(202)
        expect(unknown.status).to.equal(202)
        expect(unknown.body).to.deep.equal(known.body)

        const second = codeIn(await stack.mail.nth(email, 2))
        expect(stack.mail.to(unknownEmail)).to.have.length(0)
        if (first !== second) expectError(await client.post('/auth/verify-code', { email, code: first }), 400, 'invalid_code')
        expect((await client.post('/auth/verify-code', { email, code: second })).status).to.equal(200)
    })

    it('locks a code after 5 wrong tries, until a new one is sent', async function () {
        const client = stack.client()
        const email = uniqueEmail('lock')
        expect((await client.post('/auth/signup', { email, password: 'locking password' })).status).to.equal(201)
        const code = codeIn(await stack.mail.nth(email, 1))
        const wrong = (n: number) => String((Number(code) + n) % 1_000_000).padStart(6, '0')
        for (let i = 1; i <= 5; i++) {
            expectError(await client.post('/auth/verify-code', { email, code: wrong(i) }), 400, 'invalid_code')
        }
        expectError(await client.post('/auth/verify-code', { email, code }), 400, 'invalid_code')
        const [{ attempts }] = (await stack.db.query(
            `SELECT c.attempts FROM explorer_email_challenge c JOIN explorer_account a ON a.id = c.account_id
             WHERE a.email = $1 AND c.purpose = 'verify_email'`, [email])).rows
        expect(attempts).to.equal(5)

        expect((await client.post('/auth/resend-code', { email })).status).to.equal(202)
        const fresh = codeIn(await stack.mail.nth(email, 2))
        expect((await client.post('/auth/verify-code', { email, code: fresh })).status).to.equal(200)
    })

    it('stores codes and tokens only as hashes', async function () {
        const email = uniqueEmail('hashed')
        expect((await stack.client().post('/auth/signup', { email, password: 'hashed password' })).status).to.equal(201)
        const mail = await stack.mail.nth(email, 1)
        const code = codeIn(mail)
        const secret = new URL(verifyLinkIn(mail)).searchParams.get('token')!.split('.')[1]
        const { rows } = await stack.db.query(
            `SELECT c.* FROM explorer_email_challenge c JOIN explorer_account a ON a.id = c.account_id WHERE a.email = $1`, [email])
        expect(rows).to.have.length(1)
        const stored = JSON.stringify(rows[0], (_k, v) => (v?.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v))
        expect(stored).to.not.include(code)
        expect(stored).to.not.include(secret)
        expect(stored).to.not.include(Buffer.from(secret).toString('hex'))
    })

    it('gives a 7-day token, or a 30-day one with remember', async function () {
        const { email, password } = await verifiedAccount(stack)
        const client = stack.client()
        const plain = await client.post('/auth/signin', { email, password })
        const remembered = await client.post('/auth/signin', { email, password, remember: true })
        expect(plain.status).to.equal(200)
        expect(remembered.status).to.equal(200)
        const short = jwtClaims(plain.body.token)
        const long = jwtClaims(remembered.body.token)
        expect(short.exp - short.iat).to.equal(7 * 86_400)
        expect(long.exp - long.iat).to.equal(30 * 86_400)
        expect(new Date(plain.body.expires_at).getTime()).to.equal(short.exp * 1000)
        expect(new Date(remembered.body.expires_at).getTime()).to.equal(long.exp * 1000)
        expect(plain.body.remember).to.equal(false)
        expect(remembered.body.remember).to.equal(true)
        expect((await client.get('/auth/me', remembered.body.token)).body.session.remember).to.equal(true)
    })

    it('verifies password hashes imported from bcrypt and rehashes them with argon2id at sign-in', async function () {
        for (const prefix of ['$2a$', '$2b$', '$2y$']) {
            const client = stack.client()
            const email = uniqueEmail('legacy')
            const password = `legacy password ${prefix}`
            const legacy = prefix + bcrypt.hashSync(password, 8).slice(4)
            await stack.db.query(
                `INSERT INTO explorer_account (email, password_hash, email_verified_at) VALUES ($1, $2, now())`,
                [email, legacy]
            )
            expectError(await client.post('/auth/signin', { email, password: 'wrong password' }), 401, 'invalid_credentials')
            const stillLegacy = (await stack.db.query('SELECT password_hash FROM explorer_account WHERE email = $1', [email])).rows[0]
            expect(stillLegacy.password_hash).to.equal(legacy)

            expect((await client.post('/auth/signin', { email, password })).status).to.equal(200)
            const { password_hash } = (await stack.db.query('SELECT password_hash FROM explorer_account WHERE email = $1', [email])).rows[0]
            expect(password_hash).to.match(/^\$argon2id\$/)
            expect((await client.post('/auth/signin', { email, password })).status).to.equal(200)
            expectError(await client.post('/auth/signin', { email, password: 'wrong password' }), 401, 'invalid_credentials')
        }
    })

    it('resets a password with the mailed token and ends every older session', async function () {
        const { email, password } = await verifiedAccount(stack)
        const client = stack.client()
        const sessions = [
            (await client.post('/auth/signin', { email, password })).body.token,
            (await client.post('/auth/signin', { email, password, remember: true })).body.token,
        ]
        for (const token of sessions) expect((await client.get('/auth/me', token)).status).to.equal(200)

        expect((await client.post('/auth/forgot-password', { email })).status).to.equal(202)
        const mail = await stack.mail.nth(email, 2)
        expect(mail.subject).to.equal('Reset your password')
        const resetToken = resetTokenIn(mail)

        // A refused password does not spend the token.
        expectError(await client.post('/auth/reset-password', { token: resetToken, password: 'short' }), 400, 'invalid_request', 'password')
        const forged = resetToken.slice(0, -1) + (resetToken.endsWith('A') ? 'B' : 'A')
        expectError(await client.post('/auth/reset-password', { token: forged, password: 'a brand new password' }), 400, 'invalid_token', 'token')
        const reset = await client.post('/auth/reset-password', { token: resetToken, password: 'a brand new password' })
        expect(reset.status, reset.text).to.equal(200)

        for (const token of sessions) {
            expectError(await client.get('/auth/me', token), 401, 'unauthorized')
            expectError(await client.get('/watchlist', token), 401, 'unauthorized')
        }
        expectError(await client.post('/auth/signin', { email, password }), 401, 'invalid_credentials')
        const fresh = await client.post('/auth/signin', { email, password: 'a brand new password' })
        expect(fresh.status).to.equal(200)
        expect((await client.get('/auth/me', fresh.body.token)).status).to.equal(200)
        expectError(await client.post('/auth/reset-password', { token: resetToken, password: 'yet another password' }), 400, 'invalid_token')
    })

    it('answers forgot-password the same whether or not the email has an account', async function () {
        const { email } = await verifiedAccount(stack)
        const client = stack.client()
        const nobody = uniqueEmail('nobody')
        const unknown = await client.post('/auth/forgot-password', { email: nobody })
        const known = await client.post('/auth/forgot-password', { email })
        expect(unknown.status).to.equal(202)
        expect(known.status).to.equal(202)
        expect(unknown.body).to.deep.equal(known.body)
        await stack.mail.nth(email, 2)
        expect(stack.mail.to(nobody)).to.have.length(0)
    })

    it('ends the session on logout: its token gets 401, other sessions of the account go on', async function () {
        const { email, password, token } = await verifiedAccount(stack)
        const client = stack.client()
        const other = (await client.post('/auth/signin', { email, password })).body.token
        expectError(await client.post('/auth/logout'), 401, 'unauthorized')

        const logout = await client.post('/auth/logout', undefined, token)
        expect(logout.status, logout.text).to.equal(204)
        expectError(await client.get('/auth/me', token), 401, 'unauthorized')
        expectError(await client.get('/watchlist', token), 401, 'unauthorized')
        expectError(await client.post('/auth/logout', undefined, token), 401, 'unauthorized')
        expect((await client.get('/auth/me', other)).status).to.equal(200)
    })

    it('refuses malformed, forged, expired and ended session tokens with 401', async function () {
        const { token } = await verifiedAccount(stack)
        const client = stack.client()
        const claims = jwtClaims(token)
        const now = Math.floor(Date.now() / 1000)
        const forge = (payload: object, secret = JWT_SECRET) => jwt.sign(payload, secret, { algorithm: 'HS256' })
        const refused = [
            'garbage',
            token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'),
            forge({ ...claims }, 'another-secret-of-at-least-32-characters'),
            forge({ ...claims, iat: now - 100, exp: now - 10 }),
            forge({ ...claims, jti: randomUUID() }),
            forge({ ...claims, sub: randomUUID() }),
            forge({ ...claims, jti: 'not-a-uuid' }),
            `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${token.split('.')[1]}.`,
        ]
        for (const bad of refused) expectError(await client.get('/auth/me', bad), 401, 'unauthorized')
        expectError(await client.request('GET', '/auth/me', { headers: { Authorization: `Basic ${token}` } }), 401, 'unauthorized')
        expect((await client.get('/auth/me', token)).status).to.equal(200)
    })
})

describe('explorer services API: mail without SMTP', function () {
    let api: ApiProcess | undefined
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'explorer-outbox-'))

    afterEach(async function () {
        await api?.stop()
        api = undefined
    })

    after(function () {
        fs.rmSync(dataDir, { recursive: true, force: true })
    })

    it('keeps mail in DATA_DIR/mail in development and logs the file, never the code', async function () {
        api = await startApi({ databaseUrl: await createTestDatabase('outbox'), env: { DATA_DIR: dataDir, LOG_LEVEL: 'info', SMTP_URL: '' } })
        const apiUrl = `${api.explorerUrl}/api`
        const email = uniqueEmail('outbox')
        const post = (route: string, body: object) =>
            fetch(`${apiUrl}${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
        expect((await post('/auth/signup', { email, password: 'outbox password' })).status).to.equal(201)
        const outbox = path.join(dataDir, 'mail')
        const file = await waitFor('a mail in the outbox', async () =>
            fs.existsSync(outbox) && fs.readdirSync(outbox).find((f) => f.endsWith('.eml')), 20_000, 50)
        const message = fs.readFileSync(path.join(outbox, file), 'utf8')
        expect(message).to.match(new RegExp(`^To: ${email}`, 'im'))
        const code = /verification code is (\d{6})/.exec(message.replace(/=\r?\n/g, ''))![1]
        await waitForOutput(api!, file)
        expect(api.output()).to.not.include(code)
        expect((await post('/auth/verify-code', { email, code })).status).to.equal(200)
    })

    it('answers 503 on the routes that mail when production has no SMTP_URL', async function () {
        api = await startApi({ databaseUrl: await createTestDatabase('nosmtp'), env: { NODE_ENV: 'production', DATA_DIR: dataDir, SMTP_URL: '' } })
        const apiUrl = `${api.explorerUrl}/api`
        for (const [route, body] of [
            ['/auth/signup', { email: uniqueEmail('prod'), password: 'production password' }],
            ['/auth/resend-code', { email: uniqueEmail('prod') }],
            ['/auth/forgot-password', { email: uniqueEmail('prod') }],
        ] as const) {
            const reply = await fetch(`${apiUrl}${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
            expect(reply.status, route).to.equal(503)
            expect(((await reply.json()) as any).error.code).to.equal('not_configured')
        }
    })
})
