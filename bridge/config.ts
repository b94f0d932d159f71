import { getAddress } from 'viem'
import { Env, nativeContracts, readBridgeChains, rpcUrl } from '../common/config'
import { BitcoinConfig, parseBitcoinEnv } from './chains/bitcoin/config'
import { parseSolanaEnv, SolanaConfig, finalityOf } from './chains/solana/config'
import { parseTronEnv, TronConfig } from './chains/tron/config'
import { parsePriceSource, PriceSourceConfig } from './prices'
import { ProviderRoutingConfig, parseProviderRouting } from './providers/routing'
import { ChainName, CHAINS, Family, TokenSpec } from './registry'

/**
 * The bridge's runtime configuration, resolved once at start from the environment (and, in
 * development, from the devnet records in DATA_DIR: deployment.json for the native chain,
 * bridge-chains.json for the local BSC, ETHEREUM and POLYGON).
 */

/** When a deposit counts as final: the node's `finalized`/`safe` tag, or a confirmation count. */
export type Finality = { tag: 'finalized' | 'safe' } | { confirmations: number }

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
    createLimit: { points: number; windowSeconds: number }
    /** Where the USD prices of assets no pool of ours quotes come from (bridge/prices.ts). */
    prices: PriceSourceConfig
    /** Basis points below the creation quote a swap accepts at the rate lock when it set no min_target_amount. */
    maxSlippageBps: number
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
    /** Which assets the external swap provider serves, and through which of ours (bridge/providers/routing.ts). */
    provider: ProviderRoutingConfig
    webhooks: WebhookConfig
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

export function parseFinality(value: string): Finality {
    return value === 'finalized' || value === 'safe' ? { tag: value } : { confirmations: Number(value) }
}

export function describeFinality(f: Finality): string {
    return 'tag' in f ? f.tag : `${f.confirmations} confirmation${f.confirmations === 1 ? '' : 's'}`
}

function percentToBps(percent: string): number {
    const [whole, fraction = ''] = percent.split('.')
    return Number(whole) * 100 + Number(fraction.padEnd(2, '0'))
}

export function loadBridgeConfig(env: Env): BridgeConfig {
    const local = readBridgeChains(env)
    let native: ReturnType<typeof nativeContracts> | undefined
    try {
        native = nativeContracts(env)
    } catch {
        native = undefined // STABLE and the native pool are then not enabled; NATIVE still is.
    }
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
        createLimit: { points: env.BRIDGE_CREATE_LIMIT, windowSeconds: env.BRIDGE_CREATE_LIMIT_WINDOW_SECONDS },
        prices: parsePriceSource(env),
        maxSlippageBps: percentToBps(env.BRIDGE_MAX_SLIPPAGE_PERCENT),
        maxPendingPerIp: env.BRIDGE_MAX_PENDING_PER_IP,
        lateDepositWatchDays: env.BRIDGE_LATE_DEPOSIT_WATCH_DAYS,
        networks,
        pools,
        poolToleranceBps: percentToBps(env.BRIDGE_POOL_TOLERANCE_PERCENT),
        refund: { maxAttempts: env.BRIDGE_REFUND_MAX_ATTEMPTS, retrySeconds: env.BRIDGE_REFUND_RETRY_SECONDS },
        provider: parseProviderRouting(env),
        webhooks: {
            allowPrivateTargets: env.BRIDGE_WEBHOOK_ALLOW_PRIVATE,
            timeScale: env.BRIDGE_WEBHOOK_TIME_SCALE,
            disableAfterMs: env.BRIDGE_WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
            disableAfterEvents: env.BRIDGE_WEBHOOK_DISABLE_AFTER_EVENTS,
            concurrency: env.BRIDGE_WEBHOOK_CONCURRENCY,
        },
    }
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
