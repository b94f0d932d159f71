import { z } from 'zod'
import { boolFlag, url } from '../../common/config'
import { WsLimits } from '../../common/service/ws-hub'

/** The chain data API's variables (docs/configuration.md). */
export const ChainApiSettingsSchema = z.object({
    CHAIN_API_ITEM_CACHE_MB: z.coerce.number().int().min(0).max(16_384).default(256)
        .describe('memory for rendered chain API list items (transactions, blocks, holders), kept across heads until a commit changes an address they show or a reorganisation, and the reckoning for list key pages (16 KiB each); with `CHAIN_API_READ_DATABASE_URL`, shared equally by the replicas (each keeps its own); see [chain-api.md](chain-api.md#rendered-list-items) (0: render every item, read every page, and make every answer, every time)'),
    CHAIN_API_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000)
        .describe('longest a database statement of the chain data API (/api/v2, its socket) and the explorer DeFi routes may run before Postgres cancels it; the request answers 503'),
    CHAIN_API_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10)
        .describe('database connections of the chain data API (/api/v2 and its socket), apart from those of the other surfaces'),
    CHAIN_API_READ_DATABASE_URL: z.string()
        .regex(/^\s*postgres(ql)?:\/\/[^,\s]+\s*(,\s*postgres(ql)?:\/\/[^,\s]+\s*)*$/, 'must be comma-separated postgres:// URLs')
        .transform(readDatabaseUrls).optional()
        .meta({
            description: 'comma-separated `postgres://…` URLs of streaming replicas (any number) that serve the reads of the chain data API and the Etherscan-style API, each request on one of them in turn; writes, LISTEN and locks stay on `DATABASE_URL` ([production](production.md#read-replicas-for-the-chain-data-api))',
            unset: '`DATABASE_URL`',
        }),
    CHAIN_API_MAX_REPLICA_LAG_BLOCKS: z.coerce.number().int().min(0).max(1_000_000).default(5)
        .describe('with `CHAIN_API_READ_DATABASE_URL`: most blocks a replica\'s indexed head may be behind the primary\'s before `GET /ready` answers 503 (`replicas` check)'),
    ETHERSCAN_API_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000)
        .describe('longest a database statement of the Etherscan-style API (GET /api?module=...) may run before Postgres cancels it; the request answers 503 "Query Timeout occured"'),
    CHAIN_API_VALIDATIONS_COUNT_CAP: z.coerce.number().int().min(1).max(100_000_000).default(100_000)
        .describe('most blocks counted for an address\'s validations_count (/api/v2/addresses/{hash}/counters); an address that mined more is answered with this number'),
    CHAIN_API_TOKEN_BALANCES_MAX: z.coerce.number().int().min(1).max(100_000).default(500)
        .describe('most entries of /api/v2/addresses/{hash}/token-balances (a plain array, as Blockscout answers it): the largest balances first'),
    CHAIN_API_CSV_EXPORT_MAX_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(10_000)
        .describe('most rows of one CSV export (`/api/v1/*-csv`, `/api/v2/addresses/{hash}/*/csv`, `/api/v2/tokens/{hash}/holders/csv`, `/api/v2/advanced-filters/csv`), as Blockscout\'s `CSV_EXPORT_LIMIT`; the file ends there ([chain-api.md](chain-api.md#csv-export))'),
    CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS: z.coerce.number().int().min(1).max(36_600).default(366)
        .describe('longest `from_period`..`to_period` span of a CSV export, in days; a longer one answers 422'),
    CHAIN_API_CSV_EXPORTS_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(50)
        .describe('CSV exports one client IP may start per `CHAIN_API_CSV_EXPORT_WINDOW_SECONDS` (all CSV routes together, counted in Postgres for every replica); the next answers 429'),
    CHAIN_API_CSV_EXPORT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600)
        .describe('the window of `CHAIN_API_CSV_EXPORTS_PER_IP`'),
    CHAIN_API_CSV_CAPTCHA: boolFlag.default(false)
        .describe('require a captcha token with every CSV export, checked with the provider (`CHAIN_API_CSV_CAPTCHA_VERIFY_URL`); needs `CHAIN_API_CSV_CAPTCHA_SECRET`. Off on the devnet'),
    CHAIN_API_CSV_CAPTCHA_SECRET: z.string().min(1).optional()
        .meta({ description: 'the captcha provider\'s secret key (reCAPTCHA, hCaptcha or Turnstile), sent with each token to the verify URL; required when `CHAIN_API_CSV_CAPTCHA` is on', unset: 'none' }),
    CHAIN_API_CSV_CAPTCHA_VERIFY_URL: url.default('https://www.google.com/recaptcha/api/siteverify')
        .describe('the provider\'s siteverify endpoint (hCaptcha: `https://api.hcaptcha.com/siteverify`, Turnstile: `https://challenges.cloudflare.com/turnstile/v0/siteverify`)'),
    CHAIN_API_CSV_CAPTCHA_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000)
        .describe('longest wait for the captcha provider\'s answer; past it the export answers 503'),
    CHAIN_SOCKET_MAX_TOPICS: z.coerce.number().int().min(1).max(10_000).default(100)
        .describe('channels one live-update socket may join; the next join is answered with a `phx_reply` error'),
    CHAIN_SOCKET_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(20)
        .describe('live-update sockets open at once from one client IP (see `TRUST_PROXY`); the next upgrade is answered HTTP 429'),
    CHAIN_SOCKET_MESSAGES_PER_SECOND: z.coerce.number().positive().max(10_000).default(10)
        .describe('frames a socket may send per second on average; a socket sending faster is closed with code 1008'),
    CHAIN_SOCKET_MESSAGE_BURST: z.coerce.number().int().min(1).max(100_000).default(200)
        .describe('frames a socket may send at once above that rate (joining many channels on page load)'),
    CHAIN_SOCKET_SEND_BUFFER_KB: z.coerce.number().int().min(1).max(1_048_576).default(1024)
        .describe('data queued for a socket that does not read, beyond which it is closed with code 4008'),
})

/** The URLs of a comma-separated list. */
function readDatabaseUrls(list: string): string[] {
    return list.split(',').map((u) => u.trim())
}

export type ChainApiSettings = z.infer<typeof ChainApiSettingsSchema>

/** The live-update socket's limits from its variables. */
export function chainSocketLimits(env: ChainApiSettings): WsLimits {
    return {
        maxTopics: env.CHAIN_SOCKET_MAX_TOPICS,
        maxConnectionsPerIp: env.CHAIN_SOCKET_MAX_CONNECTIONS_PER_IP,
        messages: { perSecond: env.CHAIN_SOCKET_MESSAGES_PER_SECOND, burst: env.CHAIN_SOCKET_MESSAGE_BURST },
        maxBufferedBytes: env.CHAIN_SOCKET_SEND_BUFFER_KB * 1024,
    }
}
