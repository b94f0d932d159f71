import { Logger } from '../common/logger'

type Output = NodeJS.WritableStream & { isTTY?: boolean }

/**
 * What `npm start` shows while a long step runs (seeding the demo history, indexing it): on a
 * terminal, one line rewritten in place; elsewhere (a log file, CI), a log line at most every
 * few seconds, so a redirected output is not flooded. docs/operations.md#npm-start-progress
 */
export class ProgressLine {
    private lastAt = 0
    private shown = false

    private readonly inPlace: boolean

    constructor(
        private readonly label: string,
        private readonly log: Logger,
        options: {
            /** Rewrite in place only where nothing else writes meanwhile: not once the services log to the same terminal. */
            inPlace?: boolean
            out?: Output
            logEveryMs?: number
            now?: () => number
        } = {},
    ) {
        this.out = options.out ?? process.stdout
        this.inPlace = (options.inPlace ?? true) && this.out.isTTY === true
        this.logEveryMs = options.logEveryMs ?? 5_000
        this.now = options.now ?? Date.now
    }

    private readonly out: Output
    private readonly logEveryMs: number
    private readonly now: () => number

    /** `done` of `total` steps, described by `what` (e.g. "day 12 of 30"). */
    update(done: number, total: number, what: string): void {
        const now = this.now()
        const percent = total > 0 ? Math.min(100, Math.floor((100 * done) / total)) : 0
        if (this.inPlace) {
            // A terminal redraws cheaply, but not thousands of times a second.
            if (now - this.lastAt < 100) return
            this.lastAt = now
            this.out.write(`\r\x1b[2K${this.label}: ${bar(percent)} ${percent}% (${what})`)
            this.shown = true
            return
        }
        if (now - this.lastAt < this.logEveryMs) return
        this.lastAt = now
        this.log.info({ done, total, percent }, `${this.label}: ${percent}% (${what})`)
    }

    /** Clears the line, and logs the outcome when there is one to tell. */
    done(message?: string): void {
        if (this.inPlace && this.shown) this.out.write('\r\x1b[2K')
        this.shown = false
        if (message) this.log.info(`${this.label}: ${message}`)
    }
}

function bar(percent: number, width = 24): string {
    const filled = Math.round((percent / 100) * width)
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`
}
