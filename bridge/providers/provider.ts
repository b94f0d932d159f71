import { ChainName } from '../registry'
import { MappedStatus } from './status'

/**
 * What the engine calls for an external provider leg: the provider converts an
 * asset our vaults cannot serve (BTC) into one they can (USDT on BSC), paying into our vault.
 * Amounts cross this interface as bigint base units with the decimals of our token registry; the
 * implementation does the conversion to the provider's decimal strings, exactly.
 *
 * Idempotence: reads may be retried by the implementation; createExchange is sent at most once
 * per call and never retried inside it. A create whose outcome is unknown throws
 * ProviderUncertainError (mayHaveCreated) and the engine must not call createExchange again for
 * that leg on its own: an exchange is only an instruction at the provider (no funds move until we
 * send to its deposit address), so a duplicate costs nothing by itself, but two live exchanges for
 * one leg invite paying both. The engine holds the leg for an operator, who can look the exchange
 * up in the provider's dashboard; once the orphan can no longer be funded it is safe to create anew.
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
    /** Sent once; see the class comment for what an uncertain outcome means. */
    createExchange(request: CreateExchangeRequest): Promise<ProviderExchange>
    getExchange(id: string): Promise<ProviderExchange>
}
