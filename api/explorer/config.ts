import { z } from 'zod'
import { port, SharedEnv, url } from '../../common/config'

/** A budget of a rate limit: a whole number of requests or failures in the limit's window. */
const budget = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000).default(fallback)

/** The explorer services API's variables (docs/configuration.md). */
export const ExplorerSettingsSchema = z.object({
    EXPLORER_PORT: port.default(4000)
        .describe('port of the explorer services API (`/api`), the chain data API (`/api/v2`) and its socket'),
    SMTP_URL: z.string().regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL').optional()
        .describe('`smtp://user:pass@host:587` or `smtps://…` for the explorer\'s mail; unset: development writes mail to `DATA_DIR/mail`, production answers 503 on the routes that mail'),
    MAIL_FROM: z.string().min(3).default('Explorer <no-reply@localhost>')
        .describe('sender of the explorer\'s mail'),
    PUBLIC_URL: url.optional()
        .meta({ description: 'the explorer services API as users reach it (ends in `/api`), for the links in mail', unset: '`http://localhost:{EXPLORER_PORT}/api`' }),
    PASSWORD_RESET_URL: url.optional()
        .describe('frontend page that finishes a reset; the mail links to it with `?token=…` (the token is in the mail either way)'),

    EXPLORER_SIGNIN_PER_IP: budget(10)
        .describe('explorer sign-in attempts per client IP per 15 minutes, successful or not, counted before the body is read'),
    EXPLORER_SIGNIN_FAILURES_PER_ACCOUNT_IP: budget(5)
        .describe('failed explorer sign-ins per (account, client IP) per 15 minutes; then that IP gets 429 for that account, other IPs do not'),
    EXPLORER_SIGNIN_ACCOUNT_ALERT: budget(20)
        .describe('failed sign-ins of one explorer account from all IPs per hour after which each IP\'s budget for it drops to `EXPLORER_SIGNIN_FAILURES_UNDER_ATTACK`'),
    EXPLORER_SIGNIN_FAILURES_UNDER_ATTACK: budget(1)
        .describe('failed sign-ins per (account, client IP) per 15 minutes while the account is over `EXPLORER_SIGNIN_ACCOUNT_ALERT`'),
    EXPLORER_SIGNUP_PER_IP: budget(5)
        .describe('explorer sign-ups per client IP per hour'),
    EXPLORER_FORMS_PER_IP: budget(10)
        .describe('support requests and newsletter subscriptions together per client IP per hour'),
    EXPLORER_VERIFY_CODE_PER_IP: budget(20)
        .describe('`POST /auth/verify-code` attempts per client IP per 15 minutes'),
    EXPLORER_RESET_PASSWORD_PER_IP: budget(10)
        .describe('`POST /auth/reset-password` attempts per client IP per hour'),
    EXPLORER_VERIFY_MAILS_PER_ADDRESS: budget(5)
        .describe('verification mails (`POST /auth/resend-code`) per target address per hour'),
    EXPLORER_RESET_MAILS_PER_ADDRESS: budget(5)
        .describe('reset mails (`POST /auth/forgot-password`) per target address per hour, a budget apart from the verification mails'),
    EXPLORER_MAIL_REQUESTS_PER_IP: budget(20)
        .describe('`POST /auth/resend-code` and `POST /auth/forgot-password` together per client IP per hour'),
    EXPLORER_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2)
        .describe('password hashes and verifications of the explorer run at once (each takes about 50 ms of one core and 19 MiB)'),
    EXPLORER_DEFI_CACHE_SECONDS: z.coerce.number().int().min(0).max(3_600).default(15)
        .describe('seconds a `/api/defi/*` answer is reused (and its `Cache-Control: max-age`); 0 computes every answer afresh'),
    EXPLORER_ALERTS_PER_DAY: budget(50)
        .describe('watchlist alert mails per account per 24 hours; further alerts are recorded as `capped` and not mailed'),
    EXPLORER_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32)
        .describe('password hashes that may wait for a slot; beyond it a sign-up, sign-in or reset answers 503 `busy` with `Retry-After: 1`'),
})

export type ExplorerEnv = SharedEnv & z.infer<typeof ExplorerSettingsSchema>
