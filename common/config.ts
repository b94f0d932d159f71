import * as fs from 'fs'
import * as path from 'path'
import { z } from 'zod'

/**
 * The single place where environment variables are read. Every variable is validated here, so a
 * misconfigured deployment fails at start with a message naming the variable, instead of later
 * with an obscure error from deep inside a service.
 */

const port = z.coerce.number().int().min(1).max(65535)
const url = z.string().url()
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
const finality = z.string().regex(/^(finalized|safe|[1-9]\d{0,3})$/, 'must be finalized, safe or a number of confirmations from 1')
const boolFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')

const EnvSchema = z.object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DATA_DIR: z.string().min(1).default('.data'),

    DATABASE_URL: url.optional(),
    /** Port of the embedded Postgres that `npm start` runs when DATABASE_URL is not set. */
    EMBEDDED_PG_PORT: port.default(54329),

    RPC_URL: url.optional(),
    CHAIN_ID: z.coerce.number().int().positive().default(3009),
    DEVNET_PORT: port.default(8545),
    /** Seconds between devnet blocks once the demo history is seeded; 0 mines one block per transaction. */
    DEVNET_BLOCK_TIME: z.coerce.number().int().min(0).max(60).default(2),
    DEVNET_SEED: z.string().min(1).default('evm-chain-services'),

    WNATIVE_ADDRESS: address.optional(),
    STABLE_ADDRESS: address.optional(),
    AMM_FACTORY_ADDRESS: address.optional(),
    AMM_ROUTER_ADDRESS: address.optional(),

    EXPLORER_PORT: port.default(4000),
    PLATFORM_PORT: port.default(4001),
    BRIDGE_PORT: port.default(4002),
    GRAPHQL_PORT: port.default(4350),

    /** Blocks behind the head that the indexer treats as final; deeper reorgs stop it (Subsquid semantics). */
    INDEXER_FINALITY_CONFIRMATION: z.coerce.number().int().min(1).max(1000).default(10),
    INDEXER_START_BLOCK: z.coerce.number().int().min(0).default(0),
    /** Stop after this block (a bounded backfill, as the benchmark runs); unset follows the chain. */
    INDEXER_END_BLOCK: z.coerce.number().int().min(0).optional(),
    /** Most blocks the indexer holds in memory before committing during a backfill. */
    // 5,000 rather than the allowed 10,000: commits overlap fetching, and the last batch's commit,
    // which nothing overlaps, is then shorter (measured in docs/BENCHMARKS.md).
    /** How the indexer reads call trees; auto asks the node at start (indexer/traces.ts). */
    INDEXER_TRACING: z.enum(['auto', 'trace_block', 'debug_traceBlockByHash', 'none']).default('auto'),
    INDEXER_BATCH_BLOCKS: z.coerce.number().int().min(1).max(10_000).default(5_000),

    /** Memory for rendered chain API list items (transactions, blocks), reused until the indexed head moves; 0 disables. */
    CHAIN_API_ITEM_CACHE_MB: z.coerce.number().int().min(0).max(16_384).default(64),

    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    MASTER_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 32 bytes as 64 hex characters').optional(),
    BRIDGE_ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),

    /**
     * Reverse proxies in front of the APIs whose X-Forwarded-For entries are believed: false (none),
     * true (one), or a hop count. Counting hops from the right keeps a client from choosing its own
     * IP by sending the header itself.
     */
    TRUST_PROXY: z.union([boolFlag, z.coerce.number().int().min(0).max(10)])
        .transform((v) => (v === true ? 1 : v === false ? 0 : v))
        .default(0),

    /** Wallet platform: failed password checks allowed per user_id (or wallet) within the window, then 429. */
    PLATFORM_AUTH_MAX_FAILURES: z.coerce.number().int().min(1).max(10_000).default(10),
    PLATFORM_AUTH_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
    /** Seconds a verified password is remembered in memory, sparing the argon2id cost on the next request; 0 disables. */
    PLATFORM_AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
    /** Longest wait for a transaction to be mined before the platform answers 202 with its hash. */
    PLATFORM_TX_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
    /** Router deadline of liquidity and swap transactions, from the chain's latest block time. */
    PLATFORM_DEADLINE_SECONDS: z.coerce.number().int().min(10).max(86_400).default(1200),

    /** Bridge: fee in percent of the deposited amount, charged once per swap (at most two decimals). */
    BRIDGE_FEE_PERCENT: z.string().regex(/^\d{1,2}(\.\d{1,2})?$/, 'must be a percent below 100 with at most two decimals, e.g. 2.50').default('2.50'),
    /** Bridge: how often the monitor polls every watched deposit address. */
    BRIDGE_MONITOR_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
    /** Bridge: how often the engine looks for swaps to move on (it also wakes on every event). */
    BRIDGE_WORKER_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
    /** Bridge: seconds a new swap waits for its deposit before it expires. */
    BRIDGE_DEPOSIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(7 * 86_400).default(3_600),
    /**
     * Bridge: when a deposit counts as final, per source chain: `finalized` or `safe` (the node's
     * block tags) or a number of confirmations (1 = mined).
     */
    BRIDGE_CONFIRMATIONS_NATIVECHAIN: finality.default('10'),
    BRIDGE_CONFIRMATIONS_BSC: finality.default('finalized'),
    BRIDGE_CONFIRMATIONS_ETHEREUM: finality.default('finalized'),
    BRIDGE_CONFIRMATIONS_POLYGON: finality.default('finalized'),
    /**
     * Bridge: operator-set static USD prices of assets no pool of ours quotes (`ETH=3000,POL=0.25`).
     * Unset in development and test: built-in defaults (bridge/prices.ts). Production needs this or
     * BRIDGE_PRICE_FEED_URL.
     */
    BRIDGE_REFERENCE_PRICES: z.string().regex(/^([A-Z]{2,10}=\d+(\.\d+)?)(,[A-Z]{2,10}=\d+(\.\d+)?)*$/, 'must look like ETH=3000,POL=0.25').optional(),
    /** Bridge: a CoinGecko-style simple-price endpoint polled for the reference prices (the bridge adds ?ids=…&vs_currencies=usd). */
    BRIDGE_PRICE_FEED_URL: url.optional(),
    /** Bridge: the feed's id of each price class. */
    BRIDGE_PRICE_FEED_IDS: z.string().regex(/^([A-Z]{2,10}=[a-z0-9._-]+)(,[A-Z]{2,10}=[a-z0-9._-]+)*$/, 'must look like ETH=ethereum,BTC=bitcoin')
        .default('ETH=ethereum,POL=polygon-ecosystem-token,BTC=bitcoin,TRX=tron,SOL=solana'),
    BRIDGE_PRICE_FEED_POLL_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
    /** Bridge: a fed price older than this is stale: routes needing it answer 503 and rate locks on it wait. */
    BRIDGE_PRICE_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
    /** Bridge: without min_target_amount, a swap accepts at the rate lock down to its creation quote less this percent. */
    BRIDGE_MAX_SLIPPAGE_PERCENT: z.string().regex(/^\d{1,2}(\.\d{1,2})?$/, 'must be a percent below 100 with at most two decimals, e.g. 3.00').default('3'),
    /** Bridge: swap creations allowed per client IP per window. */
    BRIDGE_CREATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(20),
    BRIDGE_CREATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    /** Bridge: swaps one client IP may have waiting for a deposit at once (each is an address the monitor reads every cycle). */
    BRIDGE_MAX_PENDING_PER_IP: z.coerce.number().int().min(1).max(100_000).default(50),
    /** Bridge: days the deposit address of an ended swap (completed, failed, expired) stays watched for late deposits, which are refunded. */
    BRIDGE_LATE_DEPOSIT_WATCH_DAYS: z.coerce.number().min(0).max(365).default(7),
    /** Bridge: a WebSocket that sends nothing (not even a ping) for this long is closed. */
    BRIDGE_WS_IDLE_SECONDS: z.coerce.number().int().min(5).max(3_600).default(60),
    /**
     * Bridge: how far below the locked amount a route's pool trade may deliver (the pool moved since
     * the rate was locked) with the vault covering the shortfall; the router's amountOutMin. Beyond
     * it the trade is not made (or reverts) and the swap fails and is refunded.
     */
    BRIDGE_POOL_TOLERANCE_PERCENT: z.string().regex(/^\d{1,2}(\.\d{1,2})?$/, 'must be a percent below 100 with at most two decimals, e.g. 1.00').default('1.00'),
    /** Bridge: attempts at a refund that cannot be sent (e.g. the vault lacks gas) before an operator must act. */
    BRIDGE_REFUND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
    /** Bridge: delay before the second refund attempt; it doubles with each attempt, capped at an hour. */
    BRIDGE_REFUND_RETRY_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
    // Longest wait for one JSON-RPC answer of an EVM network before it counts as no answer (retried once, then the step waits).
    BRIDGE_RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    /** Bridge webhooks: deliver to loopback, private and other non-public addresses too (tests and local development only). */
    BRIDGE_WEBHOOK_ALLOW_PRIVATE: boolFlag.default(false),
    /** Bridge webhooks: multiplies every webhook delay (retry schedule and cap, Retry-After, auto-disable window, secret grace); below 1 only for tests and benchmarks. */
    BRIDGE_WEBHOOK_TIME_SCALE: z.coerce.number().positive().max(1).default(1),
    /** Bridge webhooks: a subscription is disabled once every attempt has failed for this long and ... */
    BRIDGE_WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().positive().max(8760).default(24),
    /** ... at least this many consecutive events went undelivered (all attempts used). */
    BRIDGE_WEBHOOK_DISABLE_AFTER_EVENTS: z.coerce.number().int().min(1).max(100_000).default(10),
    /** Bridge webhooks: delivery attempts in flight at once per bridge process. */
    BRIDGE_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
    /** Bridge: the external EVM networks. A network without an RPC URL (and no local devnet record) is not enabled. */
    BSC_RPC_URL: url.optional(),
    ETHEREUM_RPC_URL: url.optional(),
    POLYGON_RPC_URL: url.optional(),
    BSC_USDT_ADDRESS: address.optional(),
    BSC_WNATIVE_ADDRESS: address.optional(),
    /** Factory of the AMM holding the BSC WNATIVE/USDT pool (Uniswap V2 interface). */
    BSC_AMM_FACTORY_ADDRESS: address.optional(),
    /** Router of that AMM: the bridge trades a route's pool leg through it. */
    BSC_AMM_ROUTER_ADDRESS: address.optional(),
    ETHEREUM_USDT_ADDRESS: address.optional(),
    POLYGON_USDT_ADDRESS: address.optional(),
    /**
     * Bridge: BITCOIN (bridge/chains/bitcoin/config.ts says what each means). Enabled when an
     * Esplora URL or a Bitcoin Core RPC URL is set; the adapter validates the rest.
     */
    BITCOIN_NETWORK: z.enum(['mainnet', 'testnet', 'regtest']).optional(),
    BITCOIN_ESPLORA_URL: url.optional(),
    BITCOIN_RPC_URL: url.optional(),
    BITCOIN_RPC_USER: z.string().optional(),
    BITCOIN_RPC_PASSWORD: z.string().optional(),
    BITCOIN_RPC_WALLET: z.string().optional(),
    BRIDGE_CONFIRMATIONS_BITCOIN: z.string().regex(/^[1-9]\d{0,3}$/, 'must be a number of confirmations').optional(),
    BITCOIN_CONFIRMATION_TIERS: z.string().optional(),
    BITCOIN_FEE_TARGET_BLOCKS: z.string().optional(),
    BITCOIN_FALLBACK_FEE_RATE: z.string().optional(),
    BITCOIN_MAX_FEE_RATE: z.string().optional(),
    /** Bridge: SOLANA (bridge/chains/solana/config.ts). Enabled when SOLANA_RPC_URL is set. */
    SOLANA_RPC_URL: url.optional(),
    BRIDGE_CONFIRMATIONS_SOLANA: z.enum(['finalized', 'confirmed']).optional(),
    SOLANA_SEND_COMMITMENT: z.enum(['finalized', 'confirmed']).optional(),
    SOLANA_MAX_SCAN_SLOTS: z.string().regex(/^\d+$/, 'must be a number of slots').optional(),
    /** Bridge: TRON (bridge/chains/tron/config.ts). Enabled when TRON_API_URL is set. */
    TRON_API_URL: url.optional(),
    TRON_API_KEY: z.string().optional(),
    BRIDGE_CONFIRMATIONS_TRON: z.string().regex(/^(solidified|finalized|[1-9]\d{0,3})$/, 'must be solidified or a number of blocks').optional(),
    TRON_USDT_CONTRACT: z.string().optional(),
    TRON_FEE_LIMIT_SUN: z.string().regex(/^\d+$/, 'must be a whole number of sun').optional(),
    TRON_MAX_SCAN_BLOCKS: z.string().regex(/^\d+$/, 'must be a number of blocks').optional(),
    /** Bridge: the external swap provider (SimpleSwap v3). Without a key the routes that need it answer 503. */
    SIMPLESWAP_API_KEY: z.string().optional(),
    SIMPLESWAP_API_URL: url.optional(),
    /** Bridge: assets served through the provider rather than our vaults, and the asset of ours it converts them to (bridge/providers/routing.ts). */
    BRIDGE_PROVIDER_ASSETS: z.string().optional(),
    BRIDGE_PROVIDER_VIA: z.string().optional(),
    /** Bridge: seconds between two polls of a running provider exchange. */
    BRIDGE_PROVIDER_POLL_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
    /** Ports of the local BSC, ETHEREUM and POLYGON anvils that `npm start` runs when their RPC URL is not set. */
    BSC_DEVNET_PORT: port.default(8546),
    ETHEREUM_DEVNET_PORT: port.default(8547),
    POLYGON_DEVNET_PORT: port.default(8548),

    /** Outgoing mail of the explorer services API (smtp:// or smtps://, credentials in the URL); unset in dev writes mail to DATA_DIR/mail. */
    SMTP_URL: z.string().regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL').optional(),
    MAIL_FROM: z.string().min(3).default('Explorer <no-reply@localhost>'),
    /** Public base of the explorer services API as users reach it (ends in /api), for links in mail. */
    PUBLIC_URL: url.optional(),
    /** Page of the explorer frontend that finishes a password reset; the token is appended as ?token=. */
    PASSWORD_RESET_URL: url.optional(),
})

