import { z } from 'zod'
import { Answer, ApiDoc } from '../../common/service/api-doc'
import { platformErrorSchema } from './http'
import { PLATFORM_EXAMPLES } from './request-examples'

/**
 * The platform's OpenAPI document: its password schemes, the answers its routes share and the
 * shapes its answers are built from (docs/openapi.md, docs/platform-api.md).
 */

/** Security schemes of the password auth.ts reads; an operation accepts any one of them. */
export const PASSWORD = ['passwordHeader', 'passwordQuery']

export function createPlatformDoc(): ApiDoc {
    const doc = new ApiDoc({
        title: 'Wallet platform API',
        version: '1.0.0',
        description: 'Managed wallets whose keys the server holds and signs with (docs/platform-api.md).',
        errorSchema: platformErrorSchema,
        examples: PLATFORM_EXAMPLES,
        // The JSON parser runs before every route, so any request may carry a body it refuses.
        everyRoute: {
            400: 'Malformed JSON body',
            413: 'Request body too large (over 100 kB)',
            415: 'Unsupported charset or content encoding of the JSON body',
        },
    })
    doc.securityScheme('passwordHeader', {
        type: 'apiKey',
        in: 'header',
        name: 'x-user-pwd',
        description: "The password of the request's user_id (wallet-level routes: of the wallet's owner). A user_pwd field of the JSON body is accepted too.",
    })
    doc.securityScheme('passwordQuery', {
        type: 'apiKey',
        in: 'query',
        name: 'user_pwd',
        description: 'Accepted, and logged as a warning (without its value) since URLs get logged: send x-user-pwd instead.',
    })
    return doc
}

// Shapes of answers.
export const checksummedAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
export const txHash = z.string().regex(/^0x[0-9a-f]{64}$/)
/** `token` fields of answers: a token address, or NATIVE for the coin. */
export const tokenInAnswer = z.union([checksummedAddress, z.literal('NATIVE')])
/** Whole tokens as a decimal string without trailing zeros ("1.5"). */
export const wholeTokens = z.string().regex(/^\d+(\.\d+)?$/)
/** An integer amount in the token's base units, as a string. */
export const baseUnits = z.string().regex(/^\d+$/)

/** The schema twin of amounts.ts amountFields: `name` in whole tokens and `name_raw` in base units. */
export function amountSchema<N extends string>(name: N): Record<N | `${N}_raw`, z.ZodString> {
    return { [name]: wholeTokens, [`${name}_raw`]: baseUnits } as Record<N | `${N}_raw`, z.ZodString>
}

/** `{ success: true, data }`, the envelope of most answers (http.ts sendData). */
export function inData(data: z.ZodType): z.ZodType {
    return z.looseObject({ success: z.literal(true), data })
}

const seconds = z.string().regex(/^\d+$/)
const error = (description: string, headers?: z.ZodObject): Answer => ({ description, schema: platformErrorSchema, headers })

/** The budget headers of a rate limit (common/service/rate-limit.ts); -Policy on the register routes' limit. */
export const rateLimitHeaders = z.object({
    'RateLimit-Limit': seconds,
    'RateLimit-Remaining': seconds,
    'RateLimit-Reset': seconds,
    'RateLimit-Policy': z.string().optional(),
})

/** What every route checking a password may answer (auth.ts, and its bounded argon2id pool). */
export const PASSWORD_ANSWERS = {
    401: 'Authentication failed: no password, a wrong one, or an unknown user or wallet (always the same text)',
    429: error('Too many failed passwords from this client, for this account or in all (docs/platform-api.md, Limits)', rateLimitHeaders.extend({ 'Retry-After': seconds })),
    503: error('Too many passwords are being hashed; retry after Retry-After', z.object({ 'Retry-After': seconds })),
} satisfies Record<number, Answer | string>

/** What a route reading the chain may answer besides (chain.ts). */
export const CHAIN_ANSWERS = {
    502: 'The chain node refused the request',
    503: error(
        'No chain contracts are configured, the chain node is unavailable or serves another chain id, or too many passwords are being hashed (then with Retry-After)',
        z.object({ 'Retry-After': seconds.optional() })
    ),
} satisfies Record<number, Answer | string>

/** A route reading a token's metadata: one whose decimals() is out of range is refused. */
export const TOKEN_ANSWERS = { 422: 'A token reports more decimals than supported (at most 255)' }

/** What a route sending transactions may answer besides (sender.ts, http.ts pendingTransactionAnswer). */
export const SEND_ANSWERS = {
    ...CHAIN_ANSWERS,
    202: {
        description: 'Sent, and not mined within PLATFORM_TX_TIMEOUT_SECONDS: follow it by its hash',
        schema: z.looseObject({ success: z.literal(true), pending: z.literal(true), hash: txHash, message: z.string() }).meta({ id: 'PendingTransaction' }),
    },
    409: 'The transaction reverted or ran out of gas after its simulation passed (the state changed); quote again and retry',
} satisfies Record<number, Answer | string>
