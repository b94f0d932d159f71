import { createHash } from 'crypto'
import { Pool } from 'pg'
import { FailureLimit, LimitRule, RateLimit } from '../../common/service/rate-limit'
import { ExplorerEnv } from './config'

/** Rate limits of the explorer services API (docs/explorer-api.md, Rate limits), counted in explorer_rate_limit. */

const MINUTES_15 = 15 * 60
const HOUR = 3600
const TABLE = 'explorer_rate_limit'

const refusal = (seconds: number) => `too many requests; try again in ${seconds} seconds`
const signinRefusal = (seconds: number) => `too many failed sign-ins for this account from this address; try again in ${seconds} seconds`

export interface Limits {
    /** Sign-in attempts per IP, successful or not. */
    signin: RateLimit
    /** Failed sign-ins per (account, IP): see SigninGuard. */
    signinFailures: FailureLimit
    /** The same counters with the lower budget that holds while the account is under attack. */
    signinFailuresUnderAttack: FailureLimit
    /** Failed sign-ins per account from every IP; never refuses, only tells SigninGuard which budget holds. */
    signinAccountFailures: FailureLimit
    signup: RateLimit
    /** The two public forms together, per IP. */
    forms: RateLimit
    verifyCode: RateLimit
    resetPassword: RateLimit
    /**
     * Our addition: mail that an anonymous caller can trigger, per target address and purpose, so
     * nobody can flood a mailbox, nor spend a victim's reset mails by asking for verification mails.
     * Applies whether or not the address has an account.
     */
    verifyMail: RateLimit
    resetMail: RateLimit
    /** resend-code and forgot-password together, per IP. */
    mailRequests: RateLimit
}

export function createLimits(pool: Pool, env: ExplorerEnv): Limits {
    const limit = (name: string, points: number, windowSeconds: number) => new RateLimit(pool, TABLE, { name, points, windowSeconds }, refusal)
    const failures = (rule: LimitRule) => new FailureLimit(pool, TABLE, rule, signinRefusal, { announceBudget: true })
    return {
        signin: limit('signin', env.EXPLORER_SIGNIN_PER_IP, MINUTES_15),
        signinFailures: failures({ name: 'signin-failures', points: env.EXPLORER_SIGNIN_FAILURES_PER_ACCOUNT_IP, windowSeconds: MINUTES_15 }),
        // The same key prefix: both read one counter per (account, IP).
        signinFailuresUnderAttack: failures({ name: 'signin-failures', points: env.EXPLORER_SIGNIN_FAILURES_UNDER_ATTACK, windowSeconds: MINUTES_15 }),
        // A tally: its budget is never reached, check() only reads the count.
        signinAccountFailures: failures({ name: 'signin-account-failures', points: Number.MAX_SAFE_INTEGER, windowSeconds: HOUR }),
        signup: limit('signup', env.EXPLORER_SIGNUP_PER_IP, HOUR),
        forms: limit('forms', env.EXPLORER_FORMS_PER_IP, HOUR),
        verifyCode: limit('verify-code', env.EXPLORER_VERIFY_CODE_PER_IP, MINUTES_15),
        resetPassword: limit('reset-password', env.EXPLORER_RESET_PASSWORD_PER_IP, HOUR),
        verifyMail: limit('verify-mail', env.EXPLORER_VERIFY_MAILS_PER_ADDRESS, HOUR),
        resetMail: limit('reset-mail', env.EXPLORER_RESET_MAILS_PER_ADDRESS, HOUR),
        mailRequests: limit('mail-requests', env.EXPLORER_MAIL_REQUESTS_PER_IP, HOUR),
    }
}

/** Key of a per-address budget: a hash, so the counter table holds no email addresses. */
export function emailKey(email: string): string {
    return createHash('sha256').update(email).digest('hex')
}
