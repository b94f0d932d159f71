import { createPublicClient, defineChain, http, PublicClient, Transport } from 'viem'
import { errorText } from '../../../common/evm/errors'
import { EvmNetworkConfig } from '../../config'

/** What a backend behind the others answers for a block it has not seen yet. */
const BEHIND = /header not found|unknown block|block not found|not found: block/i
const BEHIND_RETRIES = 3

/** JSON-RPC calls per batch request of the batching client. */
export const BALANCE_BATCH = 100

/**
 * viem's http transport retries throttling and internal errors, but not "header not found": the
 * answer of a load-balanced backend that has not seen a block another backend already reported.
 * Asked again, the balancer most likely routes elsewhere; so such answers are retried a few times
 * before the read counts as failed.
 */
function retryingBehind(transport: Transport): Transport {
    return (params) => {
        const inner = transport(params)
        const request = (async (args: any, options?: any) => {
            for (let attempt = 0; ; attempt++) {
                try {
                    return await inner.request(args, options)
                } catch (err) {
                    if (attempt >= BEHIND_RETRIES || !BEHIND.test(errorText(err))) throw err
                    await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)))
                }
            }
        }) as typeof inner.request
        return { ...inner, request }
    }
}

/**
 * Two clients of the network's node: `client` for single reads, and `batchClient`, which sends
 * concurrent reads as JSON-RPC batches (the monitor's many balances).
 */
export function evmClients(network: EvmNetworkConfig): { client: PublicClient; batchClient: PublicClient } {
    const chain = defineChain({
        id: network.chainId,
        name: network.chain,
        nativeCurrency: { name: 'coin', symbol: 'COIN', decimals: 18 },
        rpcUrls: { default: { http: [network.rpcUrl] } },
    })
    // cacheTime 0: viem would otherwise answer block numbers from a 4-second cache.
    const client = createPublicClient({ chain, transport: retryingBehind(http(network.rpcUrl, { timeout: network.rpcTimeoutMs, retryCount: 1 })), cacheTime: 0 }) as PublicClient
    const batchClient = createPublicClient({
        chain, transport: retryingBehind(http(network.rpcUrl, { timeout: 2 * network.rpcTimeoutMs, retryCount: 1, batch: { batchSize: BALANCE_BATCH } })), cacheTime: 0,
    }) as PublicClient
    return { client, batchClient }
}
