import { expect } from 'chai'
import { expectError, ExplorerStack, startExplorerStack, uniqueEmail } from './harness'

describe('explorer services API: public forms', function () {
    let stack: ExplorerStack

    before(async function () {
        stack = await startExplorerStack()
    })

    after(async function () {
        await stack?.stop()
    })

    it('stores support requests and applications, and echoes none of their text', async function () {
        const client = stack.client()
        const script = '<script>alert("x")</script><img src=x onerror=alert(1)>'
        for (const kind of ['support', 'application']) {
            const email = uniqueEmail(kind)
            const reply = await client.post('/support/requests', {
                kind, name: `Eve ${script}`, email: email.toUpperCase(), subject: `Help ${script}`, message: `Please help. ${script}`,
            })
            expect(reply.status, reply.text).to.equal(201)
            expect(reply.headers.get('content-type')).to.match(/^application\/json/)
            expect(reply.headers.get('x-content-type-options')).to.equal('nosniff')
            expect(reply.text).to.not.include('<')
            expect(Object.keys(reply.body).sort()).to.deep.equal(['id', 'kind', 'received_at'])
            expect(reply.body.kind).to.equal(kind)
            const { rows } = await stack.db.query('SELECT * FROM explorer_support_request WHERE id = $1', [reply.body.id])
            expect(rows[0]).to.include({ kind, name: `Eve ${script}`, email, subject: `Help ${script}`, message: `Please help. ${script}` })
            expect(rows[0].client_ip).to.equal(client.ip)
        }
    })

    it('applies length limits to every support field', async function () {
        // A client (an IP) per request: the forms allow 10 per hour per IP.
        const valid = { kind: 'support', name: 'Ann', email: uniqueEmail('limits'), subject: 'Subject', message: 'A message long enough' }
        const refused: [string, unknown][] = [
            ['kind', 'complaint'], ['kind', undefined],
            ['name', ''], ['name', 'n'.repeat(101)], ['name', 5],
            ['email', 'not-an-email'], ['email', `${'e'.repeat(250)}@example.com`],
            ['subject', ' '], ['subject', 's'.repeat(201)],
            ['message', 'too short'], ['message', 'm'.repeat(5001)], ['message', 'nul \u0000 inside the text'],
        ]
        for (const [field, value] of refused) {
            expectError(await stack.client().post('/support/requests', { ...valid, [field]: value }), 400, 'invalid_request', field)
        }
        expect((await stack.client().post('/support/requests', { ...valid, name: 'n'.repeat(100), subject: 's'.repeat(200), message: 'm'.repeat(5000) })).status).to.equal(201)
    })

    it('subscribes to the newsletter once per address, and twice is no error', async function () {
        const client = stack.client()
        const email = uniqueEmail('news')
        const first = await client.post('/newsletter/subscribe', { email })
        const second = await client.post('/newsletter/subscribe', { email: ` ${email.toUpperCase()} ` })
        expect(first.status, first.text).to.equal(200)
        expect(second.status, second.text).to.equal(200)
        expect(second.body).to.deep.equal(first.body)
        expect(first.body).to.deep.equal({ subscribed: true, email })
        const { rows } = await stack.db.query('SELECT email FROM explorer_newsletter_subscriber WHERE email = $1', [email])
        expect(rows).to.have.length(1)
        expectError(await client.post('/newsletter/subscribe', { email: 'nope' }), 400, 'invalid_request', 'email')
        expectError(await client.post('/newsletter/subscribe', {}), 400, 'invalid_request', 'email')
    })
})
