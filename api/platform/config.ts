import { z } from 'zod'
import { IndexedRangeSchema, parseEnv, port, SecretsSchema, SharedSettingsSchema } from '../../common/config'

/** The wallet platform API's variables (docs/configuration.md). */
export const PlatformSettingsSchema = z.object({
    PLATFORM_PORT: port.default(4001)
        .describe('port of the wallet platform API'),
    PLATFORM_AUTH_MAX_FAILURES: z.coerce.number().int().min(1).max(10_000).default(10)
        .describe('failed password checks allowed per user_id (or wallet) from one client IP within the window, then 429 for that user_id from that IP'),
    PLATFORM_AUTH_IP_MAX_FAILURES: z.coerce.number().int().min(1).max(100_000).default(100)
        .describe('failed password checks allowed per client IP, over all user_ids, within the window, then 429 for every password check from that IP'),
    PLATFORM_AUTH_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900)
        .describe('the window of `PLATFORM_AUTH_MAX_FAILURES` and `PLATFORM_AUTH_IP_MAX_FAILURES`'),
    PLATFORM_REGISTER_PER_IP: z.coerce.number().int().min(1).max(100_000).default(100)
        .describe('requests to `register` and `register_random` allowed per client IP within `PLATFORM_REGISTER_WINDOW_SECONDS`, then 429'),
    PLATFORM_REGISTER_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600)
        .describe('the window of `PLATFORM_REGISTER_PER_IP`'),
    PLATFORM_QUOTE_PER_IP: z.coerce.number().int().min(1).max(100_000).default(120)
        .describe('`GET /api/swap/quote` requests allowed per client IP within `PLATFORM_QUOTE_WINDOW_SECONDS`, then 429 (each reads the pools off the node)'),
    PLATFORM_QUOTE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60)
        .describe('the window of `PLATFORM_QUOTE_PER_IP`'),
    PLATFORM_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2)
        .describe('argon2id password hashes the platform runs at once (each takes a thread of the libuv pool and 19 MiB)'),
    PLATFORM_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32)
        .describe('password hashes waiting for `PLATFORM_HASH_CONCURRENCY`; a request beyond them is answered 503 with Retry-After'),
    PLATFORM_AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60)
        .describe('how long a verified password is remembered in memory, sparing the argon2id cost on the next request (0: never)'),
    PLATFORM_TX_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60)
        .describe('longest wait for a transaction\'s receipt before answering 202 with the hash'),
    PLATFORM_DEADLINE_SECONDS: z.coerce.number().int().min(10).max(86_400).default(1200)
        .describe('router deadline of liquidity and swap transactions, from the chain\'s latest block time'),
})

/**
 * What the platform process reads: the shared settings, MASTER_KEY (under which wallet keys are
 * sealed), its own variables, and the indexer's finality depth (the depth at which a stored send is
 * proven dead, docs/sending.md).
 */
export const PlatformEnvSchema = SharedSettingsSchema.extend({
    ...SecretsSchema.pick({ MASTER_KEY: true }).shape,
    ...PlatformSettingsSchema.shape,
    ...IndexedRangeSchema.shape,
})

export type PlatformEnv = z.infer<typeof PlatformEnvSchema>

export function parsePlatformEnv(env: NodeJS.ProcessEnv = process.env): PlatformEnv {
    return parseEnv(PlatformEnvSchema, env)
}
