import * as ecc from 'tiny-secp256k1'
import { keccak256 } from 'viem'
import { HDKey } from 'viem/accounts'
import { KeyManager, KeyRole } from '../../keys'
import { ADDRESS_PREFIX, encodeAddress } from './address'

/** TRON keys and addresses from the tron family's sealed seed, at TRON wallets' BIP-44 paths: docs/bridge/networks.md#tron */

/** Deposits in account 0, the vault alone in account 1: the vault is never a swap's deposit key. */
export function tronPath(role: KeyRole): string {
    return role.kind === 'vault' ? `m/44'/195'/1'/0/0` : `m/44'/195'/0'/0/${role.index}`
}

/** The HD node of a role; the caller wipes it (wipePrivateData) once done. */
export function deriveNode(seedBytes: Uint8Array, role: KeyRole): HDKey {
    if (role.kind === 'deposit' && (!Number.isInteger(role.index) || role.index < 0 || role.index >= 2 ** 31)) {
        throw new Error(`deposit index out of the BIP-32 non-hardened range: ${role.index}`)
    }
    const root = HDKey.fromMasterSeed(seedBytes)
    try {
        return root.derive(tronPath(role))
    } finally {
        root.wipePrivateData()
    }
}

/** The base58 address of a secp256k1 public key (compressed or not). */
export function publicKeyToAddress(publicKey: Uint8Array): string {
    const uncompressed = publicKey.length === 65 ? publicKey : ecc.pointCompress(publicKey, false)
    const hash = Buffer.from(keccak256(uncompressed.subarray(1)).slice(2), 'hex')
    return encodeAddress(Buffer.concat([Buffer.from([ADDRESS_PREFIX]), hash.subarray(12)]))
}

/**
 * TRON's transaction signature over a 32-byte txID: r ‖ s ‖ v with v = recovery id + 27, hex
 * (130 characters), as java-tron and tronweb write it. RFC 6979 nonces, low s.
 */
export function signDigest(privateKey: Uint8Array, digest: Uint8Array): string {
    if (digest.length !== 32) throw new Error('a TRON signature covers a 32-byte txID')
    const { signature, recoveryId } = ecc.signRecoverable(digest, privateKey)
    return Buffer.from(signature).toString('hex') + (recoveryId + 27).toString(16).padStart(2, '0')
}

export class TronKeys {
    constructor(private readonly keys: KeyManager) {}

    address(role: KeyRole): Promise<string> {
        return this.keys.address('tron', role, (seedBytes) => {
            const node = deriveNode(seedBytes, role)
            try {
                return publicKeyToAddress(node.publicKey!)
            } finally {
                node.wipePrivateData()
            }
        })
    }

    /** Signs a txID with the role's key; the key and the seed are wiped when it returns. */
    async sign(role: KeyRole, txID: string): Promise<string> {
        const digest = Buffer.from(txID, 'hex')
        return this.keys.withSeed('tron', (seedBytes) => {
            const node = deriveNode(seedBytes, role)
            try {
                return signDigest(node.privateKey!, digest)
            } finally {
                node.wipePrivateData()
            }
        })
    }
}
