import { NextFunction, Request, Response } from 'express'
import { z } from 'zod'
import { Logger } from '../../common/logger'

/**
 * The platform's error model: every failure leaves as { success: false, error } with a status
 * that says whose fault it was. Handlers throw HttpError; anything else is our bug (500).
 */
export class HttpError extends Error {
    constructor(
        readonly status: number,
        message: string,
        readonly headers: Record<string, string> = {}
    ) {
        super(message)
        this.name = 'HttpError'
    }
}

/**
 * The transaction was sent but not mined within the wait: not a failure. The caller gets 202 with
 * the hash, to follow on the chain.
 */
export class PendingTransactionError extends Error {
    constructor(readonly hash: string) {
        super(`Transaction ${hash} was sent and is not mined yet; follow it by its hash`)
        this.name = 'PendingTransactionError'
    }
}

export const badRequest = (message: string) => new HttpError(400, message)
export const notFound = (message: string) => new HttpError(404, message)
export const conflict = (message: string) => new HttpError(409, message)
export const unavailable = (message: string) => new HttpError(503, message)

/** The one body every authentication failure gets: it tells nothing about why. */
export const AUTH_FAILED_MESSAGE = 'Authentication failed'
export const unauthorized = () => new HttpError(401, AUTH_FAILED_MESSAGE)

/** Validates input against a schema; the first problems are named in a 400. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
    const result = schema.safeParse(input ?? {})
    if (result.success) return result.data
    const problems = result.error.issues.slice(0, 3).map((issue) => {
        const field = issue.path.join('.')
        if (field && valueAt(input, issue.path) === undefined) return `${field} is required`
        return field ? `${field}: ${issue.message}` : issue.message
    })
    throw badRequest(`Invalid input: ${problems.join('; ')}`)
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
    let current: any = input
    for (const key of path) current = current === null || typeof current !== 'object' ? undefined : current[key as string]
    return current
}

/** Success bodies: `{ success: true, data }`, unless a route has a shape of its own (docs/platform-api.md). */
export function sendData(res: Response, data: unknown, status = 200): void {
    res.status(status).json({ success: true, data })
}

/** Responses that carry a private key or mnemonic must not be kept by any cache on the way. */
export function noStore(res: Response): void {
    res.setHeader('Cache-Control', 'no-store')
}

export function errorHandler(log: Logger) {
    // Express recognises error middleware by its four parameters.
    return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
        let status = 500
        let message = 'Internal error'
        let headers: Record<string, string> = {}
        const e = err as { type?: string; status?: number; message?: string }
        if (err instanceof PendingTransactionError) {
            if (!res.headersSent) res.status(202).json({ success: true, pending: true, hash: err.hash, message: err.message })
            return
        }
        if (err instanceof HttpError) {
            status = err.status
            message = err.message
            headers = err.headers
        } else if (e?.type === 'entity.parse.failed') {
            status = 400
            message = 'Malformed JSON body'
        } else if (e?.type === 'entity.too.large') {
            status = 413
            message = 'Request body too large'
        } else if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
            // body-parser's other client errors (charset, encoding)
            status = e.status
            message = e.message ?? 'Bad request'
        }
        if (status >= 500 && status !== 503 && status !== 504) {
            // The path, never the URL: a query string may carry user_pwd.
            log.error({ err, method: req.method, path: req.path }, 'platform request failed')
        }
        if (res.headersSent) return
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
        res.status(status).json({ success: false, error: message })
    }
}
