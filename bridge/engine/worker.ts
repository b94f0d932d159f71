import { CoalescedRunner } from '../../common/coalesced-runner'
import { WorkPool } from '../../common/work-pool'
import { LOCK_SWAP } from '../db'
import { EngineContext } from './context'
import { hold, OperatorHoldError } from './hold'
import { advanceLateDeposits } from './late'
import { activeSwapIds, loadSwap, Swap } from '../store/swaps'
import { step } from './steps'

/**
 * Moves every swap past its deposit forward, on a short interval and whenever the monitor sees a
 * deposit. A swap is worked on by one task at a time across all replicas (a session advisory lock
 * per swap, released by Postgres itself if the process dies), and taken as far as it can go
 * without waiting on a chain.
 *
 * Swaps due for a visit wait in one queue that CONCURRENCY lanes (a WorkPool's slots) drain continuously; each refresh
 * (the interval, or a kick) adds the active swaps not already queued or being visited. A slow
 * visit (a pool trade, a vault lock waited for) therefore holds up one lane, not every other
 * swap's next look: there are no passes that end only when their slowest visit does.
 */

const CONCURRENCY = 16
const STEPS_PER_VISIT = 20

export class Worker {
    private timer?: NodeJS.Timeout
    private readonly refresher = new CoalescedRunner(() => this.refresh().catch((err) => this.ctx.log.error({ err }, 'engine pass failed')))
    private stopped = false
    /** CONCURRENCY visits at once; the swaps waiting for a lane keep the order they were queued in (oldest update first). */
    private readonly lanes = new WorkPool({ concurrency: CONCURRENCY, queue: Infinity })
    /** Swaps queued or being visited: a refresh does not add them twice. */
    private readonly pending = new Set<string>()
    /** Visits queued or running, which stop() waits for. */
    private readonly visits = new Set<Promise<void>>()

    constructor(private readonly ctx: EngineContext) {}

    start(): void {
        this.timer = setInterval(() => this.kick(), this.ctx.config.workerIntervalMs)
        this.kick()
    }

    async stop(): Promise<void> {
        this.stopped = true
        clearInterval(this.timer)
        await this.refresher.stop()
        await Promise.all([...this.visits])
    }

    /** Looks for swaps to move on now, or right after the current look. */
    kick(): void {
        this.refresher.run()
    }

    private async refresh(): Promise<void> {
        // A provider leg is polled every BRIDGE_PROVIDER_POLL_SECONDS, not on every pass: its API is rate limited.
        for (const id of await activeSwapIds(this.ctx.pool, this.ctx.config.provider.pollSeconds, 1000)) {
            if (this.pending.has(id) || this.stopped) continue
            this.pending.add(id)
            const visit: Promise<void> = this.lanes.run(async () => {
                if (!this.stopped) await this.visit(id).catch((err) => this.ctx.log.error({ err, swap: id }, 'swap visit failed'))
            }).finally(() => {
                this.pending.delete(id)
                this.visits.delete(visit)
            })
            this.visits.add(visit)
        }
        if (!this.stopped) await advanceLateDeposits(this.ctx)
        if (!this.stopped) await this.ctx.sender.followBesideLanded((chain) => this.ctx.adapter(chain as never))
    }

    private async visit(id: string): Promise<void> {
        const release = await this.ctx.locks.tryLock(LOCK_SWAP, id).catch((err) => {
            this.ctx.log.error({ err }, 'cannot take a swap lock')
            return undefined
        })
        if (!release) return
        let swap: Swap | undefined
        try {
            for (let i = 0; i < STEPS_PER_VISIT && !this.stopped; i++) {
                swap = await loadSwap(this.ctx.pool, id)
                if (!swap || swap.holdReason || (await step(this.ctx, swap)) === 'wait') break
            }
        } catch (err) {
            if (err instanceof OperatorHoldError && swap) await hold(this.ctx, swap, err.message, err.data).catch((e) => this.ctx.log.error({ err: e, swap: id }, 'cannot hold a swap'))
            else this.ctx.log.error({ err, swap: id }, 'swap step failed; retrying on the next pass')
        } finally {
            await release()
        }
    }
}
