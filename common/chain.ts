import { Address, Chain, ContractConstructorArgs, defineChain, zeroAddress } from 'viem'
import { platformTokenAbi } from '../abi'

/**
 * What the devnet tooling and the services that sign transactions (the wallet platform) share
 * about the native chain.
 */

/**
 * Fees of every transaction we send: the chain's minimum gas price is 0, accounts may hold no
 * coin, and without explicit zeros viem's estimate (or anvil) would add a 1 gwei tip.
 */
export const ZERO_FEES = { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n } as const

/** The native chain as viem knows it. */
export function nativeChain(chainId: number, rpcUrl: string): Chain {
    return defineChain({
        id: chainId,
        name: 'Native chain',
        nativeCurrency: { name: 'NATIVE', symbol: 'NATIVE', decimals: 18 },
        rpcUrls: { default: { http: [rpcUrl] } },
    })
}

export interface PlatformTokenParams {
    name: string
    symbol: string
    description?: string
    /** 0 to 18; 18 when not given. */
    decimals?: number
    /** Base units, minted to the deployer. */
    totalSupply: bigint
    /** Basis points. */
    buyingFee?: number
    sellingFee?: number
    /** Required when a fee is not zero. */
    feeAddress?: Address
    mintable?: boolean
    /** The factory whose pairs pay the fees. */
    ammFactory: Address
}

/** PlatformToken's constructor arguments, in the contract's order, with the defaults applied. */
export function platformTokenConstructorArgs(params: PlatformTokenParams): ContractConstructorArgs<typeof platformTokenAbi> {
    return [
        params.name,
        params.symbol,
        params.description ?? '',
        params.decimals ?? 18,
        params.totalSupply,
        params.buyingFee ?? 0,
        params.sellingFee ?? 0,
        params.feeAddress ?? zeroAddress,
        params.mintable ?? false,
        params.ammFactory,
    ]
}
