import { Histogram } from 'prom-client'
import { registry } from '../../common/service/metrics'

/** How long swaps take from their deposit to each status, for GET /metrics: docs/operations.md#bridge */

const sinceDeposit = new Histogram({
    name: 'bridge_swap_seconds_since_deposit',
    help: "Seconds from the deposit's block time on the source chain to the swap entering each status, by status and source chain",
    labelNames: ['status', 'source_chain'] as const,
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 21600, 86400],
    registers: [registry],
})

/**
 * Called once per transition, by the process that made it, after it committed. Transitions before
 * the deposit is seen (and swaps that never got one) have no deposit time and are not counted.
 */
export function swapEnteredStatus(swap: { status: string; sourceChain: string; depositBlockTime: Date | null }): void {
    if (!swap.depositBlockTime) return
    // A source chain's clock may run slightly ahead of ours: such a moment counts as no time at all.
    sinceDeposit.observe({ status: swap.status, source_chain: swap.sourceChain }, Math.max(0, (Date.now() - swap.depositBlockTime.getTime()) / 1000))
}
