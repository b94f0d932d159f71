import type { ApolloOptions } from '@subsquid/openreader/lib/server'

/** An Apollo plugin, as Subsquid's server takes them. */
export type GraphqlPlugin = NonNullable<ApolloOptions['plugins']>[number]

/** What the messages name; the same figures the server enforces. */
export interface GraphqlLimits {
    maxResponseNodes: number
    statementTimeoutMs: number
}

/** The error codes of our own messages (indexer.md#graphql-limits); every other error keeps Apollo's code. */
export const LIMIT_CODES = {
    responseSize: 'RESPONSE_SIZE_LIMIT',
    rootFields: 'ROOT_FIELDS_LIMIT',
    statementTimeout: 'STATEMENT_TIMEOUT',
} as const

/** openreader's own messages, which it throws for its limits (@subsquid/openreader 5.3.0, util/limit.js and util/execute.js). */
const SIZE_LIMIT_MESSAGE = 'response might exceed the size limit'
const ROOT_FIELDS_MESSAGE = /^only \d+ root fields allowed, but got \d+$/

/** Postgres's SQLSTATE for a statement cancelled, here by statement_timeout. */
const QUERY_CANCELED = '57014'

interface FormattedError {
    message: string
    locations?: unknown
    path?: unknown
    extensions?: Record<string, any>
}

/**
 * Answers every error with its message, position and code, and nothing else. Apollo adds the
 * original error's enumerable fields to `extensions.exception` even when it leaves stack traces
 * out: openreader attaches the SQL and its parameters to a database error, and pg the Postgres
 * source file and routine. Internal errors are answered without their message, which may name
 * tables; openreader has already logged each error of a query with its SQL, so the log keeps
 * what the answer leaves out. The limits' messages say the limit and how to stay under it.
 */
export function politeErrors(limits: GraphqlLimits): GraphqlPlugin {
    return {
        async requestDidStart() {
            return {
                async willSendResponse(context) {
                    const raw: readonly any[] = context.errors ?? []
                    // Apollo formats `context.errors` one to one and in order into the response's errors.
                    context.response.errors = context.response.errors?.map((error, i) => politeError(error as FormattedError, raw[i], limits)) as any
                },
            }
        },
    }
}

function politeError(error: FormattedError, raw: any, limits: GraphqlLimits): FormattedError {
    const [message, code] = politeMessage(error, raw, limits)
    return { message, locations: error.locations, path: error.path, extensions: { code } }
}

function politeMessage(error: FormattedError, raw: any, limits: GraphqlLimits): [string, string] {
    const code: string = error.extensions?.code ?? 'INTERNAL_SERVER_ERROR'
    if (error.message === SIZE_LIMIT_MESSAGE) {
        return [`response might exceed the size limit of ${limits.maxResponseNodes} nodes (fields × rows): give lists a limit (connections a first), page with offset or a where on the orderBy field, or ask for fewer fields`, LIMIT_CODES.responseSize]
    }
    if (ROOT_FIELDS_MESSAGE.test(error.message)) return [`${error.message}: split the query`, LIMIT_CODES.rootFields]
    if (raw?.originalError?.code === QUERY_CANCELED) {
        return [`the query ran longer than the statement timeout of ${limits.statementTimeoutMs} ms and was cancelled: narrow it with where or limit`, LIMIT_CODES.statementTimeout]
    }
    if (code === 'INTERNAL_SERVER_ERROR') return ['internal error (logged by the server)', code]
    return [error.message, code]
}
