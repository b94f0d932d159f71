import { z } from 'zod'
import { IndexedRangeSchema, parseEnv, SecretsSchema, SharedSettingsSchema } from '../common/config'
import { ChainApiSettingsSchema } from './chain/config'
import { VerificationSettingsSchema } from './chain/verification/config'
import { ExplorerSettingsSchema } from './explorer/config'

/**
 * What the api process reads: the shared settings, the secret that signs explorer sessions, and the
 * variables of the two APIs it serves. MASTER_KEY is the wallet platform's (api/platform/config.ts):
 * the process that serves anonymous traffic holds no wallet keys.
 */
export const ApiEnvSchema = SharedSettingsSchema.extend({
    ...SecretsSchema.pick({ JWT_SECRET: true }).shape,
    ...ChainApiSettingsSchema.shape,
    ...VerificationSettingsSchema.shape,
    ...ExplorerSettingsSchema.shape,
    // The chain data API serves what the indexer wrote: it needs the indexer's first block and finality depth.
    ...IndexedRangeSchema.shape,
})

export type ApiEnv = z.infer<typeof ApiEnvSchema>

export function parseApiEnv(env: NodeJS.ProcessEnv = process.env): ApiEnv {
    return parseEnv(ApiEnvSchema, env)
}
