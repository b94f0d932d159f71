import { createHash } from 'crypto'
import { Pool, QueryResult, QueryResultRow } from 'pg'
import { HttpError } from '../../common/service/http-error'
import { observePool } from '../../common/service/metrics'
import { Logger } from '../../common/logger'

/** The chain API's view of Postgres: plain parameterised queries. */
export interface Db {
    query<R extends QueryResultRow = any>(text: string, values?: unknown[]): Promise<QueryResult<R>>
}

/** Postgres's query_canceled: the session's statement_timeout ran out (or an operator cancelled it). */
const QUERY_CANCELED = '57014'

/**
 * A statement of a public read API that Postgres cancelled at its statement timeout: 503, a load
 * or breadth problem to retry or narrow, never a 500. Each surface words it in its own body.
 */
export class StatementTimeout extends HttpError {
    constructor(readonly timeoutMs: number) {
        super(503, `The query took longer than ${timeoutMs} ms and was cancelled; try again later or narrow the request`, {
            code: 'query_timeout',
        })
    }
}

/**
 * A statement a hot standby cancelled to apply the primary's WAL (a recovery conflict: the rows or
 * the lock it needed were changed by replay): 503, to be tried again, like a statement timeout.
 * Only a read replica (CHAIN_API_READ_DATABASE_URL) answers Postgres's serialization_failure to the
 * chain API's plain reads.
 */
export class ReplicaConflict extends HttpError {
    constructor() {
        super(503, 'The read replica cancelled the query while applying the primary\'s changes; try again', { code: 'replica_conflict' })
    }
}

/** Postgres's serialization_failure, which a standby answers for a recovery conflict. */
const SERIALIZATION_FAILURE = '40001'

/**
 * A pool of its own for a public read API, whose sessions carry a statement timeout: a heavy
 * request is cancelled by Postgres instead of holding a connection others need. The pool stays
 * usable after a cancel (the statement ends, the session does not).
 */
export function boundedPool(options: { databaseUrl: string; max: number; statementTimeoutMs: number; name: string; log: Logger }): Pool {
    const pool = new Pool({ connectionString: options.databaseUrl, max: options.max, statement_timeout: options.statementTimeoutMs })
    observePool(options.name, pool)
    pool.on('error', (err) => options.log.error({ err }, `idle database connection of the ${options.name} failed`))
    return pool
}

/**
 * Every statement as a named prepared statement: Postgres parses and plans each query text once
 * per connection instead of on every request. The API's statements are a fixed, small set of texts
 * (values always travel as parameters), so the name is a hash of the text. A statement cancelled
 * at `statementTimeoutMs` (the pool's setting) becomes a StatementTimeout, one a replica cancelled
 * a ReplicaConflict.
 */
export function preparedDb(pool: Pool, statementTimeoutMs?: number): Db {
    const names = new Map<string, string>()
    const nameOf = (text: string) => {
        let name = names.get(text)
        if (!name) {
            name = `chain_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`
            names.set(text, name)
        }
        return name
    }
    return {
        query: <R extends QueryResultRow>(text: string, values?: unknown[]) =>
            pool.query<R>({ name: nameOf(text), text, values }).catch((err) => {
                throw readFailure(err, statementTimeoutMs)
            }),
    }
}

/**
 * Statements on a shared pool whose sessions carry no timeout: each runs in a read-only
 * transaction of its own with `SET LOCAL statement_timeout`, so the limit ends with it. Three
 * round trips more than a plain query: for reads whose answers are cached, not for hot paths.
 */
export function timeLimitedDb(pool: Pool, statementTimeoutMs: number): Db {
    return {
        query: async <R extends QueryResultRow>(text: string, values?: unknown[]) => {
            const client = await pool.connect()
            try {
                await client.query('BEGIN READ ONLY')
                await client.query(`SET LOCAL statement_timeout = ${Math.trunc(statementTimeoutMs)}`)
                const result = await client.query<R>(text, values)
                await client.query('COMMIT')
                return result
            } catch (err) {
                await client.query('ROLLBACK').catch(() => undefined)
                throw readFailure(err, statementTimeoutMs)
            } finally {
                client.release()
            }
        },
    }
}

function readFailure(err: unknown, statementTimeoutMs: number | undefined): unknown {
    const code = (err as { code?: string })?.code
    if (code === SERIALIZATION_FAILURE) return new ReplicaConflict()
    return statementTimeoutMs !== undefined && code === QUERY_CANCELED ? new StatementTimeout(statementTimeoutMs) : err
}
