import { Pool } from 'pg'
import { Logger } from '../../common/logger'
import { inTransaction } from '../db'
import { holdSwap, Swap } from '../store/swaps'
import { writeEvent } from './lifecycle'

/** Operator holds, for a swap whose money may be where the engine cannot account for it: docs/bridge/lifecycle.md#operator-holds */

/** Thrown from anywhere in a step when the swap must be held; the worker holds it. */
export class OperatorHoldError extends Error {
    constructor(reason: string, readonly data: Record<string, unknown> = {}) {
        super(reason)
    }
}

/** Holds the swap (once: a held swap is not held again), and writes the event. */
export async function hold(ctx: { pool: Pool; log: Logger }, swap: Swap, reason: string, data: Record<string, unknown> = {}): Promise<void> {
    ctx.log.error({ swap: swap.id, status: swap.status, reason, ...data }, 'swap held for an operator')
    await inTransaction(ctx.pool, async (client) => {
        const held = await holdSwap(client, swap.id, reason.slice(0, 1000))
        if (!held) return
        await writeEvent(client, held, { event: 'swap_held', data: { reason, operator_action_required: true, ...data } })
    })
}
