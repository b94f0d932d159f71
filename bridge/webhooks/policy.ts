/**
 * The delivery rules as pure functions (docs/bridge/webhooks.md): when to retry, when to give up, when a
 * subscription is disabled. Times are in milliseconds; `scale` is BRIDGE_WEBHOOK_TIME_SCALE (1 in
 * production), which shrinks every delay for tests without changing the rules' shape.
 */

export const DELIVERY_TIMEOUT_MS = 10_000
export const FIRST_RETRY_MS = 30_000
export const RETRY_CAP_MS = 6 * 3_600_000
export const MAX_ATTEMPTS = 8
/**
 * Jitter only lengthens a delay, by up to 20 %: the first retry never comes before 30 s, and since
 * 1.2 < 2 each delay is still longer than the one before it. It spreads the retries of many
 * deliveries that failed together (an endpoint that was down) over time.
 */
export const JITTER = 0.2
/** How long a claimed attempt is reserved for the replica that claimed it: the timeout plus margin. Not scaled. */
export const LEASE_MS = DELIVERY_TIMEOUT_MS + 5_000
/** Rotated-out secrets sign beside the new one this long (Svix: 24 h), and at most this many. */
export const SECRET_GRACE_MS = 24 * 3_600_000
export const MAX_OLD_SECRETS = 5

/**
 * The delay before the next attempt once `attemptsMade` attempts have failed (1 after the first
 * failure): 30 s · 2^(attemptsMade−1) · (1 + 0.2·random), at most 6 h. `random` is in [0, 1).
 */
export function retryDelayMs(attemptsMade: number, scale = 1, random: () => number = Math.random): number {
    if (!Number.isInteger(attemptsMade) || attemptsMade < 1) throw new RangeError('attemptsMade must be an integer from 1')
    const nominal = FIRST_RETRY_MS * 2 ** (attemptsMade - 1)
    return Math.min(RETRY_CAP_MS, nominal * (1 + JITTER * random())) * scale
}

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
    if (!value) return undefined
    const text = value.trim()
    if (/^\d+$/.test(text)) return Number(text) * 1000
    const date = Date.parse(text)
    return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export type NextStep = { giveUp: true } | { giveUp: false; delayMs: number }

/**
 * After a failed attempt: give up once MAX_ATTEMPTS are used, else wait the schedule's delay or
 * what the receiver asked for with Retry-After (on 429/503), whichever is longer, never beyond the cap.
 */
export function afterFailure(attemptsMade: number, options: { scale?: number; retryAfterMs?: number; random?: () => number } = {}): NextStep {
    if (attemptsMade >= MAX_ATTEMPTS) return { giveUp: true }
    const scale = options.scale ?? 1
    const scheduled = retryDelayMs(attemptsMade, scale, options.random)
    const asked = options.retryAfterMs === undefined ? 0 : options.retryAfterMs * scale
    return { giveUp: false, delayMs: Math.min(RETRY_CAP_MS * scale, Math.max(scheduled, asked)) }
}

export interface FailureState {
    /** First failed attempt since the last success (null: the last attempt succeeded). */
    failingSince: Date | null
    /** Events given up (undelivered) in a row since the last success. */
    failedEvents: number
}

export interface DisableRule {
    /** How long every attempt must have failed (24 h by default, scaled). */
    afterMs: number
    /** How many consecutive events must have gone undelivered (10 by default). */
    afterEvents: number
}

/**
 * Auto-disable (after Svix): only an endpoint that has failed every attempt for a whole window
 * AND has lost a run of events is disabled. Time alone would disable a quiet endpoint after one
 * bad event; a count alone would disable a busy one during a short outage. Any 2xx resets both.
 */
export function shouldDisable(state: FailureState, now: Date, rule: DisableRule): boolean {
    if (!state.failingSince) return false
    return now.getTime() - state.failingSince.getTime() >= rule.afterMs && state.failedEvents >= rule.afterEvents
}

export function disableReason(state: FailureState, rule: DisableRule): string {
    const hours = rule.afterMs / 3_600_000
    return `every delivery attempt failed since ${state.failingSince!.toISOString()} (at least ${+hours.toPrecision(4)} h) and ${state.failedEvents} consecutive events went undelivered (threshold ${rule.afterEvents})`
}
