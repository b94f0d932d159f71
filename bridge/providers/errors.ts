/**
 * How a provider call failed, in the classes the engine and the HTTP routes act on differently.
 * Messages carry the provider's own explanation when it gave one, and never the API key.
 */

export type ProviderErrorKind = 'bad_request' | 'out_of_range' | 'unauthorized' | 'not_found' | 'unavailable' | 'uncertain'

export abstract class ProviderError extends Error {
    abstract readonly kind: ProviderErrorKind
    /** The HTTP status our own API answers with when this reaches a route. */
    abstract readonly httpStatus: number
    constructor(message: string, readonly providerStatus?: number) {
        super(message)
        this.name = new.target.name
    }
}

/** The provider refused the request as invalid (unsupported pair, malformed address…): the caller's 400. */
export class ProviderRequestError extends ProviderError {
    readonly kind: ProviderErrorKind = 'bad_request'
    readonly httpStatus = 400
}

/** The amount is outside what the provider accepts for the pair: a 400 that can say the bounds. */
export class ProviderAmountOutOfRangeError extends ProviderRequestError {
    override readonly kind = 'out_of_range' as const
    /** Base units of the source token; max undefined when the provider sets none. */
    constructor(message: string, readonly min: bigint, readonly max: bigint | undefined, providerStatus?: number) {
        super(message, providerStatus)
    }
}

/**
 * The provider rejected our API key (401/403). Our deployment's fault, not the caller's: the route
 * answers 503 (feature not available) and an operator must fix the key.
 */
export class ProviderAuthError extends ProviderError {
    readonly kind = 'unauthorized' as const
    readonly httpStatus = 503
}

export class ProviderNotFoundError extends ProviderError {
    readonly kind = 'not_found' as const
    readonly httpStatus = 404
}

/**
 * The provider is down, overloaded or unreachable, and the request is known not to have taken
 * effect (a read, or a create that never reached it or was refused with 503): 503, try later.
 */
export class ProviderUnavailableError extends ProviderError {
    readonly kind = 'unavailable' as const
    readonly httpStatus = 503
}

/**
 * The outcome is unknown: a create that timed out or broke after it was sent, or an answer we could
 * not read. The engine must not repeat a create on this error (see SwapProvider.createExchange).
 */
export class ProviderUncertainError extends ProviderError {
    readonly kind = 'uncertain' as const
    readonly httpStatus = 502
    constructor(message: string, readonly mayHaveCreated: boolean, providerStatus?: number) {
        super(message, providerStatus)
    }
}
