import { expect } from 'chai'
import { expectError, ExplorerStack, startExplorerStack, verifiedAccount } from './harness'

/** Every POST route with a body that would pass, and the fields it requires. */
const POST_ROUTES: { path: string; bearer?: boolean; fields: string[] }[] = [
    { path: '/auth/signup', fields: ['email', 'password'] },
    { path: '/auth/signin', fields: ['email', 'password'] },
    { path: '/auth/verify-code', fields: ['email', 'code'] },
    { path: '/auth/resend-code', fields: ['email'] },
    { path: '/auth/forgot-password', fields: ['email'] },
    { path: '/auth/reset-password', fields: ['token', 'password'] },
    { path: '/watchlist', bearer: true, fields: ['address'] },
    { path: '/support/requests', fields: ['kind', 'name', 'email', 'subject', 'message'] },
    { path: '/newsletter/subscribe', fields: ['email'] },
]

/** A value of the wrong type for each field. */
const WRONG: Record<string, unknown> = {
    email: 12345, password: 12345678, code: 123456, token: ['a'], address: { hex: '0x' }, kind: true,
    name: ['x'], subject: 7, message: { text: 'hello there' }, remember: 'yes',
}

describe('explorer services API: errors and malformed input', function () {
    let stack: ExplorerStack
    let token: string

    before(async function () {
        stack = await startExplorerStack()
        token = (await verifiedAccount(stack)).token
    })

    after(async function () {
        await stack?.stop()
    })

    it('answers malformed bodies on every POST route with a 4xx naming the problem', async function () {
        for (const route of POST_ROUTES) {
            const bearer = route.bearer ? token : undefined
            // A client (an IP) per request keeps the per-IP rate limits out of the way.
            const send = (options: { json?: unknown; raw?: string; contentType?: string }) =>
                stack.client().request('POST', route.path, { ...options, token: bearer })

            for (const raw of ['{', '{"email": "a@b.co",}', '"just a string"', '42', 'null', "{'single': 'quotes'}"]) {
                const error = expectError(await send({ raw }), 400, 'invalid_json')
                expect(error.message, `${route.path} ${raw}`).to.equal('request body is not valid JSON')
            }
            for (const json of [[], [1, 2], {}]) {
                const error = expectError(await send({ json }), 400, 'invalid_request')
                expect(error.field, `${route.path} ${JSON.stringify(json)}`).to.be.oneOf(['body', route.fields[0]])
            }
            // Not JSON at all: the body is not read, so the fields are missing.
            expectError(await send({ raw: 'email=a@b.co', contentType: 'application/x-www-form-urlencoded' }), 400, 'invalid_request', 'body')
            expectError(await stack.client().request('POST', route.path, { token: bearer }), 400, 'invalid_request', 'body')

            for (const field of route.fields) {
                const missing = expectError(await send({ json: Object.fromEntries(route.fields.filter((f) => f !== field).map((f) => [f, 'x'])) }), 400, undefined, undefined)
                expect(missing.field, `${route.path} without ${field}`).to.be.a('string')
                const wrongType = expectError(await send({ json: { ...Object.fromEntries(route.fields.map((f) => [f, 'x'])), [field]: WRONG[field] } }), 400, 'invalid_request')
                expect(wrongType.field, `${route.path} with a wrong ${field}`).to.be.a('string')
                expect(wrongType.message.startsWith(`${wrongType.field}: `), wrongType.message).to.equal(true)
            }
            const tooLarge = await send({ json: { email: 'a@b.co', padding: 'x'.repeat(100_000) } })
            expectError(tooLarge, 413, 'payload_too_large')
        }
    })

    it('names the field of each refused value', async function () {
        const post = (path: string, json: unknown) => stack.client().post(path, json)
        expectError(await post('/auth/signup', { email: 'not an email', password: 'long enough password' }), 400, 'invalid_request', 'email')
        expectError(await post('/auth/signup', { email: 'a@example.com', password: 'long enough', name: 'n'.repeat(101) }), 400, 'invalid_request', 'name')
        expectError(await post('/auth/signin', { email: 'a@example.com', password: 'long enough', remember: 'yes' }), 400, 'invalid_request', 'remember')
        expectError(await post('/auth/signin', { email: 'a@example.com', password: '' }), 400, 'invalid_request', 'password')
        expectError(await post('/auth/verify-code', { email: 'a@example.com', code: '12345' }), 400, 'invalid_request', 'code')
        expectError(await post('/auth/verify-code', { email: 'a@example.com', code: 'abcdef' }), 400, 'invalid_request', 'code')
        expectError(await post('/auth/reset-password', { token: '', password: 'long enough password' }), 400, 'invalid_request', 'token')
        expectError(await post('/auth/reset-password', { token: 'x'.repeat(201), password: 'long enough password' }), 400, 'invalid_request', 'token')
        const missing = expectError(await post('/auth/signup', { password: 'long enough password' }), 400, 'invalid_request', 'email')
        expect(missing.message).to.equal('email: is required')
        // A token of the right shape that names nothing is a plain invalid_token, not an error of ours.
        expectError(await post('/auth/reset-password', { token: `00000000-0000-0000-0000-000000000000.${'A'.repeat(43)}`, password: 'long enough password' }), 400, 'invalid_token')
        expectError(await post('/auth/reset-password', { token: 'no-dot-in-it', password: 'long enough password' }), 400, 'invalid_token')
    })

    it('validates the query of GET /auth/verify and GET /defi/volume', async function () {
        const client = stack.client()
        expectError(await client.get('/auth/verify'), 400, 'invalid_request', 'token')
        expectError(await client.get(`/auth/verify?token=${'x'.repeat(201)}`), 400, 'invalid_request', 'token')
        expectError(await client.get('/auth/verify?token=a&token=b'), 400, 'invalid_request', 'token')
        expectError(await client.get('/auth/verify?token=nonsense'), 400, 'invalid_token', 'token')
        for (const days of ['0', '366', '-1', '1.5', 'abc', '', '1e2', '99999']) {
            const error = expectError(await client.get(`/defi/volume?days=${encodeURIComponent(days)}`), 400, 'invalid_request', 'days')
            expect(error.message, days).to.match(/^days: /)
        }
        expectError(await client.get('/defi/volume?days=1&days=2'), 400, 'invalid_request', 'days')
        expectError(await client.delete('/watchlist/not-an-address', token), 400, 'invalid_request', 'address')
    })

    it('answers unknown paths and methods under /api with a 404 in the same format', async function () {
        const client = stack.client()
        for (const [method, path] of [
            ['GET', '/nope'], ['POST', '/auth/nope'], ['GET', '/auth/signin'], ['PUT', '/profile'],
            ['GET', '/defi'], ['GET', `/defi/pools/0x${'ab'.repeat(20)}/extra`], ['POST', '/defi/volume'], ['PATCH', '/support/requests'],
        ]) {
            const reply = await client.request(method, path)
            expectError(reply, 404, 'not_found')
        }
    })

    it('answers preflight requests for browsers on other origins', async function () {
        const reply = await fetch(`${stack.apiUrl}/auth/signin`, {
            method: 'OPTIONS',
            headers: { Origin: 'https://explorer.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,authorization' },
        })
        expect(reply.status).to.equal(204)
        expect(reply.headers.get('access-control-allow-origin')).to.equal('*')
    })
})
