import { expect } from 'chai'
import { Client as PgClient } from 'pg'
import { SMTPServer } from 'smtp-server'
import { waitFor } from '../../../common/processes'
import { ApiProcess, startApi } from '../../support/api'
import { createTestDatabase } from '../../support/postgres'

/**
 * Test harness of the explorer services API: the real api process against a database of its own,
 * mail through a real SMTP server on loopback, and an HTTP client that can pose as any client IP
 * (the api runs with TRUST_PROXY, so X-Forwarded-For picks the rate-limit key of each test).
 */

export const JWT_SECRET = 'test-jwt-secret-of-at-least-32-characters'

export interface ReceivedMail {
    to: string
    subject: string
    text: string
}

/** An SMTP server on 127.0.0.1 that keeps every message it is given. */
export class MailCatcher {
    readonly received: ReceivedMail[] = []
    private server?: SMTPServer
    port = 0

    async start(): Promise<void> {
        this.server = new SMTPServer({
            authOptional: true,
            disabledCommands: ['AUTH', 'STARTTLS'],
            logger: false,
            onData: (stream, session, callback) => {
                const chunks: Buffer[] = []
                stream.on('data', (c: Buffer) => chunks.push(c))
                stream.on('end', () => {
                    const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase())
                    const parsed = parseMessage(Buffer.concat(chunks).toString('utf8'))
                    for (const address of to) this.received.push({ to: address, ...parsed })
                    callback()
                })
            },
        })
        await new Promise<void>((resolve, reject) => {
            this.server!.once('error', reject)
            this.server!.listen(0, '127.0.0.1', () => resolve())
        })
        this.port = (this.server.server.address() as { port: number }).port
    }

    get url(): string {
        return `smtp://127.0.0.1:${this.port}`
    }

    /** The count-th message (1-based) to this address, once it has arrived. */
    async nth(to: string, count: number): Promise<ReceivedMail> {
        return waitFor(`mail #${count} to ${to}`, async () => this.to(to)[count - 1], 20_000, 50)
    }

    to(address: string): ReceivedMail[] {
        return this.received.filter((m) => m.to === address.toLowerCase())
    }

    async stop(): Promise<void> {
        if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()))
    }
}

/** Headers and text of a single-part message (what the api sends), undoing its transfer encoding. */
function parseMessage(raw: string): { subject: string; text: string } {
    const split = raw.search(/\r?\n\r?\n/)
    const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ')
    const body = raw.slice(split).replace(/^\r?\n\r?\n/, '')
    const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1].trim() ?? ''
    const encoding = header('Content-Transfer-Encoding').toLowerCase()
    let text = body
    if (encoding === 'quoted-printable') {
        text = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h) => String.fromCharCode(parseInt(h, 16)))
    } else if (encoding === 'base64') {
        text = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
    }
    return { subject: header('Subject'), text: text.replace(/\r\n/g, '\n') }
}

export function codeIn(mail: ReceivedMail): string {
    const match = /verification code is (\d{6})/.exec(mail.text)
    expect(match, `a 6-digit code in:\n${mail.text}`).to.not.equal(null)
    return match![1]
}

export function verifyLinkIn(mail: ReceivedMail): string {
    const match = /(https?:\/\/\S+\/auth\/verify\?token=\S+)/.exec(mail.text)
    expect(match, `a verification link in:\n${mail.text}`).to.not.equal(null)
    return match![1]
}

export function resetTokenIn(mail: ReceivedMail): string {
    const match = /Reset token: (\S+)/.exec(mail.text)
    expect(match, `a reset token in:\n${mail.text}`).to.not.equal(null)
    return match![1]
}

export interface Reply<T = any> {
    status: number
    headers: Headers
    body: T
    text: string
}

let ipCounter = 0

