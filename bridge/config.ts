import { getAddress } from 'viem'
import { z } from 'zod'
import { address, boolFlag, ourContracts, parseEnv, port, readBridgeChains, rpcUrl, SharedEnvSchema, url } from '../common/config'
import { WsLimits } from '../common/service/ws-hub'
import { BitcoinConfig, BitcoinSettingsSchema, parseBitcoinEnv } from './chains/bitcoin/config'
import { Finality } from './chains/finality'
import { finalityOf, parseSolanaEnv, SolanaConfig, SolanaSettingsSchema } from './chains/solana/config'
import { parseTronEnv, TronConfig, TronSettingsSchema } from './chains/tron/config'
import { ExplorerLinks, explorerSetting, parseExplorer } from './explorers'
import { DEFAULT_STATIC_PRICES, parsePriceSource, PriceSourceConfig } from './prices'
import { SIMPLESWAP_DEFAULT_URL } from './providers/simpleswap/client'
import { ProviderRoutingConfig, parseProviderRouting } from './providers/routing'
import { ChainName, CHAIN_NAMES, CHAINS, Family, TokenSpec } from './registry'

/**
 * The bridge's runtime configuration, resolved once at start from the environment (and, in
 * development, from the devnet records in DATA_DIR: deployment.json for the native chain,
 * bridge-chains.json for the local BSC, ETHEREUM and POLYGON).
 */

const finalitySetting = z.string().regex(/^(finalized|safe|[1-9]\d{0,3})$/, 'must be finalized, safe or a number of confirmations from 1')
const percentSetting = (example: string) => z.string().regex(/^\d{1,2}(\.\d{1,2})?$/, `must be a percent below 100 with at most two decimals, e.g. ${example}`)
const fromLocalChains = 'the local chains\''

