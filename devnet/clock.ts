import { createPublicClient, http } from 'viem'
import { Logger } from '../common/logger'

/**
 * anvil (1.7.1) dates a block it mines on its own (automine, interval mining, a plain evm_mine)
 * at wall clock + an offset, and moves that offset whenever it is handed a time:
 *
 * - `--timestamp` at genesis, `evm_mine` with a `timestamp`, and `evm_setNextBlockTimestamp` each
 *   leave the offset at "that time minus now", so every later block keeps the same distance behind
 *   (or ahead of) the wall clock. The seeded history ends with an `evm_mine` dated up to an hour
 *   before the seeding began, which is how a live devnet came to show its newest block as "52m ago".
 * - `evm_setTime` / `anvil_setTime` (the same call, seconds) set the offset so that the clock reads
 *   the given time from now on. anvil accepts a time before the head and then dates the next block
 *   before it: the call is only safe at or after the head's timestamp.
 * - A restart from a `--state` file starts with offset 0 and without the head's timestamp as a
 *   floor: a chain saved with its head ahead of the wall clock mines its next block in the past.
 */
export interface ClockSync {
    /** The time the chain's clock was set to: the next block is dated at or after it. */
    timestamp: number
    /** The head's timestamp when the clock was set. */
    head: number
}

/**
 * Sets the chain's clock to the wall clock, or to its head's timestamp when that is later, so the
 * blocks mined from here on are dated in real time and never before the head. Call it before
 * interval mining starts and after anything that mines with explicit timestamps.
 */
export async function followWallClock(rpcUrl: string, log?: Logger): Promise<ClockSync> {
    const client = createPublicClient({ transport: http(rpcUrl) })
    const head = Number((await client.getBlock({ blockTag: 'latest' })).timestamp)
    const now = Math.floor(Date.now() / 1000)
    const timestamp = Math.max(now, head)
    await client.request({ method: 'evm_setTime' as any, params: [timestamp] as any })
    if (head > now) {
        log?.warn({ head, now }, 'chain head is dated after the wall clock; new blocks continue from the head')
    } else {
        log?.info({ headAgeSeconds: now - head }, 'chain clock set to the wall clock')
    }
    return { timestamp, head }
}
