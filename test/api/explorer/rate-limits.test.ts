import { expect } from 'chai'
import { ApiProcess, startApi } from '../../support/api'
import { createTestDatabase } from '../../support/postgres'
import { Client, expectError, ExplorerStack, nextIp, Reply, startExplorerStack, uniqueEmail, verifiedAccount } from './harness'

function expectBudget(reply: Reply, limit: number, remaining: number, windowSeconds: number) {
    expect(reply.headers.get('ratelimit-limit'), reply.text).to.equal(String(limit))
    expect(reply.headers.get('ratelimit-remaining'), reply.text).to.equal(String(remaining))
    const reset = Number(reply.headers.get('ratelimit-reset'))
    expect(reset).to.be.within(1, windowSeconds)
    expect(reply.headers.get('ratelimit-policy')).to.equal(`${limit};w=${windowSeconds}`)
}

function expectLimited(reply: Reply, limit: number, windowSeconds: number) {
    expectError(reply, 429, 'rate_limited')
    expect(reply.headers.get('ratelimit-limit')).to.equal(String(limit))
    expect(reply.headers.get('ratelimit-remaining')).to.equal('0')
    const retryAfter = Number(reply.headers.get('retry-after'))
    expect(retryAfter).to.be.within(1, windowSeconds)
    expect(Number(reply.headers.get('ratelimit-reset'))).to.equal(retryAfter)
}

