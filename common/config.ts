import * as fs from 'fs'
import * as path from 'path'
import { z } from 'zod'

/**
 * The variables every process reads; each surface declares its own beside its code and a process
 * parses these plus its surfaces' (docs/configuration.md, rendered from the schemas).
 */

declare module 'zod' {
    interface GlobalMeta {
        /** What an optional variable without a default means when it is unset (docs/configuration.md's Default column). */
        unset?: string
    }
}

export const port = z.coerce.number().int().min(1).max(65535)
export const url = z.string().url()
export const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
export const boolFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')

/** What every process reads: where the database and the native chain are, how to log, the proxies in front. */
export const SharedSettingsSchema = z.object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development')
        .describe('`production` makes the secrets ([Secrets](#secrets)) mandatory'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')
        .describe('level of every log line, Subsquid\'s included (its RPC and HTTP traffic stays at `info` unless `SQD_DEBUG` names it); lines are pino JSON with a `service` field, secrets redacted ([operations](operations.md#logs))'),
    DATA_DIR: z.string().min(1).default('.data')
        .describe('where dev data lives (Postgres, devnet state, generated secrets)'),

    DATABASE_URL: url.optional()
        .meta({ description: '`postgres://…` of the one database every service uses', unset: 'embedded Postgres' }),

    RPC_URL: url.optional()
        .meta({ description: 'JSON-RPC of the native chain; when set, nothing is started or deployed', unset: 'the devnet' }),
    CHAIN_ID: z.coerce.number().int().positive().default(3009)
        .describe('chain id of the native chain'),
    DEVNET_PORT: port.default(8545)
        .describe('port of the native devnet that `npm start` runs when `RPC_URL` is not set; the native RPC is then `http://127.0.0.1:{DEVNET_PORT}`'),

    WNATIVE_ADDRESS: address.optional()
        .meta({ description: 'WNATIVE contract, one of our four contracts, set all four or none ([own chain](own-chain.md)); without them the indexer, the chain data API and GraphQL run fully, the wallet platform\'s chain routes, the bridge and the explorer\'s DeFi routes are off, and prices are unknown', unset: 'from `.data/deployment.json` when its chain id is `CHAIN_ID`, else none' }),
    STABLE_ADDRESS: address.optional()
        .meta({ description: 'STABLE contract, the quote token of every DeFi price', unset: 'as `WNATIVE_ADDRESS`' }),
    AMM_FACTORY_ADDRESS: address.optional()
        .meta({ description: 'our AMM factory; indexed beside `DEX_FACTORIES`', unset: 'as `WNATIVE_ADDRESS`' }),
    AMM_ROUTER_ADDRESS: address.optional()
        .meta({ description: 'our AMM router', unset: 'as `WNATIVE_ADDRESS`' }),

    // Counting hops from the right keeps a client from choosing its own IP by sending the header itself.
    TRUST_PROXY: z.union([boolFlag, z.coerce.number().int().min(0).max(10)])
        .transform((v) => (v === true ? 1 : v === false ? 0 : v))
        .default(0)
        .describe('reverse proxies in front of the APIs: `false` (none), `true` (one) or a hop count; the client IP is then read from X-Forwarded-For, counting that many hops from the right'),
})

/** Where indexing starts, what it treats as final and how far behind is still ready: the indexer's settings, which the api reads too. */
export const IndexedRangeSchema = z.object({
    INDEXER_FINALITY_CONFIRMATION: z.coerce.number().int().min(1).max(1000).default(10)
        .describe('blocks behind the head treated as final (a deeper reorg stops the indexer, as in Subsquid)'),
    INDEXER_START_BLOCK: z.coerce.number().int().min(0).default(0)
        .describe('first block to index'),
    INDEXER_READY_MAX_LAG: z.coerce.number().int().min(0).default(5)
        .describe('most blocks the indexer may be behind the node\'s head while the indexer\'s and the api\'s `GET /ready` answer 200'),
})

/** Secrets several processes share; common/secrets.ts generates them in development. */
export const SecretsSchema = z.object({
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional()
        .meta({ description: 'signs explorer sessions (32+ characters)', unset: 'generated in dev' }),
    MASTER_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 32 bytes as 64 hex characters').optional()
        .meta({ description: '64 hex characters; encrypts wallet keys, bridge seeds, webhook secrets at rest', unset: 'generated in dev' }),
    BRIDGE_ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').optional()
        .meta({ description: 'bearer token of the bridge\'s webhook admin API (`npm start` passes it; a bridge started without it answers 503 there)', unset: 'generated in dev' }),
})

/** The shared variables and secrets: every process's schema extends this one with its surfaces' own. */
export const SharedEnvSchema = SharedSettingsSchema.extend(SecretsSchema.shape)

export type SharedEnv = z.infer<typeof SharedEnvSchema>

export class ConfigError extends Error {
    constructor(message: string) {
        super(message)
        this.name = 'ConfigError'
    }
}

