import { ErrorRequestHandler } from 'express'
import { Logger } from '../logger'
import { HttpError } from './http-error'

/** A 4xx raised by the request parser (body-parser: bad JSON, a body over the limit, a bad charset). */
export interface ParserFault {
    status: number
    /** body-parser's error type, e.g. `entity.parse.failed`, `entity.too.large`. */
    type?: string
    message?: string
}

/** How one HTTP surface words its errors: each keeps the body its documentation promises. */
export interface ErrorSurface {
    /** Shown in the log line of a failure that is ours: `<name> request failed`. */
    name: string
    body(err: HttpError): unknown
    /** This surface's answer to a parser fault. */
    parserFault(fault: ParserFault): HttpError
    /** The message of a 500. */
    internalMessage: string
}

/**
 * The error middleware of a surface. Thrown HttpErrors go out as they are, parser faults as the
 * surface words them, and anything else is a 500 whose details stay in the log.
 */
export function errorHandler(surface: ErrorSurface, log: Logger): ErrorRequestHandler {
    return (err, req, res, _next) => {
        const answer = answerTo(err, surface)
        // 503 and 504 are a dependency being away, not a bug; the path is logged without the query, which may carry a password.
        if (answer.status >= 500 && answer.status !== 503 && answer.status !== 504) {
            log.error({ err, method: req.method, path: req.originalUrl.split('?')[0] }, `${surface.name} request failed`)
        }
        if (res.headersSent) {
            req.socket.destroy()
            return
        }
        // An answer that states a rate limit's budget states it whole: a limit passed earlier in the
        // request (per IP) must not leave its RateLimit-* fields beside the refusing limit's.
        if (Object.keys(answer.headers ?? {}).some(isRateLimitField)) {
            for (const name of Object.keys(res.getHeaders())) if (isRateLimitField(name)) res.removeHeader(name)
        }
        res.set(answer.headers)
        res.status(answer.status).json(surface.body(answer))
    }
}

const isRateLimitField = (name: string) => /^ratelimit-/i.test(name)

function answerTo(err: unknown, surface: ErrorSurface): HttpError {
    if (err instanceof HttpError) return err
    const fault = parserFault(err)
    return fault ? surface.parserFault(fault) : new HttpError(500, surface.internalMessage, { code: 'internal' })
}

function parserFault(err: any): ParserFault | undefined {
    const status = typeof err?.status === 'number' ? err.status : err?.statusCode
    if (typeof status !== 'number' || status < 400 || status >= 500 || err.expose === false) return undefined
    // The router's words ("Failed to decode param '%'") echo the client's input: ours instead.
    if (err instanceof URIError) return { status: 400, type: MALFORMED_PATH, message: 'a path parameter is not valid percent-encoding' }
    return { status, type: err.type, message: err.message }
}

/** The ParserFault type of a path parameter that is not valid percent-encoding (`/blocks/%`). */
export const MALFORMED_PATH = 'path.malformed'

/**
 * The body of the surfaces that name their errors (explorer services, bridge):
 * `{"error": {"code": "invalid_request", "message": "email: is required", "field": "email"}}`.
 */
export function codedErrorBody(err: HttpError): unknown {
    return { error: { code: err.code, message: err.message, ...err.details } }
}