/** A fresh client IP for each caller, so rate-limit budgets of tests do not mix. */
export function nextIp(): string {
    ipCounter++
    return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`
}

/** HTTP client of {explorer_api_url}, posing as one client IP. */
export class Client {
    constructor(readonly apiUrl: string, readonly ip: string = nextIp()) {}

    async request<T = any>(method: string, path: string, options: {
        json?: unknown
        raw?: string
        contentType?: string
        token?: string
        headers?: Record<string, string>
    } = {}): Promise<Reply<T>> {
        const headers: Record<string, string> = { 'X-Forwarded-For': this.ip, ...options.headers }
        let body: string | undefined
        if (options.json !== undefined) {
            body = JSON.stringify(options.json)
            headers['Content-Type'] = 'application/json'
        } else if (options.raw !== undefined) {
            body = options.raw
            headers['Content-Type'] = options.contentType ?? 'application/json'
        }
        if (options.token) headers.Authorization = `Bearer ${options.token}`
        const response = await fetch(`${this.apiUrl}${path}`, { method, headers, body })
        const text = await response.text()
        let parsed: any = undefined
        if (text && (response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text)
        return { status: response.status, headers: response.headers, body: parsed, text }
    }

    get<T = any>(path: string, token?: string) {
        return this.request<T>('GET', path, { token })
    }

    post<T = any>(path: string, json?: unknown, token?: string) {
        return this.request<T>('POST', path, { json, token })
    }

    delete<T = any>(path: string, token?: string) {
        return this.request<T>('DELETE', path, { token })
    }
}

/** Asserts the API's one error body and returns it. */
export function expectError(reply: Reply, status: number, code?: string, field?: string) {
    expect(reply.status, `status of ${reply.text}`).to.equal(status)
    expect(reply.headers.get('content-type'), 'error content type').to.match(/^application\/json/)
    expect(reply.body).to.have.property('error')
    expect(reply.body.error.code).to.be.a('string')
    expect(reply.body.error.message).to.be.a('string').and.not.equal('')
    if (code) expect(reply.body.error.code, reply.text).to.equal(code)
    if (field) expect(reply.body.error.field, reply.text).to.equal(field)
    return reply.body.error as { code: string; message: string; field?: string }
}

export interface ExplorerStack {
    api: ApiProcess
    mail: MailCatcher
    databaseUrl: string
    /** A client on the database, to check what the api stored. */
    db: PgClient
    apiUrl: string
    client(ip?: string): Client
    stop(): Promise<void>
}

/** The api process with SMTP and a trusted proxy in front, on a fresh database. */
export async function startExplorerStack(options: { env?: Record<string, string>; databaseUrl?: string; rpcUrl?: string; contracts?: Parameters<typeof startApi>[0]['contracts'] } = {}): Promise<ExplorerStack> {
    const databaseUrl = options.databaseUrl ?? await createTestDatabase('explorer')
    const mail = new MailCatcher()
    await mail.start()
    const db = new PgClient({ connectionString: databaseUrl })
    let api: ApiProcess
    try {
        await db.connect()
        api = await startApi({
            databaseUrl,
            rpcUrl: options.rpcUrl,
            contracts: options.contracts,
            env: { SMTP_URL: mail.url, TRUST_PROXY: 'true', ...options.env },
        })
    } catch (err) {
        await db.end().catch(() => undefined)
        await mail.stop()
        throw err
    }
    const apiUrl = `${api.explorerUrl}/api`
    return {
        api,
        mail,
        databaseUrl,
        db,
        apiUrl,
        client: (ip?: string) => new Client(apiUrl, ip),
        async stop() {
            await db.end()
            await api.stop()
            await mail.stop()
        },
    }
}

let emailCounter = 0

export function uniqueEmail(tag = 'user'): string {
    return `${tag}-${process.pid}-${++emailCounter}@example.com`
}

/** Signs up, verifies with the mailed code and signs in: the session token. */
export async function verifiedAccount(stack: ExplorerStack, email = uniqueEmail(), password = 'correct horse battery'): Promise<{ email: string; password: string; token: string }> {
    const client = stack.client()
    const signup = await client.post('/auth/signup', { email, password })
    expect(signup.status, signup.text).to.equal(201)
    const code = codeIn(await stack.mail.nth(email, 1))
    const verified = await client.post('/auth/verify-code', { email, code })
    expect(verified.status, verified.text).to.equal(200)
    const signin = await client.post('/auth/signin', { email, password })
    expect(signin.status, signin.text).to.equal(200)
    return { email, password, token: signin.body.token }
}

/** The claims of a JWT, read without checking it (the test checks what the server put in). */
export function jwtClaims(token: string): Record<string, any> {
    return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'))
}