export type Env = z.infer<typeof EnvSchema>

export class ConfigError extends Error {
    constructor(message: string) {
        super(message)
        this.name = 'ConfigError'
    }
}

export function parseEnv(env: NodeJS.ProcessEnv = process.env): Env {
    const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
    const result = EnvSchema.safeParse(cleaned)
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

export function dataDir(env: Env): string {
    return path.resolve(env.DATA_DIR)
}

export function deploymentFile(env: Env): string {
    return path.join(dataDir(env), 'deployment.json')
}

export function readDeployment(env: Env): Deployment | undefined {
    const file = deploymentFile(env)
    if (!fs.existsSync(file)) return undefined
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Deployment
}

export function nativeContracts(env: Env): NativeContracts {
    const fromEnv = [env.WNATIVE_ADDRESS, env.STABLE_ADDRESS, env.AMM_FACTORY_ADDRESS, env.AMM_ROUTER_ADDRESS]
    if (fromEnv.every(Boolean)) {
        return {
            wnative: env.WNATIVE_ADDRESS as `0x${string}`,
            stable: env.STABLE_ADDRESS as `0x${string}`,
            factory: env.AMM_FACTORY_ADDRESS as `0x${string}`,
            router: env.AMM_ROUTER_ADDRESS as `0x${string}`,
        }
    }
    if (fromEnv.some(Boolean)) {
        throw new ConfigError(
            'WNATIVE_ADDRESS, STABLE_ADDRESS, AMM_FACTORY_ADDRESS and AMM_ROUTER_ADDRESS must be set together'
        )
    }
    const deployment = readDeployment(env)
    if (!deployment) {
        throw new ConfigError(
            `No contract addresses: set WNATIVE_ADDRESS, STABLE_ADDRESS, AMM_FACTORY_ADDRESS and AMM_ROUTER_ADDRESS, ` +
                `or run the devnet (npm start) so that ${deploymentFile(env)} exists`
        )
    }
    return deployment.contracts
}

/** The RPC endpoint of the native chain; the devnet's when RPC_URL is not set. */
export function rpcUrl(env: Env): string {
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

export function bridgeChainsFile(env: Env): string {
    return path.join(dataDir(env), 'bridge-chains.json')
}

/** The local bridge networks recorded by the devnet tooling, by chain name (BSC, ETHEREUM, POLYGON). */
export function readBridgeChains(env: Env): Record<string, BridgeChainRecord> {
    const file = bridgeChainsFile(env)
    if (!fs.existsSync(file)) return {}
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, BridgeChainRecord>
}
