import { RequestExample } from '../../common/service/api-doc'
import { allAssets, BridgeConfig } from '../config'

/**
 * What the bridge's OpenAPI document shows of requests: one working example per operation, by
 * operationId (ApiDoc parses each with its route's schemas at registration), and the chains and
 * tokens this deployment has enabled as enums of the fields that name them. The enums come from
 * the configuration when the routes are built, so the document lists what this process serves.
 */

const SWAP_ID = '3f1c9a52-7b4e-4d8a-9c61-2e5f0a7b8d14'
const SUBSCRIPTION_ID = '8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f'
const EVENT_ID = 'b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e'
const TARGET_WALLET = '0x31C1A6bF6b2a5F6e7A0e3B1D0cb2bd24AA1CBD24'
const REFUND_ADDRESS = '0x9aE1c0E1d8B5c7F2A3e4b5C6d7e8F9a0b1C207F3'

/** A route of the registry, for a deployment that enables fewer than two chains. */
const REGISTRY_SWAP = { source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE' }

/** The examples that do not depend on what is enabled. */
const FIXED_EXAMPLES: Record<string, RequestExample> = {
    getSwap: { params: { id: SWAP_ID } },
    getSwapStatus: { params: { id: SWAP_ID } },
    listSwapEvents: { params: { id: SWAP_ID } },
    listSwaps: { query: { target_wallet: TARGET_WALLET, chain: 'NATIVECHAIN', limit: '20' } },
    getPoolPrice: { params: { pool: 'nativechain-wnative-stable' } },
    getSwapPage: { params: { id: SWAP_ID } },
    getSwapQrCode: { params: { id: SWAP_ID } },
    createWebhookSubscription: {
        body: { url: 'https://hooks.example.com/bridge', event_types: ['target_token_sent', 'swap_failed'], description: 'Payouts to our ledger', method: 'POST', active: true },
    },
    getWebhookSubscription: { params: { id: SUBSCRIPTION_ID } },
    updateWebhookSubscription: { params: { id: SUBSCRIPTION_ID }, body: { event_types: ['target_token_sent'], active: true } },
    deleteWebhookSubscription: { params: { id: SUBSCRIPTION_ID } },
    rotateWebhookSecret: { params: { id: SUBSCRIPTION_ID }, body: { grace_seconds: 3600 } },
    testWebhookSubscription: { params: { id: SUBSCRIPTION_ID } },
    listWebhookDeliveries: { params: { id: SUBSCRIPTION_ID }, query: { failed: 'true', limit: '50' } },
    retryWebhookEvent: { params: { eventId: EVENT_ID } },
}

/** A swap between two enabled chains (so the example is among the enums), else one of the registry. */
function exampleSwap(config: BridgeConfig): typeof REGISTRY_SWAP {
    const enabled = allAssets(config).filter((a) => !a.disabled)
    const source = enabled[0]
    const target = enabled.find((a) => a.chain !== source?.chain)
    return source && target
        ? { source_chain: source.chain, source_token: source.symbol, target_chain: target.chain, target_token: target.symbol }
        : REGISTRY_SWAP
}

export function bridgeExamples(config: BridgeConfig): Record<string, RequestExample> {
    const swap = exampleSwap(config)
    return {
        quoteSwap: { query: { ...swap, source_token_amount: '25.5' } },
        createSwap: { body: { ...swap, source_token_amount: '25.5', target_wallet: TARGET_WALLET, refund_address: REFUND_ADDRESS } },
        ...FIXED_EXAMPLES,
    }
}

/** The enabled chains and tokens, as enums of the fields of a swap that name them (none when nothing is enabled). */
export function swapFieldEnums(config: BridgeConfig): Record<string, readonly string[]> {
    const enabled = allAssets(config).filter((a) => !a.disabled)
    const chains = [...new Set(enabled.map((a) => a.chain))]
    const tokens = [...new Set(enabled.map((a) => a.symbol))]
    const enums: Record<string, readonly string[]> = {}
    if (chains.length) Object.assign(enums, { source_chain: chains, target_chain: chains })
    if (tokens.length) Object.assign(enums, { source_token: tokens, target_token: tokens })
    return enums
}
