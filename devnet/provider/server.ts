import { randomBytes } from 'crypto'
import * as http from 'http'
import { AddressInfo } from 'net'

/**
 * The local swap provider's API: SimpleSwap's v3 API as public v3 clients use it, on 127.0.0.1
 * (docs/bridge/README.md#local-chains-npm-start). Routes under /v3, key in `x-api-key` (401
 * without one; 403 for a wrong one — clients show only the 401 without a key, the 403 is this
 * server's choice), camelCase fields, responses wrapped in { result }, assets as ticker + network.
 * Amounts are exact decimal strings computed with bigints: estimatedAmount = amount × rate, rounded
 * down to the target currency's precision, the provider's fee being part of the configured rate.
 *
 * Where those clients show nothing this server picks: 400 for a malformed or unsupported request,
 * 422 for an amount outside the range, 404 for an unknown exchange, error bodies
 * { error, description }.
 *
 * Exchanges move on in one of two ways. `npm start`'s provider settles them for real on the local
 * networks (settlement.ts drives the statuses). Tests script them instead: advance(id) along a
 * path (finished, failed, refunded, expired or verifying), or setStatus; with failNext(route,
 * status, n) to answer 5xx and holdCreates() to keep create answers back (the exchange is stored
 * first, as a slow provider would), with counters of create requests and exchanges stored.
 */

export interface ProviderCurrency {
    ticker: string
    network: string
    name: string
    /** Decimal places amounts of this currency are printed with. */
    precision: number
    hasExtraId: boolean
}

export const PROVIDER_CURRENCIES: ProviderCurrency[] = [
    { ticker: 'btc', network: 'btc', name: 'Bitcoin', precision: 8, hasExtraId: false },
    { ticker: 'eth', network: 'eth', name: 'Ethereum', precision: 18, hasExtraId: false },
    { ticker: 'usdt', network: 'eth', name: 'Tether (ERC-20)', precision: 6, hasExtraId: false },
    { ticker: 'usdt', network: 'bsc', name: 'Tether (BEP-20)', precision: 18, hasExtraId: false },
    { ticker: 'trx', network: 'trx', name: 'TRON', precision: 6, hasExtraId: false },
    { ticker: 'usdt', network: 'trx', name: 'Tether (TRC-20)', precision: 6, hasExtraId: false },
    { ticker: 'sol', network: 'sol', name: 'Solana', precision: 9, hasExtraId: false },
    { ticker: 'pol', network: 'polygon', name: 'Polygon', precision: 18, hasExtraId: false },
    { ticker: 'usdt', network: 'polygon', name: 'Tether (Polygon)', precision: 6, hasExtraId: false },
]

export const STATUS_PATHS = {
    finished: ['waiting', 'confirming', 'exchanging', 'sending', 'finished'],
    failed: ['waiting', 'confirming', 'exchanging', 'failed'],
    refunded: ['waiting', 'confirming', 'exchanging', 'failed', 'refunded'],
    expired: ['waiting', 'expired'],
    verifying: ['waiting', 'confirming', 'verifying', 'exchanging', 'sending', 'finished'],
} as const
export type StatusPath = keyof typeof STATUS_PATHS

export interface PairTerms {
    /** Units of the target per unit of the source, fee included, as a decimal string. */
    rate: string
    min: string
    max: string | null
}

export interface StoredExchange {
    id: string
    fixed: boolean
    tickerFrom: string
    networkFrom: string
    tickerTo: string
    networkTo: string
    amountFrom: string
    expectedAmount: string
    amountTo: string | null
    addressFrom: string
    extraIdFrom: string | null
    addressTo: string
    extraIdTo: string
    userRefundAddress: string
    userRefundExtraId: string
    status: string
    txFrom: string | null
    txTo: string | null
    validUntil: string
    createdAt: string
    updatedAt: string
    /** Not sent: where advance() goes next. */
    path: readonly string[]
}

class HttpError extends Error {
    constructor(readonly status: number, readonly short: string, readonly description: string) {
        super(description)
    }
}

const key = (ticker: string, network: string) => `${ticker.toLowerCase()}:${network.toLowerCase()}`
const PLAIN = /^\d+(?:\.\d+)?$/

