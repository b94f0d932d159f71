import { Finality } from '../../config'
import { ConfirmationTier, DEFAULT_CONFIRMATION_TIERS, parseConfirmationTiers } from './confirmations'
import { parseSatPerVbyte } from './fees'
import { BitcoinNetworkName, bitcoinNetwork } from './network'

/**
 * Settings of the BITCOIN network adapter, and how they read from the environment:
 *
 *   BITCOIN_NETWORK              mainnet | testnet | regtest (default mainnet); testnet covers
 *                                testnet3, testnet4 and signet
 *   BITCOIN_ESPLORA_URL          Esplora REST base, e.g. https://blockstream.info/api or
 *                                http://127.0.0.1:3002 (electrs)
 *   BITCOIN_RPC_URL              Bitcoin Core JSON-RPC instead, e.g. http://127.0.0.1:8332; with
 *   BITCOIN_RPC_USER/_PASSWORD   its credentials (or user:password in the URL) and
 *   BITCOIN_RPC_WALLET           a watch-only descriptor wallet the adapter imports addresses into
 *                                (default "bridge-watch")
 *   BRIDGE_CONFIRMATIONS_BITCOIN the least confirmations of anything (default 1); the tiers below
 *                                raise it by amount
 *   BITCOIN_CONFIRMATION_TIERS   satoshi:confirmations,…,*:confirmations (confirmations.ts has
 *                                the default table)
 *   BITCOIN_FEE_TARGET_BLOCKS    confirmation target whose fee estimate is used (default 3)
 *   BITCOIN_FALLBACK_FEE_RATE    sat/vB when the backend has no estimate (default 20 on mainnet,
 *                                1 elsewhere; regtest nodes usually have none)
 *   BITCOIN_MAX_FEE_RATE         sat/vB cap on any estimate (default 500), so a broken estimator
 *                                cannot burn the vault
 * The network is enabled when one of the two URLs is set.
 */

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

/** The BITCOIN settings from the environment, or undefined when no backend URL is set (network not enabled). */
type BitcoinEnvKey = 'BITCOIN_NETWORK' | 'BITCOIN_ESPLORA_URL' | 'BITCOIN_RPC_URL' | 'BITCOIN_RPC_USER' | 'BITCOIN_RPC_PASSWORD' | 'BITCOIN_RPC_WALLET'
    | 'BRIDGE_CONFIRMATIONS_BITCOIN' | 'BITCOIN_CONFIRMATION_TIERS' | 'BITCOIN_FEE_TARGET_BLOCKS' | 'BITCOIN_FALLBACK_FEE_RATE' | 'BITCOIN_MAX_FEE_RATE'

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
