import { z } from 'zod'

/** The chain data API's variables (docs/configuration.md). */
export const ChainApiSettingsSchema = z.object({
    CHAIN_API_ITEM_CACHE_MB: z.coerce.number().int().min(0).max(16_384).default(64)
        .describe('memory for rendered chain API list items (transactions, blocks), reused by later requests until the indexed head moves (0: render every item every time)'),
    CHAIN_API_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000)
        .describe('longest a database statement of the chain data API (/api/v2, its socket) and the explorer DeFi routes may run before Postgres cancels it; the request answers 503'),
    CHAIN_API_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10)
        .describe('database connections of the chain data API (/api/v2 and its socket), apart from those of the other surfaces'),
    ETHERSCAN_API_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000)
        .describe('longest a database statement of the Etherscan-style API (GET /api?module=...) may run before Postgres cancels it; the request answers 503 "Query Timeout occured"'),
    CHAIN_API_VALIDATIONS_COUNT_CAP: z.coerce.number().int().min(1).max(100_000_000).default(100_000)
        .describe('most blocks counted for an address\'s validations_count (/api/v2/addresses/{hash}/counters); an address that mined more is answered with this number'),
    CHAIN_API_TOKEN_BALANCES_MAX: z.coerce.number().int().min(1).max(100_000).default(500)
        .describe('most entries of /api/v2/addresses/{hash}/token-balances (a plain array, as Blockscout answers it): the largest balances first'),
})