function rational(value: string): { num: bigint; den: bigint } {
    if (!PLAIN.test(value)) throw new HttpError(400, 'Bad Request', `amount "${value}" is not a decimal number`)
    const [whole, fraction = ''] = value.split('.')
    return { num: BigInt(whole + fraction), den: 10n ** BigInt(fraction.length) }
}
const compare = (a: string, b: string) => {
    const x = rational(a)
    const y = rational(b)
    const l = x.num * y.den
    const r = y.num * x.den
    return l < r ? -1 : l > r ? 1 : 0
}
function format(num: bigint, den: bigint, precision: number): string {
    const scaled = (num * 10n ** BigInt(precision)) / den
    const base = 10n ** BigInt(precision)
    const fraction = (scaled % base).toString().padStart(precision, '0').replace(/0+$/, '')
    return `${scaled / base}${fraction ? `.${fraction}` : ''}`
}

export class SimpleSwapServer {
    private server?: http.Server
    url = ''
    readonly exchanges = new Map<string, StoredExchange>()
    /** POST /v3/exchanges requests that passed authentication, and exchanges stored. */
    createRequests = 0
    created = 0
    private readonly terms = new Map<string, PairTerms>()
    private readonly failures = new Map<string, { status: number; remaining: number }>()
    private readonly requests = new Map<string, number>()
    /**
     * The deposit address of a new exchange on the source currency's network; a real address when an
     * end-to-end test sends funds there (default: a placeholder no network accepts).
     */
    depositAddressFor?: (ticker: string, network: string) => string
    /** Called after an exchange was created or changed (the local provider saves its state then). */
    onChange?: () => void
    private holding = false
    private held: (() => void)[] = []
    private readonly heldDone: Promise<void>[] = []

    constructor(readonly apiKey = `ss-test-${randomBytes(8).toString('hex')}`) {}

    /** Listens on `port` of 127.0.0.1, or on a free one. */
    async start(port = 0): Promise<this> {
        this.server = http.createServer((req, res) => {
            this.handle(req, res).catch((err) => {
                if (!res.headersSent) this.send(res, 500, { error: 'Internal Server Error', description: String(err) })
            })
        })
        await new Promise<void>((resolve, reject) => {
            this.server!.once('error', reject)
            this.server!.listen(port, '127.0.0.1', () => resolve())
        })
        this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
        return this
    }

    async stop(): Promise<void> {
        this.releaseCreates()
        if (!this.server) return
        this.server.closeAllConnections()
        await new Promise<void>((resolve) => this.server!.close(() => resolve()))
    }

    /** The base URL a client is configured with. */
    get baseUrl(): string {
        return `${this.url}/v3`
    }

    setPair(from: [string, string], to: [string, string], terms: PairTerms): void {
        this.terms.set(`${key(...from)}>${key(...to)}`, terms)
    }

    /** Answer the next `count` requests of `route` ("GET /v3/ranges", "POST /v3/exchanges") with `status`. */
    failNext(route: string, status: number, count = 1): void {
        this.failures.set(route, { status, remaining: count })
    }

    /** Requests received per route (after authentication). */
    requestCount(route: string): number {
        return this.requests.get(route) ?? 0
    }

    /** Store creates but keep their answers back until releaseCreates(). */
    holdCreates(): void {
        this.holding = true
    }

    releaseCreates(): void {
        this.holding = false
        for (const release of this.held.splice(0)) release()
    }

    /** Resolves when every held create answer has been written (or its client has gone). */
    async heldAnswered(): Promise<void> {
        await Promise.all(this.heldDone)
    }

    /** Script the statuses advance() walks through. */
    script(id: string, path: StatusPath | readonly string[]): void {
        const ex = this.exchange(id)
        ex.path = typeof path === 'string' ? STATUS_PATHS[path] : path
    }

    /** Move an exchange to the next status of its path; returns the new status. */
    advance(id: string): string {
        const ex = this.exchange(id)
        const at = ex.path.indexOf(ex.status)
        const next = ex.path[at + 1]
        if (!next) throw new Error(`exchange ${id} is at the end of its path (${ex.status})`)
        this.setStatus(id, next)
        return next
    }

    /** The provider's payout, made for real on the target network: its transaction and amount. */
    paidOut(id: string, txTo: string, amountTo?: string): void {
        const ex = this.exchange(id)
        ex.txTo = txTo
        if (amountTo !== undefined) ex.amountTo = amountTo
        this.onChange?.()
    }

    /** The deposit that reached the exchange's address (it may differ from the amount announced). */
    deposited(id: string, txFrom: string, amountFrom: string): void {
        const ex = this.exchange(id)
        ex.txFrom = txFrom
        ex.amountFrom = amountFrom
        this.onChange?.()
    }

