import { z } from 'zod'
import { IndexedRangeSchema, ourContracts, parseEnv, port, SharedEnv, SharedEnvSchema } from '../common/config'
import { NftMetadataSettingsSchema } from './nft-metadata/config'

/** The indexer's variables (docs/configuration.md); the GraphQL server is part of this surface. */
export const IndexerSettingsSchema = IndexedRangeSchema.extend({
    INDEXER_END_BLOCK: z.coerce.number().int().min(0).optional()
        .meta({ description: 'stop after this block (a bounded backfill, as the benchmark runs)', unset: 'follows the chain' }),
    DEX_FACTORIES: z.string().regex(/^\s*0x[0-9a-fA-F]{40}\s*(,\s*0x[0-9a-fA-F]{40}\s*)*$/, 'must be 0x-prefixed 20-byte hex addresses, comma-separated')
        .transform((list) => list.split(',').map((a) => a.trim().toLowerCase()))
        .optional()
        .meta({ description: 'factories of Uniswap-V2-compatible DEXes whose pairs (`PairCreated`) and their swaps, mints, burns and syncs the indexer keeps in the DeFi tables, beside our AMM factory (`AMM_FACTORY_ADDRESS`) when that is configured ([own chain](own-chain.md#dex-factories))', unset: 'our AMM factory alone, or none' }),
    INDEXER_TRACING: z.enum(['auto', 'trace_block', 'debug_traceBlockByHash', 'none']).default('auto')
        .describe('how call trees are read; `auto` asks the node at start (see [indexer.md](indexer.md))'),
    // 5,000 rather than the allowed 10,000: commits overlap fetching, and the last batch's commit,
    // which nothing overlaps, is then shorter (measured in docs/BENCHMARKS.md).
    INDEXER_BATCH_BLOCKS: z.coerce.number().int().min(1).max(10_000).default(5_000)
        .describe('most blocks held in memory before a commit during backfill (at most 10000, the node\'s log range)'),
    INDEXER_FETCH_SPLIT: z.coerce.number().int().min(1).max(1_000).default(10)
        .describe('blocks per request while backfilling (Subsquid fixes it at 10; see [indexer.md](indexer.md#blocks-per-request))'),
    GRAPHQL_PORT: port.default(4350)
        .describe('port of the GraphQL server for analysts'),
    GRAPHQL_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(4352)
        .describe('port of the GraphQL process\'s `GET /health`, `/ready` (database and GraphQL server answering) and `/metrics` (0: any free port; see [operations.md](operations.md#health-and-readiness))'),
    // The limits below bound one GraphQL request; what each one measures: indexer.md#graphql-limits.
    GRAPHQL_MAX_RESPONSE_NODES: z.coerce.number().int().min(1).max(10_000_000).default(100_000)
        .describe('most nodes (fields × rows) a query\'s answer may hold, estimated before it runs; a list without `limit` counts its table\'s rows (see [indexer.md](indexer.md#graphql-limits))'),
    GRAPHQL_MAX_ROOT_FIELDS: z.coerce.number().int().min(1).max(1_000).default(20)
        .describe('most top-level fields in one query'),
    GRAPHQL_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000)
        .describe('milliseconds a query\'s SQL may run before Postgres cancels it'),
    GRAPHQL_MAX_REQUEST_KB: z.coerce.number().int().min(1).max(10_240).default(256)
        .describe('largest request body in KB (413 above it)'),
    GRAPHQL_DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(5)
        .describe('database connections of the GraphQL server (queries beyond it wait)'),
    INDEXER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(4351)
        .describe('port of the indexer\'s readiness endpoint, `GET /ready` (0: any free port; see [RELIABILITY.md](RELIABILITY.md#readiness))'),
    INDEXER_RPC_TIMEOUT: z.coerce.number().int().min(1).max(600).default(10)
        .describe('seconds before a request to the node is abandoned and retried (a stalled node must not hold the indexer up)'),
})

export const IndexerEnvSchema = SharedEnvSchema.extend(IndexerSettingsSchema.shape).extend(NftMetadataSettingsSchema.shape)

export type IndexerEnv = z.infer<typeof IndexerEnvSchema>

/**
 * The factories whose pairs the indexer keeps: DEX_FACTORIES and our AMM factory (when configured),
 * once each, lowercase. Ours is always among them: the platform and the explorer's DeFi figures
 * read its pairs, so leaving it out could only make them wrong.
 */
export function dexFactories(env: SharedEnv & Pick<IndexerEnv, 'DEX_FACTORIES'>): string[] {
    const ours = ourContracts(env)?.factory.toLowerCase()
    return [...new Set([...(ours ? [ours] : []), ...(env.DEX_FACTORIES ?? [])])]
}

export function parseIndexerEnv(env: NodeJS.ProcessEnv = process.env): IndexerEnv {
    return parseEnv(IndexerEnvSchema, env)
}
