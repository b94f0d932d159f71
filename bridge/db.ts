import { Client } from 'pg'
import { Logger } from '../common/logger'

/** One database transaction (shared with the other services). */
export { inTransaction } from '../db/transaction'

/** Advisory-lock namespaces (first key of pg_advisory_lock(int, int)). */
export const LOCK_SWAP = 0x62726901
export const LOCK_SENDER = 0x62726902
export const LOCK_VAULT = 0x62726903
/** Swap creation per client IP (the pending-swap limit). */
export const LOCK_PENDING_IP = 0x62726904

export type Release = () => Promise<void>

/**
 * Mutual exclusion across bridge replicas with Postgres session advisory locks, all held on one
 * dedicated connection. When a process dies its connection closes and Postgres releases every
 * lock it held at once, so a crashed replica never blocks the others (no lease to time out).
 * Session locks are re-entrant within one session, so this process also keeps its own set of held
 * keys to exclude its own concurrent tasks.
 */
export class LockManager {
    private client?: Client
    private connecting?: Promise<Client>
    private readonly held = new Set<string>()
    private closed = false

    constructor(private readonly databaseUrl: string, private readonly log: Logger) {}

    /** The lock when it is free right now, else undefined. */
    async tryLock(namespace: number, key: string): Promise<Release | undefined> {
        const id = `${namespace}:${key}`
        if (this.held.has(id)) return undefined
        this.held.add(id)
        try {
            const client = await this.connection()
            const { rows } = await client.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [namespace, key])
            if (!rows[0].ok) {
                this.held.delete(id)
                return undefined
            }
        } catch (err) {
            this.held.delete(id)
            throw err
        }
        let released = false
        return async () => {
            if (released) return
            released = true
            this.held.delete(id)
            await this.client?.query('SELECT pg_advisory_unlock($1, hashtext($2))', [namespace, key]).catch(() => undefined)
        }
    }

    /** Waits for the lock (polling: a blocking pg_advisory_lock would stall the shared connection). */
    async lock(namespace: number, key: string, timeoutMs = 60_000): Promise<Release> {
        const deadline = Date.now() + timeoutMs
        for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
            const release = await this.tryLock(namespace, key)
            if (release) return release
            if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${namespace}:${key}`)
            await new Promise((r) => setTimeout(r, delay))
        }
    }

    async close(): Promise<void> {
        this.closed = true
        await this.client?.end().catch(() => undefined)
    }

    private async connection(): Promise<Client> {
        if (this.client) return this.client
        this.connecting ??= (async () => {
            const client = new Client({ connectionString: this.databaseUrl })
            client.on('error', (err) => {
                // Every lock of the old session is gone; tasks holding one finish under the
                // conditional updates that guard each transition.
                if (!this.closed) this.log.error({ err }, 'lock connection lost; reconnecting on next use')
                if (this.client === client) this.client = undefined
                this.held.clear()
            })
            await client.connect()
            this.client = client
            return client
        })().finally(() => {
            this.connecting = undefined
        })
        return this.connecting
    }
}
