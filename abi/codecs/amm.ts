import * as p from '@subsquid/evm-codec'
import { event, fun, viewFun, indexed, ContractBase } from '@subsquid/evm-abi'
import type { EventParams as EParams, FunctionArguments, FunctionReturn } from '@subsquid/evm-abi'

export const events = {
    PairCreated: event("0x0d3648bd0f6ba80134a33ba9275ac585d9d315f0ad8355cddefde31afa28d0e9", "PairCreated(address,address,address,uint256)", {"token0": indexed(p.address), "token1": indexed(p.address), "pair": p.address, "_3": p.uint256}),
    Swap: event("0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822", "Swap(address,uint256,uint256,uint256,uint256,address)", {"sender": indexed(p.address), "amount0In": p.uint256, "amount1In": p.uint256, "amount0Out": p.uint256, "amount1Out": p.uint256, "to": indexed(p.address)}),
    Sync: event("0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1", "Sync(uint112,uint112)", {"reserve0": p.uint112, "reserve1": p.uint112}),
    Mint: event("0x4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f", "Mint(address,uint256,uint256)", {"sender": indexed(p.address), "amount0": p.uint256, "amount1": p.uint256}),
    Burn: event("0xdccd412f0b1252819cb1fd330b93224ca42612892bb3f4f789976e6d81936496", "Burn(address,uint256,uint256,address)", {"sender": indexed(p.address), "amount0": p.uint256, "amount1": p.uint256, "to": indexed(p.address)}),
}

export class Contract extends ContractBase {
}

/// Event types
export type PairCreatedEventArgs = EParams<typeof events.PairCreated>
export type SwapEventArgs = EParams<typeof events.Swap>
export type SyncEventArgs = EParams<typeof events.Sync>
export type MintEventArgs = EParams<typeof events.Mint>
export type BurnEventArgs = EParams<typeof events.Burn>
