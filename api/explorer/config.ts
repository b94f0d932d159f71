import { z } from 'zod'
import { port, SharedEnv, url } from '../../common/config'

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
})

export type ExplorerEnv = SharedEnv & z.infer<typeof ExplorerSettingsSchema>
