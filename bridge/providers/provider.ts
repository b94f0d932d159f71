import { ChainName } from '../registry'
import { MappedStatus } from './status'

/**
 * What the engine calls for an external provider leg: docs/bridge/routes-and-prices.md#the-provider-leg.
 * Amounts cross it as bigint base units of our registry; the implementation converts them exactly.
 */

/** An asset as our registry names it. */
export interface ProviderAsset {
    chain: ChainName
    symbol: string
}

export interface ProviderPair {
    from: ProviderAsset
    to: ProviderAsset
    /** Fixed rate (with a rateId and validUntil) or floating; floating when omitted. */
    fixed?: boolean
}

/** Bounds of amountIn for a pair, base units of the source token. */
export interface ProviderRange {
    /** Rounded up from the provider's minimum: sending `min` is never below what it asked. */
    min: bigint
    /** Rounded down; undefined when the provider sets no maximum. */
    max?: bigint
}

export interface ProviderEstimate {
    amountIn: bigint
    /** What the provider says it will pay, its own fee already taken; rounded down to the target's decimals. */
    amountOut: bigint
    /** Fixed rate only: pass to createExchange to hold the quoted rate until validUntil. */
    rateId?: string
    validUntil?: Date
}

export interface CreateExchangeRequest extends ProviderPair {
    amountIn: bigint
    /** Where the provider must pay: our vault on the target chain. */
    payoutAddress: string
    payoutExtraId?: string
    /** Where the provider returns the deposit if it cannot exchange it: our vault on the source chain. */
    refundAddress: string
    refundExtraId?: string
    rateId?: string
}

export interface ProviderExchange {
    /** The provider's exchange id: store it before sending any funds. */
    id: string
    status: MappedStatus
    from: ProviderAsset
    to: ProviderAsset
    fixed: boolean
    /** The provider's deposit address for this exchange, and the memo to send with it when it has one. */
    depositAddress: string
    depositExtraId?: string
    /** Base units of the source token the exchange expects (rounded up: sending it is never short). */
    amountIn?: bigint
    /** Base units of the target token: expected until finished, then paid (rounded down). */
    amountOut?: bigint
    payoutAddress: string
    refundAddress?: string
    /** Our deposit to the provider, and its payout to us, as the provider reports them. */
    txIn?: string
    txOut?: string
    validUntil?: Date
    createdAt?: Date
}

export interface SwapProvider {
    /** Prefix of our statuses and events for this provider's legs. */
    readonly name: 'simpleswap'
    /** True when the provider is known to list both assets (no call made). */
    supports(pair: ProviderPair): boolean
    range(pair: ProviderPair): Promise<ProviderRange>
    /** Throws ProviderAmountOutOfRangeError (with the bounds) when the provider refuses the amount. */
    estimate(pair: ProviderPair, amountIn: bigint): Promise<ProviderEstimate>
    /**
     * Sent once, never retried inside (reads may be). An unknown outcome throws ProviderUncertainError
     * (mayHaveCreated): the engine must not create again for that leg on its own, two live exchanges invite paying both.
     */
    createExchange(request: CreateExchangeRequest): Promise<ProviderExchange>
    getExchange(id: string): Promise<ProviderExchange>
}
