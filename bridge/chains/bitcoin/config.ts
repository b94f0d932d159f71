import { z } from 'zod'
import { url } from '../../../common/config'
import { Finality } from '../finality'
import { ConfirmationTier, DEFAULT_CONFIRMATION_TIERS, parseConfirmationTiers } from './confirmations'
import { parseSatPerVbyte } from './fees'
import { BitcoinNetworkName, bitcoinNetwork } from './network'

/** The BITCOIN network's variables (docs/configuration.md); the network is enabled when one of the two URLs is set. */
export const BitcoinSettingsSchema = z.object({
    BITCOIN_NETWORK: z.enum(['mainnet', 'testnet', 'regtest']).optional()
        .meta({ description: '`testnet` covers testnet3, testnet4 and signet', unset: '`mainnet`' }),
    BITCOIN_ESPLORA_URL: url.optional()
        .describe('the Bitcoin backend as an Esplora REST base, e.g. `https://blockstream.info/api` or `http://127.0.0.1:3002` (electrs)'),
    BITCOIN_RPC_URL: url.optional()
        .describe('or Bitcoin Core JSON-RPC instead, e.g. `http://127.0.0.1:8332`, with its credentials (or user:password in the URL)'),
    BITCOIN_RPC_USER: z.string().optional()
        .describe('user of `BITCOIN_RPC_URL`'),
    BITCOIN_RPC_PASSWORD: z.string().optional()
        .describe('password of `BITCOIN_RPC_URL`'),
    BITCOIN_RPC_WALLET: z.string().optional()
        .meta({ description: 'the watch-only descriptor wallet of Bitcoin Core the adapter imports deposit addresses into', unset: '`bridge-watch`' }),
    BRIDGE_CONFIRMATIONS_BITCOIN: z.string().regex(/^[1-9]\d{0,3}$/, 'must be a number of confirmations').optional()
        .meta({ description: 'the least confirmations of any BTC deposit; `BITCOIN_CONFIRMATION_TIERS` raises it by amount', unset: '1' }),
    BITCOIN_CONFIRMATION_TIERS: z.string().optional()
        .meta({ description: 'confirmations a BTC deposit needs by amount, `satoshi:confirmations,…,*:confirmations` ascending (the default: up to 0.01 BTC 1, 0.1 BTC 2, 1 BTC 3, above 6)', unset: '`1000000:1,10000000:2,100000000:3,*:6`' }),
    BITCOIN_FEE_TARGET_BLOCKS: z.string().optional()
        .meta({ description: 'confirmation target (1 to 1008 blocks) whose fee estimate is used', unset: '3' }),
    BITCOIN_FALLBACK_FEE_RATE: z.string().optional()
        .meta({ description: 'sat/vB when the backend has no estimate (regtest nodes usually have none)', unset: '20 on mainnet, 1 elsewhere' }),
    BITCOIN_MAX_FEE_RATE: z.string().optional()
        .meta({ description: 'sat/vB cap on any estimate, so a broken estimator cannot burn the vault', unset: '500' }),
})

export type BitcoinBackendConfig =
    | { kind: 'esplora'; url: string }
    | { kind: 'bitcoind'; url: string; username?: string; password?: string; wallet: string }

export interface BitcoinConfig {
    chain: 'BITCOIN'
    network: BitcoinNetworkName
    backend: BitcoinBackendConfig
    /** The floor of every confirmation requirement; BRIDGE_CONFIRMATIONS_BITCOIN. */
    finality: Finality
    confirmationTiers: readonly ConfirmationTier[]
    feeTargetBlocks: number
    /** sat/kvB */
    fallbackFeeRate: bigint
    /** sat/kvB */
    maxFeeRate: bigint
}

export function defaultBitcoinConfig(network: BitcoinNetworkName, backend: BitcoinBackendConfig): BitcoinConfig {
    return {
        chain: 'BITCOIN',
        network,
        backend,
        finality: { confirmations: 1 },
        confirmationTiers: DEFAULT_CONFIRMATION_TIERS,
        feeTargetBlocks: 3,
        fallbackFeeRate: network === 'mainnet' ? 20_000n : 1_000n,
        maxFeeRate: 500_000n,
    }
}

type BitcoinEnvKey = keyof typeof BitcoinSettingsSchema.shape

/** The BITCOIN settings from the environment, or undefined when no backend URL is set (network not enabled). */
export function parseBitcoinEnv(env: { readonly [K in BitcoinEnvKey]?: string }): BitcoinConfig | undefined {
    const network = bitcoinNetwork(env.BITCOIN_NETWORK || 'mainnet').name
    let backend: BitcoinBackendConfig
    if (env.BITCOIN_ESPLORA_URL) {
        backend = { kind: 'esplora', url: env.BITCOIN_ESPLORA_URL }
    } else if (env.BITCOIN_RPC_URL) {
        backend = {
            kind: 'bitcoind', url: env.BITCOIN_RPC_URL, username: env.BITCOIN_RPC_USER || undefined,
            password: env.BITCOIN_RPC_PASSWORD || undefined, wallet: env.BITCOIN_RPC_WALLET || 'bridge-watch',
        }
    } else {
        return undefined
    }
    const config = defaultBitcoinConfig(network, backend)
    if (env.BRIDGE_CONFIRMATIONS_BITCOIN) {
        // Bitcoin has no finalized/safe tag: only a count makes sense here.
        const confirmations = Number(env.BRIDGE_CONFIRMATIONS_BITCOIN)
        if (!Number.isInteger(confirmations) || confirmations < 1) {
            throw new Error(`BRIDGE_CONFIRMATIONS_BITCOIN must be a positive number of confirmations, not "${env.BRIDGE_CONFIRMATIONS_BITCOIN}"`)
        }
        config.finality = { confirmations }
    }
    if (env.BITCOIN_CONFIRMATION_TIERS) config.confirmationTiers = parseConfirmationTiers(env.BITCOIN_CONFIRMATION_TIERS)
    if (env.BITCOIN_FEE_TARGET_BLOCKS) {
        const target = Number(env.BITCOIN_FEE_TARGET_BLOCKS)
        if (!Number.isInteger(target) || target < 1 || target > 1008) throw new Error('BITCOIN_FEE_TARGET_BLOCKS must be 1 to 1008')
        config.feeTargetBlocks = target
    }
    if (env.BITCOIN_FALLBACK_FEE_RATE) config.fallbackFeeRate = parseSatPerVbyte(env.BITCOIN_FALLBACK_FEE_RATE)
    if (env.BITCOIN_MAX_FEE_RATE) config.maxFeeRate = parseSatPerVbyte(env.BITCOIN_MAX_FEE_RATE)
    if (config.maxFeeRate < config.fallbackFeeRate) throw new Error('BITCOIN_MAX_FEE_RATE is below BITCOIN_FALLBACK_FEE_RATE')
    return config
}
