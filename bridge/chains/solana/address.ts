import { PublicKey } from '@solana/web3.js'

/** SOLANA address validation: canonical base58 keys, and for deposits and payouts only keys on the curve (no PDA, not the zero key): docs/bridge/networks.md#solana */

const ZERO = '11111111111111111111111111111111'

/** A canonical base58 32-byte address, on the curve or not. */
export function isAccountAddress(address: string): boolean {
    if (typeof address !== 'string' || address.length < 32 || address.length > 44) return false
    try {
        return new PublicKey(address).toBase58() === address
    } catch {
        return false
    }
}

/** The address when it can receive a deposit or a payout (canonical, on the curve, not the zero key); else undefined. */
export function normalizeAddress(address: string): string | undefined {
    if (!isAccountAddress(address) || address === ZERO) return undefined
    return PublicKey.isOnCurve(new PublicKey(address).toBytes()) ? address : undefined
}
