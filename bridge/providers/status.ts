import { PROVIDER_PREFIX } from '../webhooks/catalogue'

/**
 * The external provider's exchange statuses, mapped one to one onto our swap statuses and webhook
 * events `simpleswap_<status>` (docs/bridge/lifecycle.md). The vocabulary is SimpleSwap's (API
 * v3), which ChangeNOW and Changelly share, so the table also documents what the engine does on
 * each. The mapping is a table, not logic: the raw status is stored next to ours, and a status the
 * provider adds later is reported as unknown (keep waiting and alert), never as a failure, because
 * a misread failure would refund a user whose exchange may still pay out.
 */

export const PROVIDER_STATUSES = [
    'waiting', 'confirming', 'exchanging', 'sending', 'finished', 'failed', 'refunded', 'verifying', 'expired',
] as const
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number]

/** What the engine does when the leg is in a status. */
export type ProviderAction =
    /** Nothing to do but poll again (with backoff). */
    | 'wait'
    /** Wait, and raise an operator alert: progress needs a human at the provider. */
    | 'wait_and_alert'
    /** The leg succeeded: verify the provider's payout on the target chain, then continue the swap. */
    | 'continue'
    /** The leg ended without paying us: fail the swap with `failReason`; the funds are not ours to refund yet. */
    | 'fail'
    /** The leg ended with the deposit returned to our refund address: fail the swap and refund the user from it. */
    | 'fail_and_refund'

export interface ProviderStatusInfo {
    /** The provider's word. */
    provider: ProviderStatus
    /** Our swap status and webhook event name. */
    ours: `simpleswap_${ProviderStatus}`
    meaning: string
    /** The provider will not move the exchange out of this status on its own. */
    final: boolean
    /** Funds of this exchange can still move (arrive, be paid out or come back). */
    fundsMayMove: boolean
    action: ProviderAction
    /** error_message for a swap the engine fails here. */
    failReason?: string
}

const info = (provider: ProviderStatus, rest: Omit<ProviderStatusInfo, 'provider' | 'ours'>): ProviderStatusInfo => ({
    provider, ours: `${PROVIDER_PREFIX}${provider}` as `simpleswap_${ProviderStatus}`, ...rest,
})

export const STATUS_TABLE: Record<ProviderStatus, ProviderStatusInfo> = {
    waiting: info('waiting', {
        meaning: 'Exchange created; the provider waits for the deposit to its addressFrom',
        // Our send may be in flight; a fixed-rate exchange becomes expired at validUntil.
        final: false, fundsMayMove: true, action: 'wait',
    }),
    confirming: info('confirming', {
        meaning: 'The provider saw the deposit and waits for its confirmations',
        final: false, fundsMayMove: true, action: 'wait',
    }),
    exchanging: info('exchanging', {
        meaning: 'Deposit confirmed; the provider is converting it',
        final: false, fundsMayMove: true, action: 'wait',
    }),
    sending: info('sending', {
        meaning: 'The provider is paying out to addressTo (txTo may already be set)',
        final: false, fundsMayMove: true, action: 'wait',
    }),
    finished: info('finished', {
        meaning: 'The provider paid amountTo to addressTo in txTo',
        // Final at the provider, but the engine credits only what it sees land on the target chain.
        final: true, fundsMayMove: false, action: 'continue',
    }),
    failed: info('failed', {
        meaning: 'The provider could not complete the exchange (often: deposit below its minimum); the deposit stays with the provider',
        // Final for the swap, yet the provider (or its support) may still refund: keep polling for refunded.
        final: true, fundsMayMove: true, action: 'fail',
        failReason: 'external swap provider failed the exchange; the deposit is held by the provider pending its refund',
    }),
    refunded: info('refunded', {
        meaning: 'The provider returned the deposit to userRefundAddress (our vault)',
        final: true, fundsMayMove: false, action: 'fail_and_refund',
        failReason: 'external swap provider refunded the exchange',
    }),
    verifying: info('verifying', {
        meaning: 'The provider holds the exchange for AML/KYC verification',
        // Frozen until someone answers the provider; no automatic timeout turns this into a failure.
        final: false, fundsMayMove: true, action: 'wait_and_alert',
    }),
    expired: info('expired', {
        meaning: 'No deposit reached the provider before validUntil (fixed rate)',
        // If we sent nothing the leg is simply dead (re-quote or fail); a late send must be chased with the provider.
        final: true, fundsMayMove: true, action: 'fail',
        failReason: 'external swap provider exchange expired before the deposit reached it',
    }),
}

export type MappedStatus =
    | ({ known: true; raw: string } & ProviderStatusInfo)
    | { known: false; raw: string; action: 'wait_and_alert'; final: false; fundsMayMove: true }

/** The provider's raw status → ours. Case and surrounding space are the provider's noise, not meaning. */
export function mapProviderStatus(raw: string): MappedStatus {
    const key = raw.trim().toLowerCase()
    if ((PROVIDER_STATUSES as readonly string[]).includes(key)) return { known: true, raw, ...STATUS_TABLE[key as ProviderStatus] }
    return { known: false, raw, action: 'wait_and_alert', final: false, fundsMayMove: true }
}

/** Every status the provider leg can put a swap in (for the lifecycle's status list when it is wired). */
export const OUR_PROVIDER_STATUSES = PROVIDER_STATUSES.map((s) => STATUS_TABLE[s].ours)