    /** What an exchange pays for an amount of its source currency, at its pair's rate (a floating exchange pays for what arrived). */
    payoutFor(ex: StoredExchange, amountFrom: string): string {
        const terms = this.terms.get(`${key(ex.tickerFrom, ex.networkFrom)}>${key(ex.tickerTo, ex.networkTo)}`)
        const to = PROVIDER_CURRENCIES.find((c) => key(c.ticker, c.network) === key(ex.tickerTo, ex.networkTo))
        if (!terms || !to) throw new Error(`exchange ${ex.id}: its pair is no longer listed`)
        const a = rational(amountFrom)
        const r = rational(terms.rate)
        return format(a.num * r.num, a.den * r.den, to.precision)
    }

    /** Exchanges of an earlier run, as saved. */
    restore(exchanges: StoredExchange[]): void {
        for (const ex of exchanges) this.exchanges.set(ex.id, ex)
    }

    setStatus(id: string, status: string): void {
        const ex = this.exchange(id)
        ex.status = status
        ex.updatedAt = new Date().toISOString()
        if (status === 'confirming' && !ex.txFrom) ex.txFrom = randomBytes(32).toString('hex')
        if (status === 'sending' && !ex.txTo) ex.txTo = `0x${randomBytes(32).toString('hex')}`
        if (status === 'finished') {
            ex.txTo ??= `0x${randomBytes(32).toString('hex')}`
            ex.amountTo ??= ex.expectedAmount
        }
        this.onChange?.()
    }

    private exchange(id: string): StoredExchange {
        const ex = this.exchanges.get(id)
        if (!ex) throw new Error(`no exchange ${id}`)
        return ex
    }

    private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
        const url = new URL(req.url ?? '/', 'http://provider')
        const given = req.headers['x-api-key']
        if (!given) return this.send(res, 401, { error: 'Unauthorized', description: 'x-api-key header is required' })
        if (given !== this.apiKey) return this.send(res, 403, { error: 'Forbidden', description: 'Invalid API key' })

