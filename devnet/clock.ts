import { createPublicClient, http } from 'viem'
import { Logger } from '../common/logger'

/** How anvil dates its blocks, and why the devnet's clock is set to the wall clock (never before the head) on every start: docs/devnet.md#the-devnets-clock */

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
