import { ErrorRequestHandler, Response } from 'express'
import { z } from 'zod'
import { ErrorSurface } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'

export { HttpError }

/**
 * The platform's error model: every failure leaves as { success: false, error } with a status
 * that says whose fault it was. Handlers throw HttpError; anything else is our bug (500).
 */
export const platformErrors: ErrorSurface = {
    name: 'platform',
    body: (err) => ({ success: false, error: err.message }),
    parserFault: ({ status, type, message }) => {
        if (type === 'entity.parse.failed') return new HttpError(400, 'Malformed JSON body')
        if (type === 'entity.too.large') return new HttpError(413, 'Request body too large')
        return new HttpError(status, message ?? 'Bad request')
    },
    internalMessage: 'Internal error',
}

/** The error body as the OpenAPI document states it. */
export const platformErrorSchema = z.object({ success: z.literal(false), error: z.string() }).meta({ id: 'PlatformError' })

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

/** A transaction sent but not yet mined is no failure: 202 with its hash; every other error goes on to the platform's error middleware. */
export const pendingTransactionAnswer: ErrorRequestHandler = (err, _req, res, next) => {
    if (!(err instanceof PendingTransactionError)) return next(err)
    if (!res.headersSent) res.status(202).json({ success: true, pending: true, hash: err.hash, message: err.message })
}