/** The bridge's own variables and those of its EVM networks and swap provider (docs/configuration.md). */
export const BridgeSettingsSchema = z.object({
    BRIDGE_PORT: port.default(4002)
        .describe('HTTP and WebSocket'),
    BRIDGE_FEE_PERCENT: percentSetting('2.50').default('2.50')
        .describe('fee in percent of the deposited amount, charged once per swap (at most two decimals)'),
    BRIDGE_MONITOR_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(20_000)
        .describe('how often the monitor polls every watched deposit address'),
    BRIDGE_WORKER_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000)
        .describe('how often the engine looks for swaps to move on (it also wakes on every event)'),
    BRIDGE_DEPOSIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(7 * 86_400).default(3_600)
        .describe('how long a new swap waits for its deposit before it expires (from creation to `expires_at`)'),
    BRIDGE_CONFIRMATIONS_NATIVECHAIN: finalitySetting.default('10')
        .describe('`finalized` or `safe` (the node\'s block tags) or a number of confirmations (1 = mined): when a deposit, and the bridge\'s own payouts, refunds and pool trades, count as final on the chain'),
    BRIDGE_CONFIRMATIONS_BSC: finalitySetting.default('finalized')
        .describe('the same for BSC'),
    BRIDGE_CONFIRMATIONS_ETHEREUM: finalitySetting.default('finalized')
        .describe('the same for ETHEREUM'),
    BRIDGE_CONFIRMATIONS_POLYGON: finalitySetting.default('finalized')
        .describe('the same for POLYGON'),
    BRIDGE_REFERENCE_PRICES: z.string().regex(/^([A-Z]{2,10}=\d+(\.\d+)?)(,[A-Z]{2,10}=\d+(\.\d+)?)*$/, 'must look like ETH=3000,POL=0.25').optional()
        .meta({ description: 'operator-set static USD prices of assets no pool of ours quotes (`ETH=3000,POL=0.25`); production needs this or `BRIDGE_PRICE_FEED_URL` (not both)', unset: `development and test: \`${DEFAULT_STATIC_PRICES}\`` }),
    BRIDGE_PRICE_FEED_URL: url.optional()
        .describe('a CoinGecko-style simple-price endpoint (e.g. `https://api.coingecko.com/api/v3/simple/price`, a key as a query parameter), polled for the reference prices; the bridge adds `ids` and `vs_currencies=usd`'),
    BRIDGE_PRICE_FEED_IDS: z.string().regex(/^([A-Z]{2,10}=[a-z0-9._-]+)(,[A-Z]{2,10}=[a-z0-9._-]+)*$/, 'must look like ETH=ethereum,BTC=bitcoin')
        .default('ETH=ethereum,POL=polygon-ecosystem-token,BTC=bitcoin,TRX=tron,SOL=solana')
        .describe('the feed\'s id of each price class; a class not listed has no price (its routes do not exist)'),
    BRIDGE_PRICE_FEED_POLL_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60)
        .describe('how often the feed is asked (each request bounded to 5 s); below `BRIDGE_PRICE_MAX_AGE_SECONDS`'),
    BRIDGE_PRICE_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300)
        .describe('a fed price older than this is stale: routes needing it answer 503 and rate locks on it wait'),
    BRIDGE_MAX_SLIPPAGE_PERCENT: percentSetting('3.00').default('3')
        .describe('without `min_target_amount`, a swap accepts at the rate lock down to its creation quote less this percent (two decimals at most)'),
    BRIDGE_MIN_TARGET_ABOVE_QUOTE_PERCENT: percentSetting('3.00').default('3')
        .describe('how far above the creation quote a `min_target_amount` may be; a higher one is refused at creation (400 naming the field), since it could only fail the swap at the rate lock after the deposit'),
    BRIDGE_CREATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(20)
        .describe('swap creations allowed per client IP per window'),
    BRIDGE_CREATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60)
        .describe('the window of `BRIDGE_CREATE_LIMIT`'),
    BRIDGE_QUOTE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(120)
        .describe('`GET /api/swap/quote` requests allowed per client IP per window (each asks the nodes for reserves, fees and the vault balance)'),
    BRIDGE_QUOTE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60)
        .describe('the window of `BRIDGE_QUOTE_LIMIT`'),
    BRIDGE_LIST_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(120)
        .describe('`GET /api/swaps` requests allowed per client IP per window: enough to page through a wallet\'s history, not to crawl every address'),
    BRIDGE_LIST_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60)
        .describe('the window of `BRIDGE_LIST_LIMIT`'),
    BRIDGE_MAX_PENDING_PER_IP: z.coerce.number().int().min(1).max(100_000).default(50)
        .describe('swaps one client IP may have waiting for a deposit at once (each is an address the monitor reads every cycle); beyond it `POST /api/swap` answers 429 `too_many_pending_swaps`'),
    BRIDGE_LATE_DEPOSIT_WATCH_DAYS: z.coerce.number().min(0).max(365).default(7)
        .describe('days the deposit address of an ended swap (completed, failed, expired) stays watched for late deposits, which are refunded (or held for an operator), extra deposits that arrived while the swap was active included; 0 turns the watch off, and those are then left at the address for an operator'),
    BRIDGE_WS_IDLE_SECONDS: z.coerce.number().int().min(5).max(3_600).default(60)
        .describe('a WebSocket that sends nothing (not even a ping) for this long is closed'),
    BRIDGE_WS_MAX_TOPICS: z.coerce.number().int().min(1).max(10_000).default(200)
        .describe('subscriptions one WebSocket may hold; the next is answered `{"type":"error"}`'),
    BRIDGE_WS_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(20)
        .describe('WebSockets open at once from one client IP (see `TRUST_PROXY`); the next upgrade is answered HTTP 429'),
    BRIDGE_WS_MESSAGES_PER_SECOND: z.coerce.number().positive().max(10_000).default(10)
        .describe('messages a WebSocket may send per second on average; one sending faster is closed with code 1008'),
    BRIDGE_WS_MESSAGE_BURST: z.coerce.number().int().min(1).max(100_000).default(200)
        .describe('messages a WebSocket may send at once above that rate (subscribing to many swaps together)'),
    BRIDGE_WS_SEND_BUFFER_KB: z.coerce.number().int().min(1).max(1_048_576).default(1024)
        .describe('data queued for a WebSocket that does not read, beyond which it is closed with code 4008'),
    BRIDGE_POOL_TOLERANCE_PERCENT: percentSetting('1.00').default('1.00')
        .describe('how far below the locked amount a route\'s pool trade may deliver (the pool moved since the rate was locked), the vault covering the shortfall; the router\'s `amountOutMin`. Beyond it the trade is not made (or reverts) and the swap fails and is refunded'),
    BRIDGE_REFUND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8)
        .describe('attempts at a refund that cannot be sent (e.g. the vault lacks gas) before an operator must act'),
    BRIDGE_REFUND_RETRY_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30)
        .describe('delay before the second refund attempt; it doubles with each attempt, capped at an hour'),
    BRIDGE_MAX_FEE_GWEI: z.coerce.number().int().min(1).max(100_000).default(1_000)
        .describe('the highest fee cap (gwei) the sender signs a replacement of a stuck EVM transaction with (docs/sending.md, fee bump); a transaction that would need more keeps its nonce and waits, and the error log says so'),
    BRIDGE_LEDGER_GUARD_WINDOW: z.coerce.number().int().min(1).max(200).default(50)
        .describe('BITCOIN, TRON and SOLANA vaults: how many of the newest transactions the node lists for the vault the ledger guard compares with the ledger before the vault signs (docs/bridge/lifecycle.md#vault-holds); a send from the vault the ledger does not know among them holds the vault'),
    BRIDGE_RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000)
        .describe('longest wait for one JSON-RPC answer from an EVM network (BSC, ETHEREUM, POLYGON, the native chain); a request is retried once, then the step waits for the next pass'),

    BRIDGE_EXPLORER_URL_NATIVECHAIN: explorerSetting.optional()
        .meta({ description: 'block explorer of the native chain (this platform\'s explorer frontend, e.g. `https://explorer.example.org`): the swap page links its transactions as `<url>/tx/{hash}` and addresses as `<url>/address/{address}`; or two templates separated by a space, the first with `{hash}`, the second with `{address}`', unset: 'no links: hashes and addresses shown as text' }),
    BRIDGE_EXPLORER_URL_BSC: explorerSetting.optional()
        .meta({ description: 'the same for BSC (e.g. `https://bscscan.com`)', unset: 'no links' }),
    BRIDGE_EXPLORER_URL_ETHEREUM: explorerSetting.optional()
        .meta({ description: 'the same for ETHEREUM (e.g. `https://etherscan.io`)', unset: 'no links' }),
    BRIDGE_EXPLORER_URL_POLYGON: explorerSetting.optional()
        .meta({ description: 'the same for POLYGON (e.g. `https://polygonscan.com`)', unset: 'no links' }),
    BRIDGE_EXPLORER_URL_BITCOIN: explorerSetting.optional()
        .meta({ description: 'the same for BITCOIN (e.g. `https://mempool.space`)', unset: 'no links' }),
    BRIDGE_EXPLORER_URL_TRON: explorerSetting.optional()
        .meta({ description: 'the same for TRON (e.g. `https://tronscan.org/#/transaction/{hash} https://tronscan.org/#/address/{address}`)', unset: 'no links' }),
    BRIDGE_EXPLORER_URL_SOLANA: explorerSetting.optional()
        .meta({ description: 'the same for SOLANA (e.g. `https://explorer.solana.com`)', unset: 'no links' }),

    BSC_RPC_URL: url.optional()
        .meta({ description: 'JSON-RPC of BSC; unset and no local chain: the network is not enabled', unset: 'the local chain' }),
    ETHEREUM_RPC_URL: url.optional()
        .meta({ description: 'JSON-RPC of ETHEREUM, as `BSC_RPC_URL`', unset: 'the local chain' }),
    POLYGON_RPC_URL: url.optional()
        .meta({ description: 'JSON-RPC of POLYGON, as `BSC_RPC_URL`', unset: 'the local chain' }),
    BSC_USDT_ADDRESS: address.optional()
        .meta({ description: 'USDT contract on BSC; a token without a contract address is not enabled', unset: fromLocalChains }),
    BSC_WNATIVE_ADDRESS: address.optional()
        .meta({ description: 'the bridged WNATIVE token on BSC', unset: fromLocalChains }),
    BSC_AMM_FACTORY_ADDRESS: address.optional()
        .meta({ description: 'factory of the AMM holding the BSC WNATIVE/USDT pool (Uniswap V2 interface); without it and the router the pool is not configured', unset: fromLocalChains }),
    BSC_AMM_ROUTER_ADDRESS: address.optional()
        .meta({ description: 'router of that AMM: the bridge trades a route\'s pool leg through it', unset: fromLocalChains }),
    ETHEREUM_USDT_ADDRESS: address.optional()
        .meta({ description: 'USDT contract on ETHEREUM', unset: fromLocalChains }),
    POLYGON_USDT_ADDRESS: address.optional()
        .meta({ description: 'USDT contract on POLYGON', unset: fromLocalChains }),

    SIMPLESWAP_API_KEY: z.string().optional()
        .describe('key of the external swap provider (SimpleSwap v3); without it the routes that need the provider answer 503'),
    SIMPLESWAP_API_URL: url.optional()
        .meta({ description: 'base URL of the provider\'s API', unset: `\`${SIMPLESWAP_DEFAULT_URL}\`` }),
    BRIDGE_PROVIDER_ASSETS: z.string().optional()
        .meta({ description: 'assets served through the provider rather than our vaults, `CHAIN:SYMBOL,…` (bridge/providers/routing.ts)', unset: '`BITCOIN:BTC`' }),
    BRIDGE_PROVIDER_VIA: z.string().optional()
        .meta({ description: 'the asset of ours the provider converts them to and from', unset: '`BSC:USDT`' }),
    BRIDGE_PROVIDER_POLL_SECONDS: z.coerce.number().int().min(1).max(3600).default(15)
        .describe('seconds between two polls of a running provider exchange'),
})

