import { HttpError } from './service/http-error'

/** A bound on password hashing in one process: docs/decisions.md (Bounded hashing). Contract verification admits its compiles through one too. */

export interface HashPoolLimits {
    /** Hashes running at once. */
    concurrency: number
    /** Hashes waiting for a slot; one more is refused at once. */
    queue: number
}

/** The answer when the pool and its queue are full: try again shortly, the work was not started. */
export class HashPoolBusyError extends HttpError {
    constructor() {
        super(503, 'The server is busy checking passwords; retry in a moment', { code: 'busy', headers: { 'Retry-After': '1' } })
        this.name = 'HashPoolBusyError'
    }
}

/**
 * Runs password hashes (argon2, bcrypt: work a request can make expensive) at most `concurrency` at a
 * time with at most `queue` waiting, so a burst of requests costs a bounded amount of CPU and memory
 * and the rest are refused with 503 instead of waiting without end.
 */
export class HashPool {
    private running = 0
    private readonly waiting: (() => void)[] = []

    constructor(private readonly limits: HashPoolLimits) {
        if (!(limits.concurrency >= 1) || !(limits.queue >= 0)) throw new Error(`bad hash pool limits ${JSON.stringify(limits)}`)
    }

    /** Runs fn when a slot is free; throws HashPoolBusyError, without running fn, when the queue is full. */
    async run<T>(fn: () => Promise<T>): Promise<T> {
        if (this.running >= this.limits.concurrency) {
            if (this.waiting.length >= this.limits.queue) throw new HashPoolBusyError()
            // The slot is handed over by the finishing run, so `running` stays counted for us.
            await new Promise<void>((resolve) => this.waiting.push(resolve))
        } else {
            this.running++
        }
        try {
            return await fn()
        } finally {
            const next = this.waiting.shift()
            if (next) next()
            else this.running--
        }
    }

    /**
     * Admission decided at once: runs fn as run() does, or answers undefined (fn not run) when the
     * pool and its queue are full. The slot or queue place is taken before this returns, so a
     * caller may await other work between admission and fn's start without losing it.
     */
    tryRun<T>(fn: () => Promise<T>): Promise<T> | undefined {
        if (this.running >= this.limits.concurrency && this.waiting.length >= this.limits.queue) return undefined
        return this.run(fn)
    }

    /** Hashes running and waiting, for tests and metrics. */
    get load(): { running: number; waiting: number } {
        return { running: this.running, waiting: this.waiting.length }
    }
}
