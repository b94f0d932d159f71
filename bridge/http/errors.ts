import { z } from 'zod'
import { codedErrorBody, ErrorSurface } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'

/**
 * The bridge's error body, the explorer API's shape so that one client parses both:
 * {"error": {"code": "...", "message": "...", "field": "..."}}, `field` on 400s about one field.
 */
export const bridgeErrors: ErrorSurface = {
    name: 'bridge',
    body: codedErrorBody,
    parserFault: ({ status, type, message }) => {
        if (type === 'entity.parse.failed') return new HttpError(400, 'the body is not valid JSON', { code: 'invalid_json', details: { field: 'body' } })
        if (type === 'entity.too.large') return new HttpError(413, 'the body is larger than 16 kB', { code: 'payload_too_large' })
        return new HttpError(status, String(message ?? 'bad request'), { code: 'invalid_request' })
    },
    internalMessage: 'internal error',
}

/** bridgeErrors' body as its OpenAPI document states it. */
export const bridgeErrorSchema = z.object({
    error: z.strictObject({ code: z.string(), message: z.string(), field: z.string().optional() }),
}).meta({ id: 'BridgeError' })

/** A 400 naming the first field a request's body or query got wrong. */
export function invalidInput(error: z.ZodError): HttpError {
    const issue = error.issues[0]
    if (issue.code === 'unrecognized_keys') {
        const message = `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`
        return new HttpError(400, message, { code: 'invalid_request', details: { field: issue.keys[0] } })
    }
    const field = issue.path.length ? String(issue.path[0]) : 'body'
    const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message
    return new HttpError(400, `${field}: ${message}`, { code: 'invalid_request', details: { field } })
}