/** Webhook delivery (docs/bridge/webhooks.md). */
export const BridgeWebhookSettingsSchema = z.object({
    BRIDGE_WEBHOOK_ALLOW_PRIVATE: boolFlag.default(false)
        .describe('deliver to loopback, private and other non-public addresses too (tests and local development only)'),
    BRIDGE_WEBHOOK_TIME_SCALE: z.coerce.number().positive().max(1).default(1)
        .describe('multiplies every webhook delay (retry schedule and cap, Retry-After, auto-disable window, secret grace); below 1 only for tests and benchmarks (tests run at 0.0005). Not the 10 s timeout'),
    BRIDGE_WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().positive().max(8760).default(24)
        .describe('auto-disable: a subscription is disabled once every attempt has failed for this long and ...'),
    BRIDGE_WEBHOOK_DISABLE_AFTER_EVENTS: z.coerce.number().int().min(1).max(100_000).default(10)
        .describe('... at least this many consecutive events went undelivered (all attempts used)'),
    BRIDGE_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50)
        .describe('delivery attempts in flight at once per bridge process'),
})

/** What the bridge process reads: the shared variables, its own, and its networks'. */
export const BridgeEnvSchema = SharedEnvSchema.extend({
    ...BridgeSettingsSchema.shape,
    ...BridgeWebhookSettingsSchema.shape,
    ...BitcoinSettingsSchema.shape,
    ...SolanaSettingsSchema.shape,
    ...TronSettingsSchema.shape,
})