describe('explorer services API: rate limits', function () {
    let stack: ExplorerStack
    let replica: ApiProcess | undefined
    let direct: ApiProcess | undefined

    before(async function () {
        stack = await startExplorerStack()
    })

    after(async function () {
        await replica?.stop()
        await direct?.stop()
        await stack?.stop()
    })

    it('allows 10 sign-ins per 15 minutes per IP; the 11th is a 429, on every replica', async function () {
        const { email, password } = await verifiedAccount(stack)
        const client = stack.client()
        for (let i = 1; i <= 10; i++) {
            const reply = await client.post('/auth/signin', { email, password: i === 5 ? password : 'a wrong password' })
            expect(reply.status, reply.text).to.equal(i === 5 ? 200 : 401)
            expectBudget(reply, 10, 10 - i, 900)
        }
        expectLimited(await client.post('/auth/signin', { email, password }), 10, 900)
        // Malformed attempts count too, and are refused before they are read.
        expectLimited(await client.request('POST', '/auth/signin', { raw: '{"email":' }), 10, 900)
        // Another IP has its own budget.
        expect((await stack.client().post('/auth/signin', { email, password })).status).to.equal(200)

        // A second api process on the same database draws on the same counters.
        replica = await startApi({ databaseUrl: stack.databaseUrl, env: { SMTP_URL: stack.mail.url, TRUST_PROXY: 'true' } })
        const viaReplica = new Client(`${replica.explorerUrl}/api`, client.ip)
        expectLimited(await viaReplica.post('/auth/signin', { email, password }), 10, 900)
        expect((await new Client(`${replica.explorerUrl}/api`).post('/auth/signin', { email, password })).status).to.equal(200)
    })

    it('allows 5 sign-ups per hour per IP; the 6th is a 429', async function () {
        const client = stack.client()
        for (let i = 1; i <= 5; i++) {
            const reply = await client.post('/auth/signup', { email: uniqueEmail('burst'), password: 'burst password' })
            expect(reply.status, reply.text).to.equal(201)
            expectBudget(reply, 5, 5 - i, 3600)
        }
        const email = uniqueEmail('sixth')
        expectLimited(await client.post('/auth/signup', { email, password: 'burst password' }), 5, 3600)
        // Refused before anything happened: the sixth account does not exist.
        expect((await stack.client().post('/auth/signup', { email, password: 'burst password' })).status).to.equal(201)
    })

    it('allows 10 public form submissions per hour per IP across both forms; the 11th is a 429', async function () {
        const client = stack.client()
        for (let i = 1; i <= 10; i++) {
            const reply = i % 2
                ? await client.post('/newsletter/subscribe', { email: uniqueEmail('form') })
                : await client.post('/support/requests', { kind: 'support', name: 'Ann', email: uniqueEmail('form'), subject: 'Hi', message: 'A message long enough' })
            expect(reply.status, reply.text).to.equal(i % 2 ? 200 : 201)
            expectBudget(reply, 10, 10 - i, 3600)
        }
        expectLimited(await client.post('/newsletter/subscribe', { email: uniqueEmail('form') }), 10, 3600)
        expectLimited(await client.post('/support/requests', { kind: 'support', name: 'Ann', email: uniqueEmail('form'), subject: 'Hi', message: 'A message long enough' }), 10, 3600)
    })

    it('gives verification mails and reset mails a budget each of 5 per hour per address, from any IP', async function () {
        const { email } = await verifiedAccount(stack)
        for (let i = 1; i <= 5; i++) {
            const reply = await stack.client().post('/auth/resend-code', { email })
            expect(reply.status, reply.text).to.equal(202)
            expectBudget(reply, 5, 5 - i, 3600)
        }
        expectLimited(await stack.client().post('/auth/resend-code', { email: email.toUpperCase() }), 5, 3600)
        // Spending the verification mails leaves the reset mails untouched: the reset mail still arrives.
        for (let i = 1; i <= 5; i++) {
            const reply = await stack.client().post('/auth/forgot-password', { email })
            expect(reply.status, reply.text).to.equal(202)
            expectBudget(reply, 5, 5 - i, 3600)
        }
        expect((await stack.mail.nth(email, 2)).subject).to.equal('Reset your password')
        expectLimited(await stack.client().post('/auth/forgot-password', { email }), 5, 3600)
        expect((await stack.client().post('/auth/forgot-password', { email: uniqueEmail('other') })).status).to.equal(202)
    })

    it('allows 20 mail requests per hour per IP across resend-code and forgot-password; the 21st is a 429', async function () {
        const client = stack.client()
        for (let i = 1; i <= 20; i++) {
            const reply = await client.post(i % 2 ? '/auth/resend-code' : '/auth/forgot-password', { email: uniqueEmail('mailer') })
            expect(reply.status, reply.text).to.equal(202)
        }
        expectLimited(await client.post('/auth/forgot-password', { email: uniqueEmail('mailer') }), 20, 3600)
        expectLimited(await client.post('/auth/resend-code', { email: uniqueEmail('mailer') }), 20, 3600)
        expect((await stack.client().post('/auth/resend-code', { email: uniqueEmail('mailer') })).status).to.equal(202)
    })

    it('allows 20 verify-code attempts per 15 minutes per IP; the 21st is a 429', async function () {
        const client = stack.client()
        for (let i = 1; i <= 20; i++) {
            const reply = await client.post('/auth/verify-code', { email: uniqueEmail('guess'), code: '000000' })
            expectError(reply, 400, 'invalid_code')
            expectBudget(reply, 20, 20 - i, 900)
        }
        expectLimited(await client.post('/auth/verify-code', { email: uniqueEmail('guess'), code: '000000' }), 20, 900)
        expectLimited(await client.request('POST', '/auth/verify-code', { raw: '{"email":' }), 20, 900)
        expectError(await stack.client().post('/auth/verify-code', { email: uniqueEmail('guess'), code: '000000' }), 400, 'invalid_code')
    })

    it('ignores X-Forwarded-For unless TRUST_PROXY is set', async function () {
        direct = await startApi({ databaseUrl: await createTestDatabase('direct'), env: { TRUST_PROXY: 'false' } })
        const apiUrl = `${direct.explorerUrl}/api`
        for (let i = 1; i <= 10; i++) {
            const reply = await new Client(apiUrl, nextIp()).post('/auth/signin', { email: uniqueEmail('x'), password: 'whatever password' })
            expect(reply.status, reply.text).to.equal(401)
            expectBudget(reply, 10, 10 - i, 900)
        }
        expectLimited(await new Client(apiUrl, nextIp()).post('/auth/signin', { email: uniqueEmail('x'), password: 'whatever password' }), 10, 900)
    })
})
