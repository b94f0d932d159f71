import { createLogger } from '@subsquid/logger'
import type { OpenreaderContext } from '@subsquid/openreader/lib/context'
import { PoolOpenreaderContext } from '@subsquid/openreader/lib/db'
import { getSchemaBuilder } from '@subsquid/openreader/lib/dialect'
import type { Query } from '@subsquid/openreader/lib/sql/query'
import { addServerCleanup, Dispose, runApollo } from '@subsquid/openreader/lib/server'
import { loadModel, resolveGraphqlSchema } from '@subsquid/openreader/lib/tools'
import { ResponseSizeLimit } from '@subsquid/openreader/lib/util/limit'
import { extendSchema, GraphQLSchema, parse } from 'graphql'
import type { IncomingMessage, ServerResponse } from 'http'
import * as path from 'path'
import { Pool } from 'pg'
import { GraphqlLimits, GraphqlPlugin, politeErrors } from './graphql-errors'
import { TableRowBounds } from './graphql-table-rows'

export interface GraphqlServerOptions extends GraphqlLimits {
    databaseUrl: string
    port: number
    /** where schema.graphql is */
    projectDir: string
    maxRootFields: number
    maxRequestKb: number
    poolSize: number
}

export interface GraphqlServer {
    port: number
    close(): Promise<void>
}

/**
 * Subsquid's GraphQL server, assembled from its parts (@subsquid/openreader) as its own command
 * line does (@subsquid/graphql-server's Server), with two plugins the command line has no place
 * for: row counts for the size estimate (graphql-table-rows.ts) and answers without internals
 * (graphql-errors.ts). Its logger is Subsquid's (`sqd:graphql-server`), which logs every query
 * that ended in errors, with the SQL. No subscriptions and no response cache: neither is used.
 */
export async function startGraphqlServer(options: GraphqlServerOptions): Promise<GraphqlServer> {
    jsonErrorPages()
    const log = createLogger('sqd:graphql-server')
    const model = loadModel(resolveGraphqlSchema(options.projectDir))
    const pool = new Pool({ connectionString: options.databaseUrl, statement_timeout: options.statementTimeoutMs, max: options.poolSize })
    pool.on('error', (err) => log.warn({ err }, 'database connection lost'))
    const disposals: Dispose[] = [() => pool.end()]
    const schema = withSquidStatus((await getSchemaBuilder({ model })).build())
    const rows = new TableRowBounds(model, pool, options.maxResponseNodes)
    const countRows: GraphqlPlugin = {
        async requestDidStart() {
            return {
                async didResolveOperation() {
                    // A failed count keeps the last counts; before the first, a list without limit is refused (the safe side).
                    await rows.refresh().catch((err) => log.warn({ err }, 'could not count table rows for the response size estimate'))
                },
            }
        },
    }
    return addServerCleanup(disposals, runApollo({
        port: options.port,
        disposals,
        schema,
        context: () => {
            // A limit per request: it counts down as each root field is estimated.
            const openreader: OpenreaderContext = new PoolOpenreaderContext('postgres', pool, pool, undefined, log)
            openreader.responseSizeLimit = new ResponseSizeLimit(options.maxResponseNodes)
            return { openreader }
        },
        plugins: [countRows, politeErrors(options)],
        log,
        graphiqlConsole: true,
        // Apollo's documented bound for its persisted-query cache, unbounded (a memory exhaustion) by default.
        cache: 'bounded' as any,
        maxRequestSizeBytes: options.maxRequestKb * 1024,
        maxRootFields: options.maxRootFields,
    }), log)
}

/**
 * Express (the copy openreader builds its app with) answers what it refuses before Apollo sees it
 * (a body over the size limit, invalid JSON, an unknown path) with an HTML page, and with the
 * error's stack, server paths included, unless its env is production. Its env comes from NODE_ENV,
 * which would also turn off Apollo's introspection; so the top-level app's last handler is replaced
 * instead: it answers those as GraphQL errors in JSON, like every other refusal, with no stack.
 */
function jsonErrorPages(): void {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- openreader's own Express, not ours (another major version)
    const { application } = require(require.resolve('express', { paths: [path.dirname(require.resolve('@subsquid/openreader/lib/server'))] }))
    if (application.jsonErrorPages) return
    const handle = application.handle
    application.handle = function (this: unknown, req: IncomingMessage, res: ServerResponse, callback?: (err?: unknown) => void) {
        // A mounted app passes its parent's next; only the top-level app ends with Express's own page.
        return handle.call(this, req, res, callback ?? ((err?: unknown) => refusal(res, err)))
    }
    application.jsonErrorPages = true
}

/** The answer to what Express refused, in GraphQL's error shape. */
function refusal(res: ServerResponse, err: unknown): void {
    const e = err as { status?: number; statusCode?: number; type?: string; expose?: boolean; message?: string; limit?: number } | undefined
    const status = e ? e.status ?? e.statusCode ?? 500 : 404
    const [code, message] =
        !e ? ['NOT_FOUND', 'not found: GraphQL answers at /graphql'] :
            e.type === 'entity.too.large' ? ['REQUEST_TOO_LARGE', `the request body is over the limit of ${Math.round((e.limit ?? 0) / 1024)} KB: split the query`] :
                e.type === 'entity.parse.failed' ? ['BAD_REQUEST', 'the request body is not valid JSON'] :
                    status < 500 && e.expose ? ['BAD_REQUEST', e.message ?? 'bad request'] :
                        ['INTERNAL_SERVER_ERROR', 'internal error (logged by the server)']
    if (code === 'INTERNAL_SERVER_ERROR') createLogger('sqd:graphql-server').error({ err }, 'request refused before GraphQL read it')
    if (res.headersSent) return void res.end()
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
    res.end(JSON.stringify({ errors: [{ message, extensions: { code } }] }))
}

/** The indexed head and the last final block, as Subsquid's `squidStatus` query answers them (its Server's own SQL). */
const SQUID_STATUS: Query<Record<string, number | string>> = {
    sql: `SELECT f.height, f.hash, COALESCE(h.height, f.height), COALESCE(h.hash, f.hash)
          FROM squid_processor.status AS f
          FULL JOIN (SELECT hash, height FROM squid_processor.hot_block ORDER BY height DESC LIMIT 1) AS h ON TRUE
          WHERE f.id = 0`,
    params: [],
    map: ([[finalizedHeight, finalizedHash, height, hash]]) => ({
        finalizedHeight: Number(finalizedHeight), finalizedHash, height: Number(height), hash,
    }),
}

function withSquidStatus(schema: GraphQLSchema): GraphQLSchema {
    const extended = extendSchema(schema, parse(`
        type SquidStatus {
            "The height of the last processed block"
            height: Int
            "The hash of the last processed block"
            hash: String
            "The height of the last processed finalized block"
            finalizedHeight: Int
            "The hash of the last processed finalized block"
            finalizedHash: String
        }
        extend type Query { squidStatus: SquidStatus }
    `))
    extended.getQueryType()!.getFields().squidStatus.resolve = (_source, _args, context) => context.openreader.executeQuery(SQUID_STATUS)
    return extended
}