export type BridgeEnv = z.infer<typeof BridgeEnvSchema>

export function parseBridgeEnv(env: NodeJS.ProcessEnv = process.env): BridgeEnv {
    return parseEnv(BridgeEnvSchema, env)
}

interface BaseNetworkConfig {
    chain: ChainName
    family: Family
    finality: Finality
    /** Contract address of each token of the chain (coins have none); a token without one is disabled. */
    tokens: Record<string, string>
}

export interface EvmNetworkConfig extends BaseNetworkConfig {
    family: 'evm'
    chainId: number
    rpcUrl: string
    /** Longest wait for one JSON-RPC answer (BRIDGE_RPC_TIMEOUT_MS). */
    rpcTimeoutMs: number
    /** The highest fee cap of a replacement, in wei (BRIDGE_MAX_FEE_GWEI). */
    maxFeePerGas: bigint
    tokens: Record<string, `0x${string}`>
}

/** The non-EVM networks carry their adapter's own settings (read by bridge/chains/<family>/config.ts). */
export interface BitcoinNetworkConfig extends BaseNetworkConfig {
    family: 'bitcoin'
    settings: BitcoinConfig
}

export interface SolanaNetworkConfig extends BaseNetworkConfig {
    family: 'solana'
    settings: SolanaConfig
}

export interface TronNetworkConfig extends BaseNetworkConfig {
    family: 'tron'
    settings: TronConfig
}

export type NetworkConfig = EvmNetworkConfig | BitcoinNetworkConfig | SolanaNetworkConfig | TronNetworkConfig

