import { Pool, PoolClient } from 'pg'
import { Address, keccak256, PublicClient } from 'viem'
import { Logger } from '../../common/logger'
import { HttpError } from './http'

interface Job<T> {
    send(nonce: number): Promise<T>
    resolve(value: T): void
    reject(err: unknown): void
    retried: boolean
}

/** classid of the platform's advisory locks ("PLAT"), so they cannot collide with other users of pg_advisory_lock. */
const LOCK_CLASS = 0x504c4154

/**
 * Hands out nonces per sending address so that concurrent sends from one wallet get consecutive
 * nonces and none is skipped.
 *
 * Sends of one address queue up in this process and are sent one at a time under a Postgres
 * advisory lock on the address, so several api replicas cannot pick the same nonce either. The
 * first send under the lock starts from the node's pending transaction count; later ones count
 * on locally while the queue lasts, sparing a round trip each. Any failure drops the local count,
 * and the next send resynchronises from the node: a transaction the node refused leaves no gap,
 * one it accepted before the error is counted.
 */
export class NonceManager {
    private readonly queues = new Map<string, Job<any>[]>()

    constructor(
        private readonly client: PublicClient,
        private readonly lockPool: Pool,
        private readonly log: Logger
    ) {}

    /** Runs send(nonce) with the address's next nonce; resolves with what send returned. */
    send<T>(address: Address, send: (nonce: number) => Promise<T>): Promise<T> {
        const key = address.toLowerCase()
        return new Promise<T>((resolve, reject) => {
            const queue = this.queues.get(key)
            const job: Job<T> = { send, resolve, reject, retried: false }
            if (queue) {
                queue.push(job)
            } else {
                this.queues.set(key, [job])
                void this.drain(key, address)
            }
        })
    }

    private async drain(key: string, address: Address): Promise<void> {
        const queue = this.queues.get(key)!
        let lock: PoolClient | undefined
        try {
            lock = await this.lock(key)
        } catch (err) {
            this.log.error({ err, address }, 'could not take the nonce lock')
            this.queues.delete(key)
            for (const job of queue) job.reject(new HttpError(503, 'the database is unavailable; retry later'))
            return
        }
        let next: number | undefined
        try {
            while (queue.length > 0) {
                const job = queue.shift()!
                try {
                    next ??= await this.client.getTransactionCount({ address, blockTag: 'pending' })
                    const result = await job.send(next)
                    next++
                    job.resolve(result)
                } catch (err) {
                    next = undefined
                    if (!job.retried && isNonceConflict(err)) {
                        // Someone else (another tool holding the same key) used the nonce: resync and retry once.
                        job.retried = true
                        queue.unshift(job)
                    } else {
                        job.reject(err)
                    }
                }
            }
        } finally {
            // Delete before unlocking: a send arriving now starts a fresh drain, which waits for the lock.
            this.queues.delete(key)
            await this.unlock(lock, key)
        }
    }

    private lockKey(key: string): number {
        return Buffer.from(keccak256(key as Address).slice(2, 10), 'hex').readInt32BE(0)
    }

    private async lock(key: string): Promise<PoolClient> {
        const client = await this.lockPool.connect()
        try {
            await client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, this.lockKey(key)])
            return client
        } catch (err) {
            client.release(err as Error)
            throw err
        }
    }

    private async unlock(client: PoolClient, key: string): Promise<void> {
        try {
            await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, this.lockKey(key)])
            client.release()
        } catch (err) {
            // Dropping the connection releases its session locks.
            client.release(err as Error)
        }
    }
}

function isNonceConflict(err: unknown): boolean {
    let text = ''
    let current: any = err
    for (let depth = 0; current && depth < 10; depth++) {
        text += ` ${current.details ?? ''} ${current.message ?? ''}`
        current = current.cause
    }
    return /nonce too low|replacement transaction underpriced|already imported/i.test(text)
}
