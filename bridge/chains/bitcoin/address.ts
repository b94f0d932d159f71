import * as bitcoin from 'bitcoinjs-lib'
import { BitcoinNetworkParams } from './network'

/**
 * Address validation per network, and what an address's output costs. An address is valid only
 * on its own network: mainnet takes 1…, 3… and bc1…; testnet takes m…/n…, 2… and tb1…; regtest
 * takes bcrt1… and, as Bitcoin Core's regtest does, the testnet base58 forms (m…/n…, 2…), which
 * share its version bytes. bech32 is case-insensitive but never mixed-case; the canonical form is
 * lowercase. Witness versions above 1 are refused: those outputs are anyone-can-spend today, so a
 * payout there would be lost.
 */

export type OutputKind = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr'

export interface ParsedAddress {
    address: string
    kind: OutputKind
    script: Uint8Array
}

export function parseAddress(address: string, network: BitcoinNetworkParams): ParsedAddress | undefined {
    if (typeof address !== 'string' || address.length === 0 || address.length > 90 || address.trim() !== address) return undefined
    const lower = address.toLowerCase()
    if (lower.startsWith(`${network.params.bech32}1`)) {
        if (address !== lower && address !== address.toUpperCase()) return undefined
        let decoded
        try {
            decoded = bitcoin.address.fromBech32(lower)
        } catch {
            return undefined
        }
        if (decoded.prefix !== network.params.bech32) return undefined
        let kind: OutputKind
        if (decoded.version === 0 && decoded.data.length === 20) kind = 'p2wpkh'
        else if (decoded.version === 0 && decoded.data.length === 32) kind = 'p2wsh'
        else if (decoded.version === 1 && decoded.data.length === 32) kind = 'p2tr'
        else return undefined
        try {
            return { address: lower, kind, script: bitcoin.address.toOutputScript(lower, network.params) }
        } catch {
            return undefined // a taproot key that is not on the curve
        }
    }
    let decoded
    try {
        decoded = bitcoin.address.fromBase58Check(address)
    } catch {
        return undefined
    }
    if (decoded.version === network.params.pubKeyHash) {
        return { address, kind: 'p2pkh', script: bitcoin.payments.p2pkh({ hash: decoded.hash }).output! }
    }
    if (decoded.version === network.params.scriptHash) {
        return { address, kind: 'p2sh', script: bitcoin.payments.p2sh({ hash: decoded.hash }).output! }
    }
    return undefined
}

/** The address in its canonical form, or undefined when it is not a valid address of the network. */
export function normalizeAddress(address: string, network: BitcoinNetworkParams): string | undefined {
    return parseAddress(address, network)?.address
}

/** The address an output script pays, where it has one on this network. */
export function scriptAddress(script: Uint8Array, network: BitcoinNetworkParams): string | undefined {
    try {
        return bitcoin.address.fromOutputScript(script, network.params)
    } catch {
        return undefined
    }
}

/** Serialized size of an output paying each kind: 8 (value) + 1 (script length) + the script. */
export const OUTPUT_BYTES: Record<OutputKind, number> = { p2pkh: 34, p2sh: 32, p2wpkh: 31, p2wsh: 43, p2tr: 43 }

/**
 * Bitcoin Core's dust limits at its default dust relay fee (3 sat/vB): an output worth less than
 * spending it would cost is non-standard, and nodes refuse to relay the transaction. Computed as
 * (output size + size of the input that spends it) × 3: 148-byte legacy inputs, 67.75 vB
 * segwit ones (policy.cpp GetDustThreshold).
 */
export const DUST_LIMIT: Record<OutputKind, bigint> = { p2pkh: 546n, p2sh: 540n, p2wpkh: 294n, p2wsh: 330n, p2tr: 330n }