/** One of our AMM pools (Uniswap V2 interface): the rate engine prices with it, the engine trades on it. */
export interface PoolConfig {
    id: string
    chain: ChainName
    factory: `0x${string}`
    /** Where the vault trades a route's pool leg. */
    router: `0x${string}`
    /**
     * The pool's two tokens: base is NATIVE-class, quote is USD-class. `coin` names the chain's own
     * coin when the pool's token is its wrapped form (the native chain's WNATIVE is the router's
     * WETH): the vault holds the coin and trades it through the router's …ETH… methods.
     */
    base: { symbol: string; address: `0x${string}`; decimals: number; coin?: string }
    quote: { symbol: string; address: `0x${string}`; decimals: number; coin?: string }
}

export interface BridgeConfig {
    feeBps: number
    feePercent: string
    monitorIntervalMs: number
    workerIntervalMs: number
    depositWindowSeconds: number
    wsIdleSeconds: number
    wsLimits: WsLimits
    createLimit: { points: number; windowSeconds: number }
    quoteLimit: { points: number; windowSeconds: number }
    listLimit: { points: number; windowSeconds: number }
    /** Where the USD prices of assets no pool of ours quotes come from (bridge/prices.ts). */
    prices: PriceSourceConfig
    /** Basis points below the creation quote a swap accepts at the rate lock when it set no min_target_amount. */
    maxSlippageBps: number
    /** Basis points above the creation quote a min_target_amount may ask (BRIDGE_MIN_TARGET_ABOVE_QUOTE_PERCENT). */
    minTargetAboveQuoteBps: number
    /** Swaps waiting for a deposit one client IP may hold at once (BRIDGE_MAX_PENDING_PER_IP). */
    maxPendingPerIp: number
    /** Days an ended swap's deposit address stays watched for late deposits (BRIDGE_LATE_DEPOSIT_WATCH_DAYS). */
    lateDepositWatchDays: number
    /** Enabled networks only. */
    networks: Partial<Record<ChainName, NetworkConfig>>
    pools: PoolConfig[]
    /** Basis points of a pool leg's locked output the vault may cover when the pool moved (BRIDGE_POOL_TOLERANCE_PERCENT). */
    poolToleranceBps: number
    refund: { maxAttempts: number; retrySeconds: number }
    /** Newest transactions of a BITCOIN, TRON or SOLANA vault the ledger guard reads (BRIDGE_LEDGER_GUARD_WINDOW). */
    ledgerGuardWindow: number
    /** Which assets the external swap provider serves, and through which of ours (bridge/providers/routing.ts). */
    provider: ProviderRoutingConfig
    webhooks: WebhookConfig
    /** Block explorer links per network, for the swap page (BRIDGE_EXPLORER_URL_<CHAIN>); a network without one has no links. */
    explorers: Partial<Record<ChainName, ExplorerLinks>>
}

/** Webhook delivery settings (docs/bridge/webhooks.md). */
export interface WebhookConfig {
    allowPrivateTargets: boolean
    /** Multiplies every webhook delay; 1 in production. */
    timeScale: number
    disableAfterMs: number
    disableAfterEvents: number
    concurrency: number
}

function parseFinality(value: string): Finality {
    return value === 'finalized' || value === 'safe' ? { tag: value } : { confirmations: Number(value) }
}

function percentToBps(percent: string): number {
    const [whole, fraction = ''] = percent.split('.')
    return Number(whole) * 100 + Number(fraction.padEnd(2, '0'))
}

