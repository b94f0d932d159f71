import { expect } from 'chai'
import { execFileSync } from 'child_process'
import { X509Certificate } from 'crypto'
import * as fs from 'fs'
import * as http from 'http'
import * as https from 'https'
import * as net from 'net'
import * as os from 'os'
import * as path from 'path'
import { TLSSocket } from 'tls'
import { HistoryNode, NO_CONTRACTS, startHistoryNode } from '../../bench/history-node'
import { loadSyntheticRows } from '../../bench/synthetic-rows'
import { waitFor } from '../../common/processes'
import { applyMigrations } from '../../db/migrate'
import { ApiProcess, startApi } from '../support/api'
import { checkGatewayConfig, Gateway, startGateway } from '../support/gateway'
import { createTestDatabase } from '../support/postgres'

/**
 * deploy/haproxy.cfg run as deployed, by the real HAProxy, in front of a real api process: the
 * limits per client IP, /metrics kept to the scrape frontend, TLS when given a certificate
 * (docs/production.md#the-gateway). Client IPs are loopback addresses: Linux routes all of
 * 127.0.0.0/8 to lo, so a request can come from 127.0.0.2 as another client would.
 */

const BLOCKS = 20
const CHAIN_ID = 3009
const ROUTE = '/api/v2/main-page/blocks'
/** The defaults of deploy/haproxy.cfg (docs/configuration.md#gateway). */
const REQUESTS_PER_10S = 500
const CONNECTIONS = 100

interface Reply {
    status: number
    headers: http.IncomingHttpHeaders
    body: string
}

/** One GET from the client address `from`, on `agent`'s connections when given. */
function get(url: string, from: string, options: { agent?: http.Agent; ca?: string } = {}): Promise<Reply> {
    const u = new URL(url)
    const request = u.protocol === 'https:' ? https.request : http.request
    return new Promise((resolve, reject) => {
        const req = request(u, { localAddress: from, agent: options.agent, ca: options.ca, servername: 'localhost' }, (res) => {
            let body = ''
            res.setEncoding('utf8')
            res.on('data', (d) => (body += d))
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
        })
        req.on('error', reject)
        req.end()
    })
}

/** The gateway's refusal of a client past its limit: its own 429, not a service's. */
function expectGatewayLimit(reply: Reply): void {
    expect(reply.status, reply.body).to.equal(429)
    expect(JSON.parse(reply.body)).to.include({ code: 'rate_limited' })
    expect(reply.headers['retry-after']).to.equal('10')
    // The services' 429s state their budget (RateLimit-*); the gateway's does not.
    expect(reply.headers['ratelimit-limit']).to.equal(undefined)
}

