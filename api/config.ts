import { z } from 'zod'
import { IndexedRangeSchema, parseEnv, SharedEnvSchema } from '../common/config'
import { ChainApiSettingsSchema } from './chain/config'
import { ExplorerSettingsSchema } from './explorer/config'
import { PlatformSettingsSchema } from './platform/config'

/** What the api process reads: the shared variables and those of the three APIs it serves. */
export const ApiEnvSchema = SharedEnvSchema.extend({
    ...ChainApiSettingsSchema.shape,
    ...ExplorerSettingsSchema.shape,
    ...PlatformSettingsSchema.shape,
    // The chain data API serves what the indexer wrote: it needs the indexer's first block and finality depth.
    ...IndexedRangeSchema.shape,
})

export type ApiEnv = z.infer<typeof ApiEnvSchema>

export function parseApiEnv(env: NodeJS.ProcessEnv = process.env): ApiEnv {
    return parseEnv(ApiEnvSchema, env)
}