export function loadBridgeConfig(env: BridgeEnv): BridgeConfig {
    const local = readBridgeChains(env)
    // Without our contracts main.ts does not get here (the bridge is off: http/off.ts); a
    // configuration built anyway (tests, docs) leaves STABLE and the native pool out.
    const native = ourContracts(env)
    const rpc: Record<string, string | undefined> = {
        NATIVECHAIN: rpcUrl(env),
        BSC: env.BSC_RPC_URL ?? local.BSC?.rpcUrl,
        ETHEREUM: env.ETHEREUM_RPC_URL ?? local.ETHEREUM?.rpcUrl,
        POLYGON: env.POLYGON_RPC_URL ?? local.POLYGON?.rpcUrl,
    }
    // Token addresses from env win; the local devnet record fills in only for its own (local) RPC.
    const fromLocal = (chain: string, symbol: string) =>
        rpc[chain] && rpc[chain] === local[chain]?.rpcUrl ? local[chain]?.tokens[symbol] : undefined
    const tokenAddresses: Record<string, Record<string, string | undefined>> = {
        NATIVECHAIN: { STABLE: native?.stable },
        BSC: { USDT: env.BSC_USDT_ADDRESS ?? fromLocal('BSC', 'USDT'), WNATIVE: env.BSC_WNATIVE_ADDRESS ?? fromLocal('BSC', 'WNATIVE') },
        ETHEREUM: { USDT: env.ETHEREUM_USDT_ADDRESS ?? fromLocal('ETHEREUM', 'USDT') },
        POLYGON: { USDT: env.POLYGON_USDT_ADDRESS ?? fromLocal('POLYGON', 'USDT') },
    }
    const finality: Record<string, string> = {
        NATIVECHAIN: env.BRIDGE_CONFIRMATIONS_NATIVECHAIN,
        BSC: env.BRIDGE_CONFIRMATIONS_BSC,
        ETHEREUM: env.BRIDGE_CONFIRMATIONS_ETHEREUM,
        POLYGON: env.BRIDGE_CONFIRMATIONS_POLYGON,
    }
    const networks: BridgeConfig['networks'] = {}
    for (const spec of CHAINS) {
        if (spec.family !== 'evm' || !rpc[spec.name]) continue
        const tokens: Record<string, `0x${string}`> = {}
        for (const [symbol, address] of Object.entries(tokenAddresses[spec.name] ?? {})) {
            if (address) tokens[symbol] = getAddress(address)
        }
        networks[spec.name] = {
            chain: spec.name,
            family: spec.family,
            chainId: spec.name === 'NATIVECHAIN' ? env.CHAIN_ID : spec.chainId!,
            rpcUrl: rpc[spec.name]!,
            rpcTimeoutMs: env.BRIDGE_RPC_TIMEOUT_MS,
            maxFeePerGas: BigInt(env.BRIDGE_MAX_FEE_GWEI) * 1_000_000_000n,
            finality: parseFinality(finality[spec.name]),
            tokens,
        }
    }
    const bitcoin = parseBitcoinEnv(env)
    if (bitcoin) networks.BITCOIN = { chain: 'BITCOIN', family: 'bitcoin', finality: bitcoin.finality, tokens: {}, settings: bitcoin }
    const solana = parseSolanaEnv(env)
    if (solana) networks.SOLANA = { chain: 'SOLANA', family: 'solana', finality: finalityOf(solana.commitment), tokens: {}, settings: solana }
    const tron = parseTronEnv(env)
    if (tron) networks.TRON = { chain: 'TRON', family: 'tron', finality: tron.finality, tokens: { USDT: tron.usdtContract }, settings: tron }
    const pools: PoolConfig[] = []
    if (native) {
        pools.push({
            id: 'nativechain-wnative-stable',
            chain: 'NATIVECHAIN',
            factory: getAddress(native.factory),
            router: getAddress(native.router),
            base: { symbol: 'WNATIVE', address: getAddress(native.wnative), decimals: 18, coin: 'NATIVE' },
            quote: { symbol: 'STABLE', address: getAddress(native.stable), decimals: 6 },
        })
    }
    const bscFactory = env.BSC_AMM_FACTORY_ADDRESS ?? (rpc.BSC === local.BSC?.rpcUrl ? local.BSC?.amm?.factory : undefined)
    const bscRouter = env.BSC_AMM_ROUTER_ADDRESS ?? (rpc.BSC === local.BSC?.rpcUrl ? local.BSC?.amm?.router : undefined)
    const bsc = networks.BSC?.family === 'evm' ? networks.BSC : undefined
    // A pool the vault cannot trade on cannot back a route: without its router it is not configured.
    if (bsc && bscFactory && bscRouter && bsc.tokens.WNATIVE && bsc.tokens.USDT) {
        pools.push({
            id: 'bsc-wnative-usdt',
            chain: 'BSC',
            factory: getAddress(bscFactory),
            router: getAddress(bscRouter),
            base: { symbol: 'WNATIVE', address: bsc.tokens.WNATIVE, decimals: 18 },
            quote: { symbol: 'USDT', address: bsc.tokens.USDT, decimals: 18 },
        })
    }
    return {
        feeBps: percentToBps(env.BRIDGE_FEE_PERCENT),
        feePercent: (percentToBps(env.BRIDGE_FEE_PERCENT) / 100).toFixed(2),
        monitorIntervalMs: env.BRIDGE_MONITOR_INTERVAL_MS,
        workerIntervalMs: env.BRIDGE_WORKER_INTERVAL_MS,
        depositWindowSeconds: env.BRIDGE_DEPOSIT_WINDOW_SECONDS,
        wsIdleSeconds: env.BRIDGE_WS_IDLE_SECONDS,
        wsLimits: {
            maxTopics: env.BRIDGE_WS_MAX_TOPICS,
            maxConnectionsPerIp: env.BRIDGE_WS_MAX_CONNECTIONS_PER_IP,
            messages: { perSecond: env.BRIDGE_WS_MESSAGES_PER_SECOND, burst: env.BRIDGE_WS_MESSAGE_BURST },
            maxBufferedBytes: env.BRIDGE_WS_SEND_BUFFER_KB * 1024,
        },
        createLimit: { points: env.BRIDGE_CREATE_LIMIT, windowSeconds: env.BRIDGE_CREATE_LIMIT_WINDOW_SECONDS },
        quoteLimit: { points: env.BRIDGE_QUOTE_LIMIT, windowSeconds: env.BRIDGE_QUOTE_LIMIT_WINDOW_SECONDS },
        listLimit: { points: env.BRIDGE_LIST_LIMIT, windowSeconds: env.BRIDGE_LIST_LIMIT_WINDOW_SECONDS },
        prices: parsePriceSource(env),
        maxSlippageBps: percentToBps(env.BRIDGE_MAX_SLIPPAGE_PERCENT),
        minTargetAboveQuoteBps: percentToBps(env.BRIDGE_MIN_TARGET_ABOVE_QUOTE_PERCENT),
        maxPendingPerIp: env.BRIDGE_MAX_PENDING_PER_IP,
        lateDepositWatchDays: env.BRIDGE_LATE_DEPOSIT_WATCH_DAYS,
        networks,
        pools,
        poolToleranceBps: percentToBps(env.BRIDGE_POOL_TOLERANCE_PERCENT),
        refund: { maxAttempts: env.BRIDGE_REFUND_MAX_ATTEMPTS, retrySeconds: env.BRIDGE_REFUND_RETRY_SECONDS },
        ledgerGuardWindow: env.BRIDGE_LEDGER_GUARD_WINDOW,
        provider: parseProviderRouting(env),
        webhooks: {
            allowPrivateTargets: env.BRIDGE_WEBHOOK_ALLOW_PRIVATE,
            timeScale: env.BRIDGE_WEBHOOK_TIME_SCALE,
            disableAfterMs: env.BRIDGE_WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
            disableAfterEvents: env.BRIDGE_WEBHOOK_DISABLE_AFTER_EVENTS,
            concurrency: env.BRIDGE_WEBHOOK_CONCURRENCY,
        },
        explorers: explorersOf(env),
    }
}

