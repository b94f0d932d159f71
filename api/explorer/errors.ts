import { ErrorRequestHandler, RequestHandler } from 'express'
import { Logger } from '../../common/logger'

/**
 * The one error body of the explorer services API:
 * `{ "error": { "code": "invalid_request", "message": "email: is required", "field": "email" } }`.
 * Handlers throw an ApiError; anything else that reaches the error middleware is our fault (500),
 * except the body parser's own 4xx, which keep their status.
 */
export class ApiError extends Error {
    constructor(
        readonly status: number,
        readonly code: string,
        message: string,
        readonly field?: string,
        readonly headers: Record<string, string> = {}
    ) {
        super(message)
        this.name = 'ApiError'
    }
}

export const badRequest = (message: string, field?: string) => new ApiError(400, 'invalid_request', message, field)

export const unauthorized = (message = 'a valid bearer token is required') =>
    new ApiError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer' })

export const notFound = (message = 'not found') => new ApiError(404, 'not_found', message)

export const notConfigured = (message: string) => new ApiError(503, 'not_configured', message)

/** Unknown paths under /api. GET /api itself is left to whatever is mounted after this router. */
export const unknownPath: RequestHandler = (req, _res, next) => {
    if (req.method === 'GET' && req.path === '/') return next()
    next(notFound(`no route ${req.method} ${req.baseUrl}${req.path}`))
}

/** body-parser's error types, named in our codes. */
const PARSER_CODES: Record<string, string> = {
    'entity.parse.failed': 'invalid_json',
    'entity.too.large': 'payload_too_large',
    'encoding.unsupported': 'unsupported_encoding',
    'charset.unsupported': 'unsupported_charset',
    'request.aborted': 'request_aborted',
    'request.size.invalid': 'invalid_request',
}

export function errorHandler(log: Logger): ErrorRequestHandler {
    return (err, req, res, _next) => {
        if (res.headersSent) {
            req.socket.destroy()
            return
        }
        if (err instanceof ApiError) {
            res.set(err.headers)
            res.status(err.status).json({ error: { code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) } })
            return
        }
        const status = typeof err?.status === 'number' ? err.status : typeof err?.statusCode === 'number' ? err.statusCode : 500
        if (status >= 400 && status < 500 && err?.expose !== false) {
            const code = PARSER_CODES[err?.type] ?? 'invalid_request'
            const message = code === 'invalid_json' ? 'request body is not valid JSON' : String(err.message || 'bad request')
            res.status(status).json({ error: { code, message } })
            return
        }
        log.error({ err, method: req.method, path: req.originalUrl.split('?')[0] }, 'explorer request failed')
        res.status(500).json({ error: { code: 'internal', message: 'internal error' } })
    }
}