/** A process's settings from its environment by its schema; an empty variable counts as unset. */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
    const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
    const result = schema.safeParse(cleaned)
    if (!result.success) {
        const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`)
        throw new ConfigError(`Invalid environment configuration:\n${lines.join('\n')}`)
    }
    return result.data
}

/** Contract addresses of the native chain: from env when given, else from the devnet's deployment file. */
export interface NativeContracts {
    wnative: `0x${string}`
    stable: `0x${string}`
    factory: `0x${string}`
    router: `0x${string}`
}

export interface Deployment {
    chainId: number
    contracts: NativeContracts
    /** Block of the first deployment; the indexer may start there. */
    startBlock: number
    /** Extra tokens and pairs the devnet seeded, by symbol. */
    tokens: Record<string, `0x${string}`>
    pairs: Record<string, `0x${string}`>
    /** Last block of the devnet's demo history, to tell whether a restarted chain still holds it. */
    seededThrough?: { number: number; hash: string }
}

export function dataDir(env: SharedEnv): string {
    return path.resolve(env.DATA_DIR)
}

export function deploymentFile(env: SharedEnv): string {
    return path.join(dataDir(env), 'deployment.json')
}

export function readDeployment(env: SharedEnv): Deployment | undefined {
    const file = deploymentFile(env)
    if (!fs.existsSync(file)) return undefined
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Deployment
}

/** The variables of our four contracts, set all together or not at all. */
export const OUR_CONTRACT_VARIABLES = ['WNATIVE_ADDRESS', 'STABLE_ADDRESS', 'AMM_FACTORY_ADDRESS', 'AMM_ROUTER_ADDRESS'] as const

/** What an operator reads when a surface that needs our contracts is off (docs/own-chain.md). */
export const CONTRACTS_HINT = 'set WNATIVE_ADDRESS, STABLE_ADDRESS, AMM_FACTORY_ADDRESS and AMM_ROUTER_ADDRESS (docs/own-chain.md)'

/** Thrown where a surface needs our contracts and none are configured: the surface is off, not broken. */
export class ContractsNotConfigured extends ConfigError {
    constructor(surface: string) {
        super(`${surface} is off: our contracts are not configured; ${CONTRACTS_HINT}`)
    }
}

/**
 * Our contracts (WNATIVE, STABLE, the AMM factory and router): all four from env; with none set,
 * the devnet's deployment file when it was written for this CHAIN_ID (a file left by an earlier
 * devnet must not name contracts on another chain); else undefined: a chain we did not deploy,
 * which the indexer and the chain data API serve fully (docs/own-chain.md). A partial set is a
 * mistake an operator must hear about at start, not a half-configured AMM.
 */
export function ourContracts(env: SharedEnv): NativeContracts | undefined {
    const missing = OUR_CONTRACT_VARIABLES.filter((name) => !env[name])
    if (missing.length === 0) {
        return {
            wnative: env.WNATIVE_ADDRESS as `0x${string}`,
            stable: env.STABLE_ADDRESS as `0x${string}`,
            factory: env.AMM_FACTORY_ADDRESS as `0x${string}`,
            router: env.AMM_ROUTER_ADDRESS as `0x${string}`,
        }
    }
    if (missing.length < OUR_CONTRACT_VARIABLES.length) {
        throw new ConfigError(
            `WNATIVE_ADDRESS, STABLE_ADDRESS, AMM_FACTORY_ADDRESS and AMM_ROUTER_ADDRESS must be set together or not at all (docs/own-chain.md); missing: ${missing.join(', ')}`
        )
    }
    const deployment = readDeployment(env)
    return deployment && deployment.chainId === env.CHAIN_ID ? deployment.contracts : undefined
}

/** The four variables that configure `contracts`, as ourContracts reads them back (for a child process's environment). */
export function contractsEnv(contracts: NativeContracts): Record<(typeof OUR_CONTRACT_VARIABLES)[number], string> {
    return {
        WNATIVE_ADDRESS: contracts.wnative,
        STABLE_ADDRESS: contracts.stable,
        AMM_FACTORY_ADDRESS: contracts.factory,
        AMM_ROUTER_ADDRESS: contracts.router,
    }
}

/** Our contracts, for a surface that cannot work without them (named in the error that says it is off). */
export function nativeContracts(env: SharedEnv, surface = 'this surface'): NativeContracts {
    const contracts = ourContracts(env)
    if (!contracts) throw new ContractsNotConfigured(surface)
    return contracts
}

/** The RPC endpoint of the native chain; the devnet's when RPC_URL is not set. */
export function rpcUrl(env: SharedEnv): string {
    return env.RPC_URL ?? `http://127.0.0.1:${env.DEVNET_PORT}`
}

/** An external EVM network of the bridge as the devnet tooling started it locally (DATA_DIR/bridge-chains.json). */
export interface BridgeChainRecord {
    chainId: number
    rpcUrl: string
    /** ERC-20 tokens by bridge symbol (USDT, WNATIVE). */
    tokens: Record<string, `0x${string}`>
    /** The AMM of that chain, where one was deployed (BSC: the WNATIVE/USDT pool). */
    amm?: { factory: `0x${string}`; router: `0x${string}`; wrappedCoin: `0x${string}`; pairs: Record<string, `0x${string}`> }
}

export function bridgeChainsFile(env: SharedEnv): string {
    return path.join(dataDir(env), 'bridge-chains.json')
}

/** The local bridge networks recorded by the devnet tooling, by chain name (BSC, ETHEREUM, POLYGON). */
export function readBridgeChains(env: SharedEnv): Record<string, BridgeChainRecord> {
    const file = bridgeChainsFile(env)
    if (!fs.existsSync(file)) return {}
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, BridgeChainRecord>
}
