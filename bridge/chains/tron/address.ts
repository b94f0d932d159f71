import bs58 from 'bs58'
import { createHash } from 'crypto'

/** TRON address validation: only the checksummed base58 T-address is taken from users: docs/bridge/networks.md#tron */

export const ADDRESS_PREFIX = 0x41

function checksum(payload: Uint8Array): Buffer {
    const once = createHash('sha256').update(payload).digest()
    return createHash('sha256').update(once).digest().subarray(0, 4)
}

/** The 21 bytes (0x41 + 20) of a base58check T-address, or undefined. */
export function decodeAddress(address: string): Buffer | undefined {
    if (typeof address !== 'string' || address.length !== 34 || address[0] !== 'T') return undefined
    let bytes: Uint8Array
    try {
        bytes = bs58.decode(address)
    } catch {
        return undefined
    }
    if (bytes.length !== 25 || bytes[0] !== ADDRESS_PREFIX) return undefined
    const payload = Buffer.from(bytes.subarray(0, 21))
    if (!checksum(payload).equals(Buffer.from(bytes.subarray(21)))) return undefined
    return payload
}

export function encodeAddress(payload: Uint8Array): string {
    if (payload.length !== 21 || payload[0] !== ADDRESS_PREFIX) throw new Error('a TRON address is 0x41 followed by 20 bytes')
    return bs58.encode(Buffer.concat([payload, checksum(payload)]))
}

/** The address when it is a canonical base58check TRON account address; else undefined. */
export function normalizeAddress(address: string): string | undefined {
    const payload = decodeAddress(address)
    if (!payload) return undefined
    return encodeAddress(payload) === address ? address : undefined
}

/** 41… hex (42 characters, lowercase) of a base58 address; throws when it is not one. */
export function hexAddress(address: string): string {
    const payload = decodeAddress(address)
    if (!payload) throw new Error(`not a TRON address: ${address}`)
    return payload.toString('hex')
}

/** The base58 form of an address the node wrote in hex (41…, with or without 0x) or already in base58. */
export function base58Address(address: string): string {
    if (decodeAddress(address)) return address
    const hex = address.replace(/^0x/i, '').toLowerCase()
    if (!/^41[0-9a-f]{40}$/.test(hex)) throw new Error(`not a TRON address: ${address}`)
    return encodeAddress(Buffer.from(hex, 'hex'))
}

/** Whether two spellings (base58 or 41… hex) name the same account; false when either is neither. */
export function sameAccount(a: string, b: string): boolean {
    try {
        return base58Address(a) === base58Address(b)
    } catch {
        return false
    }
}
