import { Client } from 'pg'
import { Logger } from '../common/logger'

export type Release = () => Promise<void>

/**
 * Mutual exclusion across processes with Postgres session advisory locks (pg_advisory_lock(int,
 * int): a namespace and hashtext(key)), all held on one dedicated connection. When a process dies
 * its connection closes and Postgres releases every lock it held at once, so a crashed process
 * never blocks the others (no lease to time out). Session locks are re-entrant within one
 * session, so this process also keeps its own set of held keys to exclude its own concurrent
 * tasks; those of its tasks that wait for a key it holds queue up and are handed the lock in
 * turn, without a round trip to Postgres (a burst of sends from one address costs one lock).
 */
export class LockManager {
    private client?: Client
    private connecting?: Promise<Client>
    private readonly held = new Set<string>()
    private readonly waiters = new Map<string, ((release: Release) => void)[]>()
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
        return this.releaser(namespace, key, id)
    }

    /**
     * Waits for the lock: behind this process's own holder in its queue, or polling while another
     * process holds it (a blocking pg_advisory_lock would stall the shared connection).
     */
    async lock(namespace: number, key: string, timeoutMs = 60_000): Promise<Release> {
        const id = `${namespace}:${key}`
        const deadline = Date.now() + timeoutMs
        for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
            if (this.held.has(id)) return this.queue(id, namespace, key, deadline)
            const release = await this.tryLock(namespace, key)
            if (release) return release
            if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${id}`)
            await new Promise((r) => setTimeout(r, delay))
        }
    }

    async close(): Promise<void> {
        this.closed = true
        await this.client?.end().catch(() => undefined)
    }

    private queue(id: string, namespace: number, key: string, deadline: number): Promise<Release> {
        return new Promise<Release>((resolve, reject) => {
            const list = this.waiters.get(id) ?? []
            const waiter = (release: Release) => {
                clearTimeout(timer)
                resolve(release)
            }
            const timer = setTimeout(() => {
                const left = (this.waiters.get(id) ?? []).filter((w) => w !== waiter)
                if (left.length) this.waiters.set(id, left)
                else this.waiters.delete(id)
                reject(new Error(`timed out waiting for lock ${namespace}:${key}`))
            }, Math.max(0, deadline - Date.now()))
            list.push(waiter)
            this.waiters.set(id, list)
        })
    }

    /** Hands the lock to this process's next waiter, or gives it back to Postgres when none waits. */
    private releaser(namespace: number, key: string, id: string): Release {
        let released = false
        return async () => {
            if (released) return
            released = true
            const list = this.waiters.get(id)
            const next = list?.shift()
            if (list && list.length === 0) this.waiters.delete(id)
            if (next) {
                this.held.add(id)
                next(this.releaser(namespace, key, id))
                return
            }
            this.held.delete(id)
            await this.client?.query('SELECT pg_advisory_unlock($1, hashtext($2))', [namespace, key]).catch(() => undefined)
        }
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
