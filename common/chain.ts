import { Chain, defineChain } from 'viem'

/**
 * What the devnet tooling and the services that sign transactions (the wallet platform) share
 * about the native chain.
 */

/**
 * Fees of every transaction we send: the chain's minimum gas price is 0, accounts may hold no
 * coin, and without explicit zeros viem's estimate (or anvil) would add a 1 gwei tip.
 */
export const ZERO_FEES = { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n } as const

/** The native chain's coin, as wallets and the services' texts name it. */
export const NATIVE_CURRENCY = { name: 'NATIVE', symbol: 'NATIVE', decimals: 18 } as const

/** The native chain as viem knows it. */
export function nativeChain(chainId: number, rpcUrl: string): Chain {
    return defineChain({
        id: chainId,
        name: 'Native chain',
        nativeCurrency: NATIVE_CURRENCY,
        rpcUrls: { default: { http: [rpcUrl] } },
    })
}
