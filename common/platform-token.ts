import { Address, ContractConstructorArgs, zeroAddress } from 'viem'
import { platformTokenAbi } from '../abi'

/** PlatformToken's constructor arguments (contracts/PlatformToken.sol), for the wallet platform's token route and the devnet's seeding. */

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
