import { z } from 'zod'

/** The chain data API's variables (docs/configuration.md). */
export const ChainApiSettingsSchema = z.object({
    CHAIN_API_ITEM_CACHE_MB: z.coerce.number().int().min(0).max(16_384).default(64)
        .describe('memory for rendered chain API list items (transactions, blocks), reused by later requests until the indexed head moves (0: render every item every time)'),
})