/** A self-signed certificate for localhost and its key, in one PEM file as HAProxy's `crt` takes it. */
function selfSignedPem(dir: string): { pemFile: string; certificate: string } {
    const key = path.join(dir, 'key.pem')
    const cert = path.join(dir, 'cert.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
        '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'pipe' })
    const certificate = fs.readFileSync(cert, 'utf8')
    const pemFile = path.join(dir, 'gateway.pem')
    fs.writeFileSync(pemFile, certificate + fs.readFileSync(key, 'utf8'))
    return { pemFile, certificate }
}

describe('the gateway (deploy/haproxy.cfg)', function () {
    let node: HistoryNode
    let api: ApiProcess
    let gateway: Gateway
    let tlsGateway: Gateway | undefined
    let dir: string
    let tls: { pemFile: string; certificate: string }
    const agents: http.Agent[] = []

    before(async function () {
        // Installing haproxy, when the machine lacks it, takes longer than a test.
        this.timeout(600_000)
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-'))
        tls = selfSignedPem(dir)
        const databaseUrl = await createTestDatabase('gateway')
        await applyMigrations(databaseUrl)
        const dataset = await loadSyntheticRows(databaseUrl, BLOCKS)
        // The node's head is the indexed head: the api is ready (GET /ready), so the gateway routes to it.
        node = await startHistoryNode({ head: dataset.head, chainId: CHAIN_ID })
        api = await startApi({ databaseUrl, rpcUrl: node.url, contracts: NO_CONTRACTS, env: { TRUST_PROXY: '1' } })
        gateway = await startGateway({ api: new URL(api.explorerUrl).host })
        await waitFor('the gateway to route to the api', () => get(`${gateway.apiUrl}${ROUTE}`, '127.0.0.9').then((r) => r.status === 200, () => false), 30_000)
    })

    after(async function () {
        for (const agent of agents) agent.destroy()
        await tlsGateway?.stop()
        await gateway?.stop()
        await api?.stop()
        await node?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    it('is a valid HAProxy configuration as compose runs it, and with a certificate; a missing certificate is refused', function () {
        const plain = checkGatewayConfig({})
        expect(plain.status, plain.output).to.equal(0)
        const withTls = checkGatewayConfig({ GATEWAY_TLS_CERT: tls.pemFile })
        expect(withTls.status, withTls.output).to.equal(0)
        // The TLS lines are read only when a certificate is given: a wrong path is an error, not ignored.
        const missing = checkGatewayConfig({ GATEWAY_TLS_CERT: path.join(dir, 'absent.pem') })
        expect(missing.status).to.not.equal(0)
        expect(missing.output).to.include('absent.pem')
    })

    it('answers a flood from one IP with its own 429 past the request rate, while another IP is served', async function () {
        const flooder = '127.0.0.1'
        const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
        agents.push(agent)
        const statuses = new Map<number, number>()
        let refusal: Reply | undefined
        // Past the budget of requests per 10 s, on 16 connections as a script would send them.
        let sent = 0
        await Promise.all(Array.from({ length: 16 }, async () => {
            while (sent++ < REQUESTS_PER_10S + 300) {
                const reply = await get(`${gateway.apiUrl}${ROUTE}`, flooder, { agent })
                statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
                if (reply.status === 429) refusal ??= reply
            }
        }))
        expect([...statuses.keys()].sort(), JSON.stringify([...statuses])).to.deep.equal([200, 429])
        expectGatewayLimit(refusal!)
        // The flooder is still refused; a visitor from another address is served meanwhile.
        expectGatewayLimit(await get(`${gateway.apiUrl}${ROUTE}`, flooder, { agent }))
        const visitor = await get(`${gateway.apiUrl}${ROUTE}`, '127.0.0.2')
        expect(visitor.status, visitor.body).to.equal(200)
        expect(JSON.parse(visitor.body)).to.be.an('array').with.length.above(0)
        // The refusals are the gateway's own figure, on its scrape frontend.
        const metrics = await (await fetch(`${gateway.scrapeUrl}/metrics`)).text()
        const denied = metrics.match(/^haproxy_frontend_requests_denied_total\{proxy="api"\} (\d+)$/m)
        expect(Number(denied?.[1])).to.be.at.least(statuses.get(429)! + 1)
    })

    it(`refuses a client holding more than ${CONNECTIONS} connections with 429, and serves it again once it lets them go`, async function () {
        const hog = '127.0.0.3'
        const { port } = new URL(gateway.apiUrl)
        const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect({ host: '127.0.0.1', port: Number(port), localAddress: hog }, () => resolve(socket))
            socket.on('error', reject)
        })))
        try {
            // A connect completes in the kernel before HAProxy accepts it: the count is HAProxy's once it has.
            await waitFor(`the gateway to hold the ${CONNECTIONS} connections`, async () => {
                const metrics = await (await fetch(`${gateway.scrapeUrl}/metrics`)).text()
                return Number(metrics.match(/^haproxy_frontend_current_sessions\{proxy="api"\} (\d+)$/m)?.[1]) >= CONNECTIONS
            }, 10_000)
            // Its 101st connection: refused, although it has sent almost no requests.
            expectGatewayLimit(await get(`${gateway.apiUrl}${ROUTE}`, hog))
            expect((await get(`${gateway.apiUrl}${ROUTE}`, '127.0.0.4')).status).to.equal(200)
        } finally {
            for (const socket of sockets) socket.destroy()
        }
        await waitFor('the connections to be let go', () => get(`${gateway.apiUrl}${ROUTE}`, hog).then((r) => r.status === 200), 10_000)
    })

    it('refuses /metrics on the public frontend however it is spelt, and serves it on the scrape frontend', async function () {
        for (const spelling of ['/metrics', '/METRICS', '/metrics/', '//metrics', '/%6Detrics']) {
            const reply = await get(`${gateway.apiUrl}${spelling}`, '127.0.0.5')
            expect(reply.status, spelling).to.equal(403)
            expect(JSON.parse(reply.body)).to.include({ code: 'forbidden' })
        }
        // The api itself serves it: the gateway is what keeps it off the public port.
        expect((await fetch(`${api.explorerUrl}/metrics`)).status).to.equal(200)
        const replica = await fetch(`${gateway.scrapeUrl}/api/metrics`)
        expect(replica.status).to.equal(200)
        expect(await replica.text()).to.match(/^http_request_duration_seconds_count\{.*service="api"/m)
        const own = await fetch(`${gateway.scrapeUrl}/metrics`)
        expect(own.status).to.equal(200)
        expect(await own.text()).to.match(/^haproxy_backend_active_servers\{proxy="api"\} [1-9]/m)
        expect((await fetch(`${gateway.scrapeUrl}${ROUTE}`)).status).to.equal(404)
    })

    it('speaks TLS on the public ports with the certificate it is given', async function () {
        tlsGateway = await startGateway({ api: new URL(api.explorerUrl).host, tlsCert: tls.pemFile })
        const served = await waitFor('the TLS gateway to route to the api', async () => {
            const reply = await get(`${tlsGateway!.apiUrl}${ROUTE}`, '127.0.0.6', { ca: tls.certificate })
            return reply.status === 200 && reply
        }, 30_000)
        expect(JSON.parse(served.body)).to.be.an('array').with.length.above(0)
        // The certificate presented is the one given, and it verifies against itself as the only CA.
        const presented = await new Promise<string>((resolve, reject) => {
            const req = https.request(`${tlsGateway!.apiUrl}/api/v2/stats`, { ca: tls.certificate, servername: 'localhost' }, (res) => {
                resolve((res.socket as TLSSocket).getPeerX509Certificate()!.fingerprint256)
                res.resume()
            })
            req.on('error', reject)
            req.end()
        })
        expect(presented).to.equal(new X509Certificate(tls.certificate).fingerprint256)
        // Plain HTTP is not served on a TLS port.
        const plain = await get(`http://127.0.0.1:${new URL(tlsGateway.apiUrl).port}${ROUTE}`, '127.0.0.6').then((r) => r.status, () => 'refused')
        expect(plain).to.not.equal(200)
    })
})
