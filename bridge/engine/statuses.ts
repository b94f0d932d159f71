import { OUR_PROVIDER_STATUSES } from '../providers/status'

/**
 * The statuses a swap can be in, in lifecycle order: the words of the status column, which the
 * state machine (lifecycle.ts) moves a swap through and the store (bridge/store/) reads and writes.
 * Apart from lifecycle.ts so that the store can name them without importing the state machine.
 */

/**
 * A route with an external provider leg passes through the provider's statuses (simpleswap_*,
 * one to one with the provider's own, bridge/providers/status.ts) between gathered and
 * vault_locking: gathered → simpleswap_waiting → … → simpleswap_finished → vault_locking.
 */
const OWN_STATUSES = [
    'pending_deposit', 'deposit_detected', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
    'vault_locking', 'vault_locked', 'payout_processing', 'completed', 'failed', 'expired',
] as const
export type ProviderLegStatus = (typeof OUR_PROVIDER_STATUSES)[number]
export type SwapStatus = (typeof OWN_STATUSES)[number] | ProviderLegStatus
export const STATUSES: SwapStatus[] = [...OWN_STATUSES.slice(0, 6), ...OUR_PROVIDER_STATUSES, ...OWN_STATUSES.slice(6)]

export function isProviderStatus(status: string): status is ProviderLegStatus {
    return (OUR_PROVIDER_STATUSES as readonly string[]).includes(status)
}

export const FINAL_STATUSES: SwapStatus[] = ['completed', 'failed', 'expired']
