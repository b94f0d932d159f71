import { RequestHandler } from 'express'
import { codedErrorBody, ErrorSurface } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'

/**
 * The one error body of the explorer services API (docs/explorer-api.md):
 * `{ "error": { "code": "invalid_request", "message": "email: is required", "field": "email" } }`.
 */
export const explorerErrors: ErrorSurface = {
    name: 'explorer',
    body: codedErrorBody,
    parserFault: ({ status, type, message }) => {
        const code = PARSER_CODES[type ?? ''] ?? 'invalid_request'
        return new HttpError(status, code === 'invalid_json' ? 'request body is not valid JSON' : String(message || 'bad request'), { code })
    },
    internalMessage: 'internal error',
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

export const badRequest = (message: string, field?: string) =>
    new HttpError(400, message, { code: 'invalid_request', details: field ? { field } : undefined })

export const unauthorized = (message = 'a valid bearer token is required') =>
    new HttpError(401, message, { code: 'unauthorized', headers: { 'WWW-Authenticate': 'Bearer' } })

export const notFound = (message = 'not found') => new HttpError(404, message, { code: 'not_found' })

export const notConfigured = (message: string) => new HttpError(503, message, { code: 'not_configured' })

/** Unknown paths under /api. GET /api itself is left to whatever is mounted after this router. */
export const unknownPath: RequestHandler = (req, _res, next) => {
    if (req.method === 'GET' && req.path === '/') return next()
    next(notFound(`no route ${req.method} ${req.baseUrl}${req.path}`))
}
