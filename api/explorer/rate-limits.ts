import { createHash } from 'crypto'
import { Pool } from 'pg'
import { LimitRule, RateLimit } from '../../common/service/rate-limit'

/** Rate limits of the explorer services API (docs/explorer-api.md), counted in explorer_rate_limit. */
export const LIMIT_RULES = {
    /** Sign-in attempts, per IP. Every attempt counts, successful or not. */
    signin: { name: 'signin', points: 10, windowSeconds: 15 * 60 },
    /** Sign-ups, per IP. */
    signup: { name: 'signup', points: 5, windowSeconds: 60 * 60 },
    /** The two public forms together, per IP. */
    forms: { name: 'forms', points: 10, windowSeconds: 60 * 60 },
    /**
     * Our addition: mail that an anonymous caller can trigger (resend-code, forgot-password), per target
     * address, so nobody can flood a mailbox. Applies whether or not the address has an account.
     */
    mail: { name: 'mail', points: 5, windowSeconds: 60 * 60 },
} satisfies Record<string, LimitRule>

export type Limits = Record<keyof typeof LIMIT_RULES, RateLimit>

export function createLimits(pool: Pool): Limits {
    const limit = (rule: LimitRule) =>
        new RateLimit(pool, 'explorer_rate_limit', rule, (seconds) => `too many requests; try again in ${seconds} seconds`)
    return { signin: limit(LIMIT_RULES.signin), signup: limit(LIMIT_RULES.signup), forms: limit(LIMIT_RULES.forms), mail: limit(LIMIT_RULES.mail) }
}

/** Key of a per-address budget: a hash, so the counter table holds no email addresses. */
export function emailKey(email: string): string {
    return createHash('sha256').update(email).digest('hex')
}
