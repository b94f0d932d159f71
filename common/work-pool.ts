import { HttpError } from './service/http-error'

/**
 * A bound on CPU-heavy work a request can ask for, in one process: password hashing (docs/decisions.md,
 * Bounded hashing) and contract-verification compiles each go through a pool of their own.
 */

export interface WorkPoolLimits {
    /** Jobs running at once. */
    concurrency: number
    /** Jobs waiting for a slot; one more is refused at once. */
    queue: number
}

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
 * and the rest are refused with 503 instead of waiting without end.
 */
export class WorkPool {
    private running = 0
    private readonly waiting: (() => void)[] = []

    constructor(private readonly limits: WorkPoolLimits) {
        if (!(limits.concurrency >= 1) || !(limits.queue >= 0)) throw new Error(`bad work pool limits ${JSON.stringify(limits)}`)
    }

    /** Runs fn when a slot is free; throws WorkPoolBusyError, without running fn, when the queue is full. */
    async run<T>(fn: () => Promise<T>): Promise<T> {
        if (this.running >= this.limits.concurrency) {
            if (this.waiting.length >= this.limits.queue) throw new WorkPoolBusyError()
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

    /** Jobs running and waiting, for tests and metrics. */
    get load(): { running: number; waiting: number } {
        return { running: this.running, waiting: this.waiting.length }
    }
}
