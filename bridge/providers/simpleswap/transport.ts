import { setTimeout as sleep } from 'timers/promises'
import {
    ProviderAuthError, ProviderError, ProviderNotFoundError, ProviderRequestError, ProviderUnavailableError, ProviderUncertainError,
} from '../errors'
import { ErrorBody } from './schema'

/**
 * HTTP to SimpleSwap v3: the key in `x-api-key`, a deadline on every request (body included),
 * retries for reads only, and every failure sorted into the classes of errors.ts. The key lives
 * in a private field so that neither util.inspect nor an error message can show it.
 */

export interface TransportOptions {
    /** Base URL including /v3, no trailing slash needed. */
    baseUrl: string
    apiKey: string
    /** Per attempt, reads. */
    timeoutMs: number
    /** A create: longer, because a timeout there costs an operator's look rather than a retry. */
    createTimeoutMs: number
    /** Attempts of a read, the first included. */
    readAttempts: number
    /** First retry delay; doubles per attempt, with jitter. */
    retryDelayMs: number
}

export interface Request {
    method: 'GET' | 'POST'
    path: string
    query?: Record<string, string>
    body?: unknown
}

/** Errors of the socket layer that mean the request never left: a create can be called unavailable, not uncertain. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])

class Retryable extends Error {
    constructor(readonly error: ProviderError) {
        super(error.message)
    }
}

export class Transport {
    readonly #apiKey: string
    private readonly baseUrl: string
    private readonly options: Omit<TransportOptions, 'apiKey' | 'baseUrl'>

    constructor({ apiKey, baseUrl, ...options }: TransportOptions) {
        this.#apiKey = apiKey
        this.baseUrl = baseUrl.replace(/\/+$/, '')
        this.options = options
    }

    /** A read: retried on timeouts, connection errors, 429 and 5xx. */
    async read(request: Request): Promise<unknown> {
        let last: ProviderError | undefined
        for (let attempt = 0; attempt < Math.max(1, this.options.readAttempts); attempt++) {
            if (attempt > 0) {
                const base = this.options.retryDelayMs * 2 ** (attempt - 1)
                await sleep(base + Math.floor(Math.random() * base))
            }
            try {
                return await this.once(request, this.options.timeoutMs, false)
            } catch (err) {
                if (!(err instanceof Retryable)) throw err
                last = err.error
            }
        }
        throw last!
    }

    /** A non-idempotent call: exactly one attempt. */
    async write(request: Request): Promise<unknown> {
        try {
            return await this.once(request, this.options.createTimeoutMs, true)
        } catch (err) {
            throw err instanceof Retryable ? err.error : err
        }
    }

    private async once(request: Request, timeoutMs: number, write: boolean): Promise<unknown> {
        const url = new URL(this.baseUrl + request.path)
        for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v)
        const what = `${request.method} ${url.pathname}`
        const headers: Record<string, string> = { accept: 'application/json', 'x-api-key': this.#apiKey }
        if (request.body !== undefined) headers['content-type'] = 'application/json'

        let status: number
        let text: string
        try {
            const res = await fetch(url, {
                method: request.method,
                headers,
                body: request.body === undefined ? undefined : JSON.stringify(request.body),
                redirect: 'error',
                signal: AbortSignal.timeout(timeoutMs),
            })
            status = res.status
            text = await res.text()
        } catch (err) {
            const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')
            const code = socketCode(err)
            const reason = timedOut ? `no answer within ${timeoutMs} ms` : `connection failed${code ? ` (${code})` : ''}`
            if (write && !(code && NOT_SENT_CODES.has(code))) {
                throw new ProviderUncertainError(`SimpleSwap ${what}: ${reason}; the exchange may have been created`, true)
            }
            throw new Retryable(new ProviderUnavailableError(`SimpleSwap ${what}: ${reason}`))
        }

        if (status >= 200 && status < 300) {
            try {
                return JSON.parse(text)
            } catch {
                if (write) throw new ProviderUncertainError(`SimpleSwap ${what}: answered ${status} with a body that is not JSON`, true, status)
                throw new Retryable(new ProviderUnavailableError(`SimpleSwap ${what}: answered ${status} with a body that is not JSON`, status))
            }
        }
        const detail = errorDetail(text)
        const said = detail ? `: ${detail}` : ''
        if (status === 401 || status === 403) {
            throw new ProviderAuthError(`SimpleSwap refused the configured API key (${status})${said}`, status)
        }
        if (status === 404) throw new ProviderNotFoundError(`SimpleSwap ${what}: not found${said}`, status)
        if (status === 429) {
            // Rate limiting refuses the request before acting on it, so even a create did not happen.
            throw new Retryable(new ProviderUnavailableError(`SimpleSwap ${what}: rate limited (429)${said}`, status))
        }
        if (status >= 500) {
            // 503 says "not processed"; any other 5xx on a create may have come after the exchange was stored.
            if (write && status !== 503) throw new ProviderUncertainError(`SimpleSwap ${what}: ${status}${said}`, true, status)
            throw new Retryable(new ProviderUnavailableError(`SimpleSwap is unavailable (${status})${said}`, status))
        }
        throw new ProviderRequestError(`SimpleSwap refused ${what} (${status})${said}`, status)
    }
}

function socketCode(err: unknown): string | undefined {
    for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
        const code = (e as { code?: unknown }).code
        if (typeof code === 'string') return code
        e = (e as { cause?: unknown }).cause
    }
    return undefined
}

/** The provider's own explanation, shortened; an HTML error page yields nothing. */
function errorDetail(text: string): string | undefined {
    let body: unknown
    try {
        body = JSON.parse(text)
    } catch {
        return undefined
    }
    const parsed = ErrorBody.safeParse(body)
    if (!parsed.success) return undefined
    for (const field of [parsed.data.description, parsed.data.message, parsed.data.error]) {
        if (typeof field === 'string' && field.trim()) return field.trim().slice(0, 300)
        if (Array.isArray(field) && field.length) return field.map(String).join('; ').slice(0, 300)
    }
    return undefined
}
