import { HttpError } from './service/http-error'

/** The answer when the pool and its queue are full: 503 at once, the caller may retry in a second. */
export class HashPoolBusyError extends HttpError {
    constructor() {
        super(503, 'the server is busy; try again in a moment', { code: 'busy', headers: { 'Retry-After': '1' } })
        this.name = 'HashPoolBusyError'
    }
}

/**
 * Bounds password hashing (argon2, bcrypt): at most `concurrency` jobs run, at most `queue` wait in
 * order, and a job beyond both is refused with HashPoolBusyError instead of waiting without end.
 */
export class HashPool {
    private readonly concurrency: number
    private readonly queue: number
    private running = 0
    private readonly waiting: Array<() => void> = []

    constructor(options: { concurrency: number; queue: number }) {
        this.concurrency = options.concurrency
        this.queue = options.queue
    }

    async run<T>(fn: () => Promise<T>): Promise<T> {
        if (this.running >= this.concurrency) {
            if (this.waiting.length >= this.queue) throw new HashPoolBusyError()
            // The finishing job hands its slot over, so `running` stays counted for this one.
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
}
