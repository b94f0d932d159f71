import { expect } from 'chai'
import * as http from 'http'
import { AddressInfo } from 'net'
import pino from 'pino'
import { Client } from 'pg'
import WebSocket from 'ws'
import { waitFor } from '../../common/processes'
import { CLOSE_MESSAGE_RATE, CLOSE_SLOW_CONSUMER, WsHub, WsLimits } from '../../common/service/ws-hub'
import { createTestDatabase } from '../support/postgres'

/** The shared LISTEN → WebSocket hub with a toy protocol: "sub <topic>", "unsub <topic>", "boom"; notifications {topic, text}. */
describe('WebSocket hub', function () {
    this.timeout(60_000)
    let databaseUrl: string
    let server: http.Server
    let hub: WsHub<{ topics: string[]; text: string }, string>
    let url: string
    const opened: WebSocket[] = []
    const LIMITS: WsLimits = { maxTopics: 2, maxConnectionsPerIp: 3, messages: { perSecond: 1, burst: 10 }, maxBufferedBytes: 64 * 1024 }

    before(async () => {
        databaseUrl = await createTestDatabase('ws_hub')
    })

    beforeEach(async () => {
        server = http.createServer((_req, res) => res.end())
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
        hub = new WsHub({
            log: pino({ level: 'silent' }),
            listen: { databaseUrl, channel: 'ws_hub_test', onNotification: (n) => hub.publish(n.topics, (value, topic) => `${n.text} via ${topic} (${value})`) },
            maxPayload: 1024,
            idleMs: 800,
            idleClose: { code: 4000, reason: 'idle' },
            limits: LIMITS,
            // One proxy hop trusted, so a test can speak from other client IPs through X-Forwarded-For.
            trustProxy: 1,
            onMessage: (client, data) => {
                const [verb, topic] = data.split(' ')
                if (verb === 'boom') throw new Error('handler failed')
                if (verb === 'sub') return client.send(client.subscribe(topic, `value of ${topic}`) ? `ok ${topic}` : 'full')
                if (verb === 'unsub') {
                    client.unsubscribe(topic)
                    client.send(`left ${topic}`)
                }
            },
            onMessageFailed: (client) => client.send('failed'),
        })
        await hub.attach(server, '/live')
        url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/live`
    })

    afterEach(async () => {
        for (const ws of opened.splice(0)) ws.terminate()
        await hub.close()
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
    })

    async function connect(ip = '10.0.0.1'): Promise<{ ws: WebSocket; next: () => Promise<string>; closed: Promise<number> }> {
        const ws = new WebSocket(url, { headers: { 'x-forwarded-for': ip } })
        opened.push(ws)
        const inbox: string[] = []
        const waiting: ((m: string) => void)[] = []
        ws.on('message', (data) => {
            const w = waiting.shift()
            if (w) w(data.toString())
            else inbox.push(data.toString())
        })
        const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)))
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
        const next = () => (inbox.length > 0 ? Promise.resolve(inbox.shift()!) : new Promise<string>((resolve) => waiting.push(resolve)))
        return { ws, next, closed }
    }

    async function ask(client: { ws: WebSocket; next: () => Promise<string> }, request: string, reply: string): Promise<void> {
        client.ws.send(request)
        expect(await client.next()).to.equal(reply)
    }

    async function notify(payload: object): Promise<void> {
        const client = new Client({ connectionString: databaseUrl })
        await client.connect()
        try {
            await client.query(`SELECT pg_notify('ws_hub_test', $1)`, [JSON.stringify(payload)])
        } finally {
            await client.end()
        }
    }

    it('fans a notification out to the clients of its topics, once per client, with each client\'s value', async () => {
        const a = await connect()
        const b = await connect()
        await ask(a, 'sub x', 'ok x')
        await ask(a, 'sub y', 'ok y')
        await ask(b, 'sub y', 'ok y')
        await notify({ topics: ['x', 'y', 'z'], text: 'hello' })
        expect(await a.next()).to.equal('hello via x (value of x)')
        expect(await b.next()).to.equal('hello via y (value of y)')
        await ask(a, 'unsub x', 'left x')
        await notify({ topics: ['x'], text: 'again' })
        await notify({ topics: ['y'], text: 'last' })
        expect(await a.next()).to.equal('last via y (value of y)')
    })

    it('bounds the topics of one client, and a failing handler is reported without closing the socket', async () => {
        const a = await connect()
        for (const topic of ['p', 'q', 'p']) await ask(a, `sub ${topic}`, `ok ${topic}`)
        await ask(a, 'sub r', 'full')
        await ask(a, 'boom', 'failed')
        await ask(a, 'sub p', 'ok p')
    })

    it('closes a silent client with the idle close frame, and answers 404 on other paths', async () => {
        const a = await connect()
        expect(await a.closed).to.equal(4000)
        await waitFor('the hub to forget the closed client', async () => hub.size === 0 || undefined, 5_000, 20)
        const status = await new Promise<number>((resolve, reject) => {
            const ws = new WebSocket(url.replace('/live', '/elsewhere'))
            ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!))
            ws.on('error', reject)
        })
        expect(status).to.equal(404)
    })

    /** The HTTP status an upgrade is refused with. */
    function refusal(ip: string): Promise<number> {
        return new Promise<number>((resolve, reject) => {
            const ws = new WebSocket(url, { headers: { 'x-forwarded-for': ip } })
            opened.push(ws)
            ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!))
            ws.on('open', () => reject(new Error(`a connection from ${ip} was accepted`)))
            ws.on('error', reject)
        })
    }

    it('refuses a client IP\'s connection past the limit with 429, not another IP\'s, and takes it again once one closes', async () => {
        const mine = [await connect('10.0.0.7'), await connect('10.0.0.7'), await connect('10.0.0.7')]
        expect(await refusal('10.0.0.7')).to.equal(429)
        const other = await connect('10.0.0.8')
        await ask(other, 'sub x', 'ok x')
        mine[0].ws.close()
        await mine[0].closed
        await waitFor('the hub to count the closed connection out', async () => hub.size === 3 || undefined, 5_000, 20)
        await ask(await connect('10.0.0.7'), 'sub y', 'ok y')
    })

    it('closes a client that sends faster than its message budget with 1008, and serves the others', async () => {
        const flooder = await connect('10.0.0.9')
        const calm = await connect('10.0.0.10')
        // The burst is 10 frames and one more comes per second: 30 at once overdraw it.
        for (let i = 0; i < 30; i++) flooder.ws.send('ping')
        expect(await flooder.closed).to.equal(CLOSE_MESSAGE_RATE)
        await ask(calm, 'sub x', 'ok x')
    })

    it('closes a client that does not read once its send buffer passes the cap, and the others keep receiving', async () => {
        const stalled = await connect('10.0.0.11')
        const reader = await connect('10.0.0.12')
        await ask(stalled, 'sub big', 'ok big')
        await ask(reader, 'sub big', 'ok big')
        await ask(reader, 'sub news', 'ok news')
        // The client stops reading from its TCP socket: what the server sends piles up in the kernel, then in ws's queue.
        ;(stalled.ws as any)._socket.pause()
        const frame = 'x'.repeat(64 * 1024)
        for (let i = 0; i < 2_000 && hub.size === 2; i++) {
            hub.publish(['big'], frame)
            // Let the sockets flush between frames, as a hub does between notifications.
            await new Promise((resolve) => setImmediate(resolve))
        }
        expect(hub.size, 'clients left after the stalled one was dropped').to.equal(1)
        hub.publish(['news'], 'after')
        let got: string
        do got = await reader.next()
        while (got !== 'after')
        // Once it reads again, the stalled client finds the close frame after what was queued.
        ;(stalled.ws as any)._socket.resume()
        expect(await stalled.closed).to.equal(CLOSE_SLOW_CONSUMER)
    })
})
