import { PublicKey } from '@solana/web3.js'

/**
 * Address validation of the SOLANA network. An address is the base58 form of a 32-byte ed25519
 * public key, written canonically (decoding and re-encoding gives the same string: no leading
 * "1" padding games, no whitespace; base58 has no case folding, so nothing else is normalized).
 *
 * Deposit and payout targets must also be points on the ed25519 curve, i.e. keys a wallet can
 * sign for. Off-curve addresses are program-derived addresses (PDAs): the commonest one users
 * paste is their token account (an associated token account is a PDA), and SOL sent there is
 * held by the token program, not by the user. Such addresses are refused as targets;
 * isAccountAddress (curve not checked) is for reading what the chain shows, where PDAs are
 * ordinary. The all-zero key (the System Program's id, which happens to decode as a point) is
 * refused as well: nobody holds its private key.
 */

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
