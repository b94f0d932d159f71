import * as p from '@subsquid/evm-codec'
import { event, fun, viewFun, indexed, ContractBase } from '@subsquid/evm-abi'
import type { EventParams as EParams, FunctionArguments, FunctionReturn } from '@subsquid/evm-abi'

export const events = {
    Deposit: event("0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c", "Deposit(address,uint256)", {"dst": indexed(p.address), "wad": p.uint256}),
    Withdrawal: event("0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65", "Withdrawal(address,uint256)", {"src": indexed(p.address), "wad": p.uint256}),
}

export class Contract extends ContractBase {
}

/// Event types
export type DepositEventArgs = EParams<typeof events.Deposit>
export type WithdrawalEventArgs = EParams<typeof events.Withdrawal>
