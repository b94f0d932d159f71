import { inTransaction } from '../db'
import { EngineContext } from './context'
import { mapSwap, Swap, writeEvent } from './lifecycle'

/**
 * Operator holds. Some evidence means money may be where the engine cannot account for it: a
 * vault nonce consumed at a final block by no transaction of ours, a gathered deposit that a
 * reorganisation deeper than the finality rule removed. Acting on it automatically (paying again,
 * closing the swap) could lose money either way, so the swap is held: its status stays as it was,
 * the worker no longer visits it, the event `swap_held` (with operator_action_required) tells the
 * webhooks, and GET /api/swap/:id shows the hold. An operator releases it after looking, by
 * clearing hold_reason (docs/bridge/lifecycle.md, Operator holds).
 */

/** Thrown from anywhere in a step when the swap must be held; the worker holds it. */
export class OperatorHoldError extends Error {
    constructor(reason: string, readonly data: Record<string, unknown> = {}) {
        super(reason)
    }
}

/** Holds the swap (once: a held swap is not held again), and writes the event. */
export async function hold(ctx: EngineContext, swap: Swap, reason: string, data: Record<string, unknown> = {}): Promise<void> {
    ctx.log.error({ swap: swap.id, status: swap.status, reason, ...data }, 'swap held for an operator')
    await inTransaction(ctx.pool, async (client) => {
        const { rows } = await client.query(
            `UPDATE bridge_swap SET hold_reason = $2, held_at = now(), updated_at = now() WHERE id = $1 AND hold_reason IS NULL RETURNING *`,
            [swap.id, reason.slice(0, 1000)]
        )
        if (rows.length === 0) return
        await writeEvent(client, mapSwap(rows[0]), { event: 'swap_held', data: { reason, operator_action_required: true, ...data } })
    })
}
