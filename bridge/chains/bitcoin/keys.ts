import * as bitcoin from 'bitcoinjs-lib'
import { ECPairFactory } from 'ecpair'
import * as ecc from 'tiny-secp256k1'
import { HDKey } from 'viem/accounts'
import { KeyManager, KeyRole } from '../../keys'
import { BitcoinNetworkParams } from './network'

/** BITCOIN keys and P2WPKH addresses from the bitcoin family's sealed seed, at BIP-84 paths: docs/bridge/networks.md#bitcoin */

const ECPair = ECPairFactory(ecc)

/** Deposits in account 0, the vault alone in account 1 (it receives its own change, so it is one address for good). */
export function bip84Path(network: BitcoinNetworkParams, role: KeyRole): string {
    return role.kind === 'vault' ? `m/84'/${network.coinType}'/1'/0/0` : `m/84'/${network.coinType}'/0'/0/${role.index}`
}

/** The HD node of a role; the caller wipes it (wipePrivateData) once done. */
export function deriveNode(seedBytes: Uint8Array, network: BitcoinNetworkParams, role: KeyRole): HDKey {
    if (role.kind === 'deposit' && (!Number.isInteger(role.index) || role.index < 0 || role.index >= 2 ** 31)) {
        throw new Error(`deposit index out of the BIP-32 non-hardened range: ${role.index}`)
    }
    const root = HDKey.fromMasterSeed(seedBytes)
    try {
        return root.derive(bip84Path(network, role))
    } finally {
        root.wipePrivateData()
    }
}

export function p2wpkhAddress(publicKey: Uint8Array, network: BitcoinNetworkParams): string {
    return bitcoin.payments.p2wpkh({ pubkey: publicKey, network: network.params }).address!
}

/** The signing key of a role: ECDSA over secp256k1 with low-R signatures (fixed 71-byte DER at most). */
export interface InputSigner {
    publicKey: Uint8Array
    /** A 64-byte compact signature of a 32-byte sighash. */
    sign(hash: Uint8Array): Uint8Array
}

export class BitcoinKeys {
    constructor(private readonly keys: KeyManager, readonly network: BitcoinNetworkParams) {}

    address(role: KeyRole): Promise<string> {
        return this.keys.address('bitcoin', role, (seedBytes) => {
            const node = deriveNode(seedBytes, this.network, role)
            try {
                return p2wpkhAddress(node.publicKey!, this.network)
            } finally {
                node.wipePrivateData()
            }
        }, this.network.name)
    }

    /** Runs fn with the role's signing key; the key and the seed are wiped when it returns. */
    async withSigner<T>(role: KeyRole, fn: (signer: InputSigner) => T): Promise<T> {
        return this.keys.withSeed('bitcoin', (seedBytes) => {
            const node = deriveNode(seedBytes, this.network, role)
            try {
                const pair = ECPair.fromPrivateKey(node.privateKey!, { network: this.network.params })
                return fn({ publicKey: pair.publicKey, sign: (hash) => pair.sign(hash, true) })
            } finally {
                node.wipePrivateData()
            }
        })
    }
}
