import { z } from 'zod'
import { Answer } from '../../common/service/api-doc'
import { explorerErrorSchema } from './errors'

/** Answers that several explorer routes give, as their OpenAPI operations state them (docs/openapi.md, docs/explorer-api.md). */

/** The security scheme of the bearer session (Sessions.required()), as the document names it. */
export const SESSION = 'ExplorerSession'

/** Largest JSON body accepted: the biggest legitimate one (a support message of 5,000 characters) fits several times. */
export const BODY_LIMIT = '64kb'

/** An instant as every answer writes it (Date.toISOString()). */
export const timestamp = z.iso.datetime()

const header = (description: string) => z.string().meta({ description })

/** The budget a rate-limited route reports on its answers (docs/explorer-api.md, Rate limits). */
export const rateLimitHeaders = z.object({
    'RateLimit-Limit': header('Requests allowed in the window'),
    'RateLimit-Remaining': header('Requests left in the window'),
    'RateLimit-Reset': header('Seconds until the window ends'),
    'RateLimit-Policy': header('The budget and its window in seconds, e.g. `10;w=900`'),
})

export function tooManyRequests(budget: string): Answer {
    return {
        description: `Too many requests (rate_limited): ${budget}`,
        schema: explorerErrorSchema,
        headers: rateLimitHeaders.partial().extend({ 'Retry-After': header('Seconds until a new attempt can succeed') }),
    }
}

/** A 503; Retry-After comes with `busy` (the password hashing pool is full) only. */
export function unavailable(description: string): Answer {
    return {
        description,
        schema: explorerErrorSchema,
        headers: z.object({ 'Retry-After': header('Seconds to wait (with `busy`: 1)').optional() }),
    }
}

/** The 503 of a route that hashes a password, when the hashing pool is full (Passwords, WorkPool). */
export const hashPoolFull = unavailable('The password hashing pool is full (busy, with Retry-After: 1); nothing was changed')

/** The 401 of a route that needs a session. */
export const noSession: Answer = {
    description: 'No live session: the bearer token is missing, malformed, forged or expired, or its session has ended (unauthorized)',
    schema: explorerErrorSchema,
    headers: z.object({ 'WWW-Authenticate': z.literal('Bearer') }),
}

/** The body parser's refusals besides its 400 (invalid_json), on the routes that take a body. */
export const BODY_FAULTS = {
    413: `The body is larger than ${BODY_LIMIT.replace('kb', ' kB')} (payload_too_large)`,
    415: 'The Content-Encoding or the charset of the body is not supported (unsupported_encoding, unsupported_charset)',
} as const

/** `{message}`: the answers that only confirm what happened. */
export const messageSchema = z.looseObject({ message: z.string() }).meta({ id: 'ExplorerMessage' })
