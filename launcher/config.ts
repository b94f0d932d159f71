import { z } from 'zod'
import { ApiEnvSchema } from '../api/config'
import { PlatformEnvSchema } from '../api/platform/config'
import { BridgeEnvSchema } from '../bridge/config'
import { parseEnv, port } from '../common/config'
import { DevnetSettingsSchema } from '../devnet/config'
import { IndexerEnvSchema } from '../indexer/config'

/** The launcher's own variables (docs/configuration.md). */
export const LauncherSettingsSchema = z.object({
    EMBEDDED_PG_PORT: port.default(54329)
        .describe('port of the embedded Postgres that `npm start` runs when `DATABASE_URL` is not set (it also listens on a Unix socket in its data directory, which the services use: cheaper than TCP for short queries)'),
    LOG_FORMAT: z.enum(['json', 'pretty']).optional()
        .meta({ description: 'how `npm start` prints the log lines of its services and its own: `pretty` (time, level, service/component, message, fields) or `json` as the services write them ([operations](operations.md#logs)); the services themselves always write JSON', unset: '`pretty` when its output is a terminal, else `json`' }),
})

/** `npm start` runs every process, so it checks every variable before starting any. */
export const LauncherEnvSchema = IndexerEnvSchema.extend({
    ...ApiEnvSchema.shape,
    ...PlatformEnvSchema.shape,
    ...BridgeEnvSchema.shape,
    ...DevnetSettingsSchema.shape,
    ...LauncherSettingsSchema.shape,
})

export type LauncherEnv = z.infer<typeof LauncherEnvSchema>

export function parseLauncherEnv(env: NodeJS.ProcessEnv = process.env): LauncherEnv {
    return parseEnv(LauncherEnvSchema, env)
}
