export interface CoalescedRunnerOptions {
    /**
     * The first pass of a burst starts on the event loop's next turn rather than at once, so the
     * asks of one turn (many attempts finishing together) make one pass, not one and a rerun.
     */
    deferred?: boolean
}

/**
 * Runs a pass one at a time: asked while a pass runs, it runs exactly one more after it (however
 * often it was asked meanwhile), so a burst of wake-ups (a NOTIFY per block, a kick per deposit)
 * costs at most two passes and none is lost. Once stopped it starts nothing, and stop() waits for
 * the pass in flight.
 */
export class CoalescedRunner {
    private running?: Promise<void>
    private again = false
    private stopped = false

    /** `pass` must not throw: a failure is the caller's to log. */
    constructor(private readonly pass: () => Promise<void>, private readonly options: CoalescedRunnerOptions = {}) {}

    /** Runs a pass now, or once more after the one running. */
    run(): void {
        if (this.stopped) return
        if (this.running) {
            this.again = true
            return
        }
        this.running = (async () => {
            if (this.options.deferred) await new Promise((resolve) => setImmediate(resolve))
            while (!this.stopped) {
                this.again = false
                await this.pass()
                if (!this.again) break
            }
        })().finally(() => (this.running = undefined))
    }

    /**
     * Whether another pass follows the one running (it was asked for meanwhile): a pass can leave
     * to the last of a burst what only the last need do, such as arming a timer.
     */
    get rerunDue(): boolean {
        return this.again && !this.stopped
    }

    /** Drops the asks made during the pass running, so none follows it: after a failure, the caller's retry timer stands in for them. */
    cancelRerun(): void {
        this.again = false
    }

    /** Resolves once no pass runs or is due: whatever was asked for before this call is done. */
    idle(): Promise<void> {
        return this.running ?? Promise.resolve()
    }

    async stop(): Promise<void> {
        this.stopped = true
        await this.running
    }
}
