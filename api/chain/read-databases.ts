import { AsyncLocalStorage } from 'async_hooks'
import { Request, RequestHandler } from 'express'
import { Pool } from 'pg'
import { Logger } from '../../common/logger'
import { boundedPool, Db } from './db'

/**
 * The response header naming the replica a request read: its position in
 * CHAIN_API_READ_DATABASE_URL, from 1, as /ready numbers them (never its address).
 */
export const READ_REPLICA_HEADER = 'X-Read-Replica'

/**
 * Where the chain API's reads go: the servers of CHAIN_API_READ_DATABASE_URL (streaming replicas
 * of the primary), or DATABASE_URL alone when it is unset. A request reads one of them, the next
 * in turn, for all of its statements and for the head it answers at: each replica replays the
 * primary's WAL at its own pace, so a page whose head came from one server and whose rows came
 * from another could name a block the other does not hold yet
 * (docs/production.md#read-replicas-for-the-chain-data-api).
 */
export class ReadDatabases {
    /** The URLs reads go to, in the order given. */
    readonly urls: readonly string[]
    /** Reads go to replicas (CHAIN_API_READ_DATABASE_URL is set), not to the primary. */
    readonly replicated: boolean
    private readonly pinned = new AsyncLocalStorage<number>()
    /**
     * The database chosen for each request, so that a handler behind a body parser reads the same
     * one: a parser calls on from its stream's events, outside the async context the pin set.
     */
    private readonly chosen = new WeakMap<Request, number>()
    private turn = 0

    constructor(env: { DATABASE_URL?: string; CHAIN_API_READ_DATABASE_URL?: string[] }) {
        if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required by the chain data API')
        const replicas = env.CHAIN_API_READ_DATABASE_URL ?? []
        this.replicated = replicas.length > 0
        this.urls = this.replicated ? replicas : [env.DATABASE_URL]
    }

    /** A bounded pool (db.ts) on each database, in their order; the first named `name`, the others numbered for their metrics. */
    pools(options: { max: number; statementTimeoutMs: number; name: string; log: Logger }): Pool[] {
        return this.urls.map((databaseUrl, i) => boundedPool({ ...options, databaseUrl, name: i === 0 ? options.name : `${options.name} ${i + 1}` }))
    }

    /**
     * Middleware: the rest of the request reads one database (again after a body parser: the same
     * one). With replicas, the answer names it in READ_REPLICA_HEADER: which replica gave an
     * answer is what a report of an old or missing block needs.
     */
    readonly pin: RequestHandler = (req, res, next) => {
        let index = this.chosen.get(req)
        if (index === undefined) this.chosen.set(req, (index = this.next()))
        if (this.replicated) res.set(READ_REPLICA_HEADER, String(index + 1))
        this.pinned.run(index, next)
    }

    /** fn, with all its statements on one database, the next in turn. */
    run<T>(fn: () => T): T {
        return this.pinned.run(this.next(), fn)
    }

    /** Which database (index into `urls`) the running request reads; outside one, the next in turn, for a statement on its own. */
    current(): number {
        return this.pinned.getStore() ?? this.next()
    }

    /** Of `each` (one per URL, in their order), the one of the database the running request reads. */
    select<T>(each: readonly T[]): T {
        return each[this.current()]
    }

    /** Statements on whichever of `dbs` (one per URL) the running request reads. */
    route(dbs: readonly Db[]): Db {
        if (dbs.length === 1) return dbs[0]
        return { query: (text, values) => this.select(dbs).query(text, values) }
    }

    private next(): number {
        const index = this.turn
        this.turn = (this.turn + 1) % this.urls.length
        return index
    }
}
