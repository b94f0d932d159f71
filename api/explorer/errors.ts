import { RequestHandler } from 'express'
import { z } from 'zod'
import { codedErrorBody, ErrorSurface, MALFORMED_PATH } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'

/**
 * The one error body of the explorer services API (docs/explorer-api.md):
 * `{ "error": { "code": "invalid_request", "message": "email: is required", "field": "email" } }`.
 */
export const explorerErrors: ErrorSurface = {
    name: 'explorer',
    body: codedErrorBody,
    // Our own words for each parser fault: a library's text is not part of the API.
    parserFault: ({ status, type }) => {
        const [code, message] = PARSER_FAULTS[type ?? ''] ?? ['invalid_request', 'the request body could not be read']
        return new HttpError(status, message, { code })
    },
    internalMessage: 'internal error',
}

/** The error body as the OpenAPI document states it: exactly the members codedErrorBody writes for the explorer's errors. */
export const explorerErrorSchema = z.strictObject({
    error: z.strictObject({
        code: z.string().meta({ description: 'What failed, e.g. invalid_request, unauthorized, rate_limited (docs/explorer-api.md lists them)' }),
        message: z.string().meta({ description: 'Our own words; on a 400 about one field it starts with that field' }),
        field: z.string().optional().meta({ description: 'The field a 400 is about (`email`, `token`, `body` for a missing body)' }),
    }),
}).meta({ id: 'ExplorerError' })

/** body-parser's error types, as our codes and messages. */
const PARSER_FAULTS: Record<string, [code: string, message: string]> = {
    'entity.parse.failed': ['invalid_json', 'request body is not valid JSON'],
    'entity.too.large': ['payload_too_large', 'request body is too large'],
    'encoding.unsupported': ['unsupported_encoding', 'the Content-Encoding of the body is not supported'],
    'charset.unsupported': ['unsupported_charset', 'the charset of the body is not supported; send UTF-8'],
    'request.aborted': ['request_aborted', 'the request was aborted'],
    'request.size.invalid': ['invalid_request', 'the request body is not as long as its Content-Length'],
    [MALFORMED_PATH]: ['invalid_request', 'a path parameter is not valid percent-encoding'],
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
