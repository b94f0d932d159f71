import { KeyedCounter } from './keyed-counter'
import { HttpError } from './service/http-error'

/**
 * A bound on CPU-heavy work a request can ask for, in one process: password hashing (docs/decisions.md,
 * Bounded hashing), contract-verification admission and its compile processes each go through a pool of their own.
 */

export interface WorkPoolLimits {
    /** Jobs running at once. */
    concurrency: number
    /** Jobs waiting for a slot; one more is refused at once. Infinity for a caller that bounds admission itself. */
    queue: number
    /** Jobs of one key (a client) running and waiting at once, counted for tryRun with a key; absent, no cap per key. */
    perKey?: number
}

/** Which limit refused a job in tryRun: the pool and its queue, or the key's share. */
export type WorkPoolRefusal = 'queue_full' | 'key_full'

/** The answer when the pool and its queue are full: try again shortly, the work was not started. */
export class WorkPoolBusyError extends HttpError {
    constructor() {
        super(503, 'The server is busy checking passwords; retry in a moment', { code: 'busy', headers: { 'Retry-After': '1' } })
        this.name = 'WorkPoolBusyError'
    }
}

/**
 * Runs jobs a request can make expensive (argon2 and bcrypt hashes, compiles) at most `concurrency` at a
 * time with at most `queue` waiting, so a burst of requests costs a bounded amount of CPU and memory
 * and the rest are refused with 503 instead of waiting without end. With `perKey`, one client's jobs
 * are capped too, so nobody's burst takes everyone's share.
 */
export class WorkPool {
    private running = 0
    private readonly waiting: { start: () => void; refuse: (reason: Error) => void }[] = []
    private readonly keys?: KeyedCounter
    private closed?: Error

    constructor(private readonly limits: WorkPoolLimits) {
        if (!(limits.concurrency >= 1) || !(limits.queue >= 0)) throw new Error(`bad work pool limits ${JSON.stringify(limits)}`)
        if (limits.perKey !== undefined) this.keys = new KeyedCounter(limits.perKey)
    }

    /** Runs fn when a slot is free; throws WorkPoolBusyError, without running fn, when the queue is full. */
    async run<T>(fn: () => Promise<T>): Promise<T> {
        if (this.full) throw new WorkPoolBusyError()
        return this.start(fn)
    }

    /**
     * Admission decided at once: runs fn as run() does, or answers which limit refused it (fn not
     * run): `key_full` when key already holds `perKey` jobs, `queue_full` when the pool and its queue
     * are full. The slot or queue place is taken before this returns, so a caller may await other
     * work between admission and fn's start without losing it.
     */
    tryRun<T>(fn: () => Promise<T>, key?: string): Promise<T> | WorkPoolRefusal {
        const keys = this.keys
        if (key === undefined || !keys) return this.full ? 'queue_full' : this.start(fn)
        if (keys.atCap(key)) return 'key_full'
        if (this.full) return 'queue_full'
        keys.take(key)
        return this.start(fn).finally(() => keys.release(key))
    }

    /** Refuses every job waiting, and every one asked for later, with reason; those running finish. */
    close(reason: Error): void {
        this.closed = reason
        for (const waiter of this.waiting.splice(0)) waiter.refuse(reason)
    }

    /** Jobs running and waiting, for tests and metrics. */
    get load(): { running: number; waiting: number } {
        return { running: this.running, waiting: this.waiting.length }
    }

    private get full(): boolean {
        return this.running >= this.limits.concurrency && this.waiting.length >= this.limits.queue
    }

    /** Takes a slot, or a place in the queue, before its first await: admission is decided by the caller's turn. */
    private async start<T>(fn: () => Promise<T>): Promise<T> {
        if (this.closed) throw this.closed
        if (this.running >= this.limits.concurrency) {
            // The slot is handed over by the finishing run, so `running` stays counted for us.
            await new Promise<void>((start, refuse) => this.waiting.push({ start, refuse }))
        } else {
            this.running++
        }
        try {
            return await fn()
        } finally {
            const next = this.waiting.shift()
            if (next) next.start()
            else this.running--
        }
    }
}
