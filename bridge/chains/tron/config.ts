import { z } from 'zod'
import { url } from '../../../common/config'
import { Finality } from '../finality'
import { normalizeAddress } from './address'

/** Tether's TRC-20 USDT on TRON mainnet (hex 41a614f803b6fd780986a42c78ec9c7f77e6ded13c). */
export const MAINNET_USDT_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'

/** The TRON network's variables (docs/configuration.md); the network is enabled when TRON_API_URL is set. */
export const TronSettingsSchema = z.object({
    TRON_API_URL: url.optional()
        .describe('base URL serving the java-tron HTTP API (`/wallet/*`, `/walletsolidity/*`) and TronGrid\'s v1 account routes (`/v1/accounts/{address}/transactions` and `…/transactions/trc20`), e.g. `https://api.trongrid.io`; a bare java-tron node has no `/v1` routes: put TronGrid (or a compatible indexer) in front of it'),
    TRON_API_KEY: z.string().optional()
        .describe('sent as the `TRON-PRO-API-KEY` header on every request (TronGrid rate-limits anonymous callers hard)'),
    BRIDGE_CONFIRMATIONS_TRON: z.string().regex(/^(solidified|finalized|[1-9]\d{0,3})$/, 'must be solidified or a number of blocks').optional()
        .meta({ description: '`solidified` (`finalized` means the same) or a number of blocks, head included. Solidified = confirmed by 2/3+1 of the 27 super representatives (19 blocks, ≈57 s) and irreversible; a count below 19 credits blocks a fork could still replace', unset: '`solidified`' }),
    TRON_USDT_CONTRACT: z.string().optional()
        .meta({ description: 'base58 address of the TRC-20 USDT contract; testnets (Nile, Shasta) need theirs', unset: `\`${MAINNET_USDT_CONTRACT}\` (Tether's on mainnet)` }),
    TRON_FEE_LIMIT_SUN: z.string().regex(/^\d+$/, 'must be a whole number of sun').optional()
        .meta({ description: '`fee_limit` of every TRC-20 transfer, in sun: the most one transfer may burn for energy. A transfer whose energy at the node\'s current price would exceed it is refused at signing instead of failing on chain with OUT_OF_ENERGY', unset: '100000000 (100 TRX)' }),
    TRON_MAX_SCAN_BLOCKS: z.string().regex(/^\d+$/, 'must be a number of blocks').optional()
        .meta({ description: 'widest block range one deposit scan covers', unset: '28800 (a day)' }),
})

export interface TronConfig {
    chain: 'TRON'
    /** Serves the full-node routes (/wallet/*), the solidified view (/walletsolidity/*) and TronGrid's /v1/accounts/* routes. */
    apiUrl: string
    /** Sent as TRON-PRO-API-KEY when set (TronGrid rate-limits anonymous callers hard). */
    apiKey?: string
    /** Deposits and the engine's own transfers: { tag } = solidified; { confirmations } = blocks on top, head included. */
    finality: Finality
    /** base58 address of the TRC-20 USDT contract. */
    usdtContract: string
    /** Most TRX (sun) a TRC-20 transfer may burn for energy; the node fails a call that needs more with OUT_OF_ENERGY. */
    feeLimit: bigint
    maxScanBlocks: bigint
}

export function defaultTronConfig(apiUrl: string): TronConfig {
    return {
        chain: 'TRON',
        apiUrl,
        finality: { tag: 'finalized' },
        usdtContract: MAINNET_USDT_CONTRACT,
        feeLimit: 100_000_000n,
        // Scans ask per address with a time window, so a wide range costs no more calls: a day of blocks.
        maxScanBlocks: 28_800n,
    }
}

type TronEnvKey = keyof typeof TronSettingsSchema.shape

/** The TRON settings from the environment, or undefined when TRON_API_URL is not set (network not enabled). */
export function parseTronEnv(env: { readonly [K in TronEnvKey]?: string }): TronConfig | undefined {
    if (!env.TRON_API_URL) return undefined
    let url: URL
    try {
        url = new URL(env.TRON_API_URL)
    } catch {
        throw new Error(`TRON_API_URL is not a URL: "${env.TRON_API_URL}"`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('TRON_API_URL must be an http(s) URL')
    const config = defaultTronConfig(env.TRON_API_URL.replace(/\/+$/, ''))
    if (env.TRON_API_KEY) config.apiKey = env.TRON_API_KEY
    if (env.BRIDGE_CONFIRMATIONS_TRON) config.finality = parseTronFinality(env.BRIDGE_CONFIRMATIONS_TRON)
    if (env.TRON_USDT_CONTRACT) {
        const contract = normalizeAddress(env.TRON_USDT_CONTRACT)
        if (!contract) throw new Error(`TRON_USDT_CONTRACT must be a base58 TRON address (T…), not "${env.TRON_USDT_CONTRACT}"`)
        config.usdtContract = contract
    }
    if (env.TRON_FEE_LIMIT_SUN) {
        if (!/^\d+$/.test(env.TRON_FEE_LIMIT_SUN)) throw new Error('TRON_FEE_LIMIT_SUN must be a whole number of sun')
        const limit = BigInt(env.TRON_FEE_LIMIT_SUN)
        // java-tron refuses a fee_limit above 15 000 TRX (getMaxFeeLimit); 0 would make every transfer fail.
        if (limit < 1n || limit > 15_000_000_000n) throw new Error('TRON_FEE_LIMIT_SUN must be 1 to 15000000000 sun')
        config.feeLimit = limit
    }
    if (env.TRON_MAX_SCAN_BLOCKS) {
        const blocks = Number(env.TRON_MAX_SCAN_BLOCKS)
        if (!Number.isInteger(blocks) || blocks < 1) throw new Error('TRON_MAX_SCAN_BLOCKS must be a positive number of blocks')
        config.maxScanBlocks = BigInt(blocks)
    }
    return config
}

/** solidified | finalized → the solidified view; n → n blocks. */
export function parseTronFinality(value: string): Finality {
    if (value === 'solidified' || value === 'finalized') return { tag: 'finalized' }
    const confirmations = Number(value)
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(confirmations) || confirmations < 1) {
        // "safe" has no counterpart on TRON: a block is solidified or it is not.
        throw new Error(`BRIDGE_CONFIRMATIONS_TRON must be solidified or a positive number of blocks, not "${value}"`)
    }
    return { confirmations }
}
