import { getAddress, isAddress, zeroAddress } from 'viem'

/** The checksummed form of an EVM address; undefined for anything else, and for the zero address. */
export function normalizeAddress(address: string): string | undefined {
    // Mixed case must be a valid EIP-55 checksum; all-lower or all-upper hex is accepted as is.
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return undefined
    const body = address.slice(2)
    if (/[a-f]/.test(body) && /[A-F]/.test(body) && !isAddress(address, { strict: true })) return undefined
    const normalized = getAddress(address.toLowerCase())
    return normalized === zeroAddress ? undefined : normalized
}
