import { expect } from 'chai'
import { Transport } from '../../bridge/webhooks/transport'
import { Receiver } from './webhook-receiver'

/** One HTTP attempt of the webhook transport against a real receiver on loopback; the rules on their own are in webhooks-rules.unit.test.ts. */
describe('bridge webhooks: rules and building blocks', function () {
    describe('one HTTP attempt against a real receiver', function () {
        let receiver: Receiver
        before(async function () {
            receiver = new Receiver()
            await receiver.start()
        })
        after(async function () {
            await receiver.stop()
        })

        it('connects to the address it checked: a rebinding DNS answer given after the check is never used', async function () {
            let lookups = 0
            // First answer: the receiver (allowed here); every later answer would be another host.
            const resolver = async () => (lookups++ === 0 ? [{ address: '127.0.0.1', family: 4 as const }] : [{ address: '10.255.255.1', family: 4 as const }])
            const transport = new Transport({ allowPrivate: true, maxSockets: 4, resolver })
            const body = Buffer.from('{"a":1}')
            const outcome = await transport.send({ url: `http://rebind.test:${receiver.port}/pinned`, method: 'POST' }, body, () => ({ 'X-Test': '1' }))
            transport.close()
            expect(outcome).to.include({ ok: true, status: 200, error: null })
            expect(lookups).to.equal(1)
            const [got] = receiver.on('/pinned')
            expect(got.headers.host).to.equal(`rebind.test:${receiver.port}`)
            expect(got.raw.equals(body)).to.equal(true)
        })

        it('refuses a name that resolves to loopback when private targets are not allowed, without connecting', async function () {
            const transport = new Transport({ allowPrivate: false, maxSockets: 4, resolver: async () => [{ address: '127.0.0.1', family: 4 as const }] })
            const outcome = await transport.send({ url: `http://evil.test:${receiver.port}/blocked`, method: 'POST' }, Buffer.from('{}'), () => ({}))
            transport.close()
            expect(outcome.ok).to.equal(false)
            expect(outcome.status).to.equal(null)
            expect(outcome.error).to.match(/^blocked_address: evil\.test resolves to 127\.0\.0\.1/)
            expect(receiver.on('/blocked')).to.have.length(0)
        })

        it('does not follow redirects: a 3xx is a failure', async function () {
            receiver.respond = (r) => (r.path === '/moved' ? { status: 302, headers: { Location: '/elsewhere' } } : { status: 200 })
            const transport = new Transport({ allowPrivate: true, maxSockets: 4 })
            const outcome = await transport.send({ url: receiver.url('/moved'), method: 'POST' }, Buffer.from('{}'), () => ({}))
            transport.close()
            expect(outcome).to.include({ ok: false, status: 302, gone: false })
            expect(outcome.error).to.match(/^redirect: HTTP 302 not followed \(Location: \/elsewhere\)/)
            expect(receiver.on('/elsewhere')).to.have.length(0)
            receiver.respond = () => ({ status: 200 })
        })

        it('reports 410 as gone, Retry-After of a 429, and a refused connection', async function () {
            const transport = new Transport({ allowPrivate: true, maxSockets: 4 })
            receiver.respond = (r) => (r.path === '/gone' ? { status: 410 } : { status: 429, headers: { 'Retry-After': '7' } })
            expect(await transport.send({ url: receiver.url('/gone'), method: 'POST' }, Buffer.from('{}'), () => ({}))).to.include({ ok: false, status: 410, gone: true })
            expect(await transport.send({ url: receiver.url('/busy'), method: 'PUT' }, Buffer.from('{}'), () => ({}))).to.include({ ok: false, status: 429, retryAfterMs: 7000 })
            expect(receiver.on('/busy')[0].method).to.equal('PUT')
            const closed = new Receiver()
            await closed.start()
            const port = closed.port
            await closed.stop()
            const refused = await transport.send({ url: `http://127.0.0.1:${port}/`, method: 'POST' }, Buffer.from('{}'), () => ({}))
            expect(refused).to.include({ ok: false, status: null, error: 'connect: ECONNREFUSED' })
            transport.close()
            receiver.respond = () => ({ status: 200 })
        })
    })
})