function explorersOf(env: BridgeEnv): BridgeConfig['explorers'] {
    const explorers: BridgeConfig['explorers'] = {}
    for (const chain of CHAIN_NAMES) {
        // A chain added to the registry without its BRIDGE_EXPLORER_URL_<CHAIN> setting fails to compile here.
        const links = parseExplorer(env[`BRIDGE_EXPLORER_URL_${chain}`])
        if (links) explorers[chain] = links
    }
    return explorers
}

/** A token as the engine uses it: the registry entry plus where it lives and whether it can be used now. */
export interface Asset extends TokenSpec {
    chain: ChainName
    family: Family
    /** Contract address of a token, in its chain's address form; undefined for a coin. */
    address?: string
    /** Why it cannot be used now, when it cannot. */
    disabled?: string
}

export function resolveAsset(config: BridgeConfig, chain: ChainName, token: TokenSpec): Asset {
    const spec = CHAINS.find((c) => c.name === chain)!
    const network = config.networks[chain]
    const base: Asset = { ...token, chain, family: spec.family }
    if (!network) return { ...base, disabled: `network not enabled: ${chain}` }
    if (token.kind === 'coin') return base
    const address = network.tokens[token.symbol]
    return address ? { ...base, address } : { ...base, disabled: `token not enabled: ${token.symbol} on ${chain} has no contract address configured` }
}

export function allAssets(config: BridgeConfig): Asset[] {
    return CHAINS.flatMap((c) => c.tokens.map((t) => resolveAsset(config, c.name, t)))
}
