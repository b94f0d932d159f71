import { expect } from 'chai'
import { randomBytes, randomUUID } from 'crypto'
import { expectError, ExplorerStack, Reply, startExplorerStack, verifiedAccount } from './harness'

function expectRefused(reply: Reply, windowSeconds = 900) {
    expectError(reply, 429, 'rate_limited')
    expect(Number(reply.headers.get('retry-after'))).to.be.within(1, windowSeconds)
}

/** A reset token of the right form that names no challenge. */
const bogusResetToken = () => `${randomUUID()}.${randomBytes(32).toString('base64url')}`

describe('explorer services API: abuse', function () {
    let stack: ExplorerStack

    before(async function () {
        // One hash at a time and none waiting: any two hashes that meet answer 503.
        stack = await startExplorerStack({ env: { EXPLORER_HASH_CONCURRENCY: '1', EXPLORER_HASH_QUEUE: '0' } })
    })

    after(async function () {
        await stack?.stop()
    })

    it('never locks the owner out: failures count per (account, IP), and a guesser on many IPs is slowed', async function () {
        const { email, password } = await verifiedAccount(stack)
        const attacker = stack.client()
        for (let i = 1; i <= 5; i++) {
            expectError(await attacker.post('/auth/signin', { email, password: `guess ${i}` }), 401, 'invalid_credentials')
        }
        // The attacker's IP is refused for this account, even with the right password.
        const refused = await attacker.post('/auth/signin', { email, password: 'guess 6' })
        expectRefused(refused)
        // One budget in the answer, the refusing limit's (5 failures per account and IP in 15
        // minutes), not the per-IP sign-in limit's fields beside it.
        expect(refused.headers.get('ratelimit-limit')).to.equal('5')
        expect(refused.headers.get('ratelimit-remaining')).to.equal('0')
        expect(refused.headers.get('ratelimit-policy')).to.equal('5;w=900')
        expect(refused.headers.get('ratelimit-reset')).to.equal(refused.headers.get('retry-after'))
        expectRefused(await attacker.post('/auth/signin', { email, password }))
        const owner = stack.client()
        expect((await owner.post('/auth/signin', { email, password })).status).to.equal(200)

        // 20 failures from all IPs within the hour: each new IP gets 1 failure instead of 5.
        for (let n = 0; n < 3; n++) {
            const helper = stack.client()
            for (let i = 1; i <= 5; i++) {
                expectError(await helper.post('/auth/signin', { email, password: `helper guess ${i}` }), 401, 'invalid_credentials')
            }
        }
        const slowed = stack.client()
        expectError(await slowed.post('/auth/signin', { email, password: 'one more guess' }), 401, 'invalid_credentials')
        expectRefused(await slowed.post('/auth/signin', { email, password: 'and another' }))
        // The owner, from a clean IP and from the IP that signed in before, still gets in.
        expect((await stack.client().post('/auth/signin', { email, password })).status).to.equal(200)
        expect((await owner.post('/auth/signin', { email, password })).status).to.equal(200)
    })

    it('answers 503 busy with Retry-After when the hash pool is full, never a 500, and recovers', async function () {
        const { email, password } = await verifiedAccount(stack)
        const replies = await Promise.all(Array.from({ length: 16 }, () => stack.client().post('/auth/signin', { email, password })))
        const statuses = replies.map((r) => r.status)
        expect(statuses.every((s) => s === 200 || s === 503), statuses.join(',')).to.equal(true)
        expect(statuses, 'some sign-ins got a slot').to.include(200)
        expect(statuses, 'some sign-ins found the pool full').to.include(503)
        for (const reply of replies.filter((r) => r.status === 503)) {
            expectError(reply, 503, 'busy')
            expect(reply.headers.get('retry-after')).to.equal('1')
        }
        expect((await stack.client().post('/auth/signin', { email, password })).status).to.equal(200)
    })

    it('checks a reset token before hashing, and limits reset-password to 10 per hour per IP', async function () {
        const client = stack.client()
        // Concurrent requests with a pool of one: had any of them hashed, some would meet and answer 503.
        const replies = await Promise.all(Array.from({ length: 14 }, () =>
            client.post('/auth/reset-password', { token: bogusResetToken(), password: 'a brand new password' })))
        const statuses = replies.map((r) => r.status)
        expect(statuses.filter((s) => s === 400), statuses.join(',')).to.have.length(10)
        expect(statuses.filter((s) => s === 429), statuses.join(',')).to.have.length(4)
        for (const reply of replies) {
            if (reply.status === 400) expectError(reply, 400, 'invalid_token', 'token')
            else expectRefused(reply, 3600)
        }
        expectError(await stack.client().post('/auth/reset-password', { token: bogusResetToken(), password: 'a brand new password' }), 400, 'invalid_token')
    })

    it('a crowd of 64 bogus resets and sign-ins gets 4xx or 503 busy, never another 5xx, and the owner still gets in', async function () {
        const { email, password } = await verifiedAccount(stack)
        const oneIp = stack.client()
        const reset = (client: ReturnType<ExplorerStack['client']>) =>
            client.post('/auth/reset-password', { token: bogusResetToken(), password: 'a brand new password' })
        const [fromOneIp, fromManyIps, signIns] = await Promise.all([
            Promise.all(Array.from({ length: 16 }, () => reset(oneIp))),
            Promise.all(Array.from({ length: 16 }, () => reset(stack.client()))),
            // Wrong passwords for the owner's account, each from its own IP: these hash, and the pool holds one.
            Promise.all(Array.from({ length: 32 }, (_, i) => stack.client().post('/auth/signin', { email, password: `crowd guess ${i}` }))),
        ])
        const statuses = (replies: Reply[]) => replies.map((r) => r.status).sort().join(',')
        expect(statuses(fromOneIp)).to.equal([...Array(10).fill(400), ...Array(6).fill(429)].join(','))
        expect(statuses(fromManyIps)).to.equal(Array(16).fill(400).join(','))
        for (const reply of fromOneIp.filter((r) => r.status === 429)) expectRefused(reply, 3600)
        expect(signIns.every((r) => r.status === 401 || r.status === 503), statuses(signIns)).to.equal(true)
        const busy = signIns.filter((r) => r.status === 503)
        expect(busy, 'some sign-ins found the pool full').to.not.have.length(0)
        for (const reply of busy) {
            expectError(reply, 503, 'busy')
            expect(reply.headers.get('retry-after')).to.equal('1')
        }
        expect((await stack.client().post('/auth/signin', { email, password })).status).to.equal(200)
    })
})
