/**
 * An EIP-7702 authorization as the indexer stores it in transaction.authorization_list (JSON) and
 * the chain API reads it back: docs/indexer.md#transaction-types. Numbers that may pass 2^53 are
 * decimal strings.
 */
export interface StoredAuthorization {
    chainId: string
    address: string
    nonce: string
    yParity: number
    r: string
    s: string
    /** the signer, recovered by indexer/authorities.ts; null when the signature recovers no address */
    authority: string | null
    /** Blockscout's; null until checked */
    status: AuthorizationStatus | null
}

export type AuthorizationStatus = 'ok' | 'invalid_chain_id' | 'invalid_signature' | 'invalid_nonce'
