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
    constructor(private readonly pass: () => Promise<void>) {}

    /** Runs a pass now, or once more after the one running. */
    run(): void {
        if (this.stopped) return
        if (this.running) {
            this.again = true
            return
        }
        this.running = (async () => {
            do {
                this.again = false
                await this.pass()
            } while (this.again && !this.stopped)
        })().finally(() => (this.running = undefined))
    }

    async stop(): Promise<void> {
        this.stopped = true
        await this.running
    }
}
