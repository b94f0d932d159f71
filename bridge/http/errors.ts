import { ErrorRequestHandler, Response } from 'express'
import { z } from 'zod'
import { Logger } from '../../common/logger'
import { RequestError } from '../engine/create'

/**
 * The bridge's error body, the explorer API's shape so that one client parses both:
 * {"error": {"code": "...", "message": "...", "field": "..."}}, `field` on 400s about one field.
 */
export function sendError(res: Response, status: number, code: string, message: string, field?: string, headers?: Record<string, string>): void {
    if (headers) res.set(headers)
    res.status(status).json({ error: { code, message, ...(field ? { field } : {}) } })
}

export class HttpError extends RequestError {
    constructor(status: number, code: string, message: string, field?: string, readonly headers?: Record<string, string>) {
        super(status, code, message, field)
    }
}

/** A 400 naming the first field a request's body or query got wrong. */
export function invalidInput(error: z.ZodError): HttpError {
    const issue = error.issues[0]
    if (issue.code === 'unrecognized_keys') {
        return new HttpError(400, 'invalid_request', `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`, issue.keys[0])
    }
    const field = issue.path.length ? String(issue.path[0]) : 'body'
    const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message
    return new HttpError(400, 'invalid_request', `${field}: ${message}`, field)
}

export function errorHandler(log: Logger): ErrorRequestHandler {
    return (err, _req, res, _next) => {
        if (err instanceof RequestError) {
            return sendError(res, err.status, err.code, err.message, err.field, err instanceof HttpError ? err.headers : undefined)
        }
        // body-parser's own errors carry a status and a type.
        if (err?.type === 'entity.parse.failed') return sendError(res, 400, 'invalid_json', 'the body is not valid JSON', 'body')
        if (err?.type === 'entity.too.large') return sendError(res, 413, 'payload_too_large', 'the body is larger than 16 kB')
        if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500) {
            return sendError(res, err.status, 'invalid_request', String(err.message ?? 'bad request'))
        }
        log.error({ err }, 'request failed')
        sendError(res, 500, 'internal', 'internal error')
    }
}