        const route = `${req.method} ${url.pathname.replace(/^(\/v3\/exchanges\/)(?!check$)[^/]+$/, '$1:id').replace(/^(\/v3\/pairs\/).+$/, '$1:ticker/:network')}`
        this.requests.set(route, (this.requests.get(route) ?? 0) + 1)
        const failure = this.failures.get(route)
        if (failure && failure.remaining > 0) {
            failure.remaining--
            return this.send(res, failure.status, { error: 'Service Unavailable', description: 'Injected failure' })
        }
        try {
            const q = url.searchParams
            const parts = url.pathname.split('/').filter(Boolean)
            if (req.method === 'GET' && url.pathname === '/v3/currencies') return this.send(res, 200, { result: this.currencies() })
            if (req.method === 'GET' && parts[1] === 'pairs' && parts.length === 4) return this.send(res, 200, { result: this.pairs(parts[2], parts[3]) })
            if (req.method === 'GET' && url.pathname === '/v3/ranges') {
                const { terms } = this.pairOf(q)
                return this.send(res, 200, { result: { min: terms.min, max: terms.max } })
            }
            if (req.method === 'GET' && (url.pathname === '/v3/estimates' || url.pathname === '/v3/exchanges/check')) {
                const amount = this.param(q, 'amount')
                const fixed = q.get('fixed') === 'true'
                const quote = this.quote(this.pairOf(q), amount)
                return this.send(res, 200, {
                    result: {
                        estimatedAmount: quote,
                        rateId: fixed ? randomBytes(8).toString('hex') : null,
                        validUntil: fixed ? new Date(Date.now() + 15 * 60_000).toISOString() : null,
                    },
                })
            }
            if (req.method === 'POST' && url.pathname === '/v3/exchanges') return await this.create(req, res)
            if (req.method === 'GET' && parts[1] === 'exchanges' && parts.length === 3) {
                const ex = this.exchanges.get(parts[2])
                if (!ex) throw new HttpError(404, 'Not Found', 'Exchange not found')
                return this.send(res, 200, { result: this.view(ex) })
            }
            throw new HttpError(404, 'Not Found', `no route ${req.method} ${url.pathname}`)
        } catch (err) {
            if (err instanceof HttpError) return this.send(res, err.status, { error: err.short, description: err.description })
            throw err
        }
    }

    private async create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
        this.createRequests++
        let body: Record<string, unknown>
        try {
            const chunks: Buffer[] = []
            for await (const chunk of req) chunks.push(chunk as Buffer)
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        } catch {
            throw new HttpError(400, 'Bad Request', 'body is not JSON')
        }
        const text = (name: string, required: boolean): string => {
            const v = body[name]
            if (v === undefined || v === null || v === '') {
                if (required) throw new HttpError(400, 'Bad Request', `${name} is required`)
                return ''
            }
            if (typeof v !== 'string') throw new HttpError(400, 'Bad Request', `${name} must be a string`)
            return v
        }
        const q = new URLSearchParams({
            tickerFrom: text('tickerFrom', true), networkFrom: text('networkFrom', true),
            tickerTo: text('tickerTo', true), networkTo: text('networkTo', true),
        })
        const amount = text('amount', true)
        const addressTo = text('addressTo', true)
        const pair = this.pairOf(q)
        const expected = this.quote(pair, amount)
        const now = new Date()
        const id = randomBytes(6).toString('hex')
        const ex: StoredExchange = {
            id,
            fixed: body.fixed === true,
            tickerFrom: pair.from.ticker, networkFrom: pair.from.network,
            tickerTo: pair.to.ticker, networkTo: pair.to.network,
            amountFrom: amount,
            expectedAmount: expected,
            amountTo: null,
            addressFrom: this.depositAddressFor?.(pair.from.ticker, pair.from.network) ?? `ssdeposit${randomBytes(12).toString('hex')}`,
            extraIdFrom: null,
            addressTo,
            extraIdTo: text('extraIdTo', false),
            userRefundAddress: text('userRefundAddress', false),
            userRefundExtraId: text('userRefundExtraId', false),
            status: 'waiting',
            txFrom: null,
            txTo: null,
            validUntil: new Date(now.getTime() + 30 * 60_000).toISOString(),
            createdAt: now.toISOString(),
            updatedAt: now.toISOString(),
            path: STATUS_PATHS.finished,
        }
        this.exchanges.set(id, ex)
        this.created++
        this.onChange?.()
        if (this.holding) {
            let release!: () => void
            const released = new Promise<void>((resolve) => (release = resolve))
            this.held.push(release)
            const done = released.then(() => {
                if (!res.destroyed) this.send(res, 200, { result: this.view(ex) })
            })
            this.heldDone.push(done)
            return done
        }
        this.send(res, 200, { result: this.view(ex) })
    }

    private view(ex: StoredExchange): Omit<StoredExchange, 'path'> & { publicId: string; type: string } {
        const { path: _path, ...rest } = ex
        return { ...rest, publicId: ex.id, type: ex.fixed ? 'fixed' : 'floating' }
    }

    private currencies() {
        return PROVIDER_CURRENCIES.map((c) => ({
            ticker: c.ticker, network: c.network, name: c.name, image: '', contractAddress: null,
            hasExtraId: c.hasExtraId, validationAddress: '.+', validationExtra: null, addressExplorer: '', txExplorer: '',
        }))
    }

    private pairs(ticker: string, network: string): Record<string, string[]> {
        const from = key(ticker, network)
        const to = [...this.terms.keys()].filter((k) => k.startsWith(`${from}>`)).map((k) => k.split('>')[1])
        return { [from]: to }
    }

    private param(q: URLSearchParams, name: string): string {
        const v = q.get(name)
        if (!v) throw new HttpError(400, 'Bad Request', `${name} is required`)
        return v
    }

    private pairOf(q: URLSearchParams): { from: ProviderCurrency; to: ProviderCurrency; terms: PairTerms } {
        const find = (t: string, n: string) => PROVIDER_CURRENCIES.find((c) => key(c.ticker, c.network) === key(t, n))
        const from = find(this.param(q, 'tickerFrom'), this.param(q, 'networkFrom'))
        const to = find(this.param(q, 'tickerTo'), this.param(q, 'networkTo'))
        if (!from || !to) throw new HttpError(400, 'Bad Request', 'Currency not found')
        const terms = this.terms.get(`${key(from.ticker, from.network)}>${key(to.ticker, to.network)}`)
        if (!terms) throw new HttpError(400, 'Bad Request', 'Pair is not available')
        return { from, to, terms }
    }

    private quote(pair: { from: ProviderCurrency; to: ProviderCurrency; terms: PairTerms }, amount: string): string {
        const a = rational(amount)
        if (amount.split('.')[1]?.length > pair.from.precision) {
            throw new HttpError(400, 'Bad Request', `amount has more than ${pair.from.precision} decimals`)
        }
        if (compare(amount, pair.terms.min) < 0 || (pair.terms.max !== null && compare(amount, pair.terms.max) > 0)) {
            throw new HttpError(422, 'Unprocessable Entity', `Amount is out of range: min ${pair.terms.min}, max ${pair.terms.max ?? 'none'}`)
        }
        const r = rational(pair.terms.rate)
        return format(a.num * r.num, a.den * r.den, pair.to.precision)
    }

    private send(res: http.ServerResponse, status: number, body: unknown): void {
        const text = JSON.stringify(body)
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
        res.end(text)
    }
}
