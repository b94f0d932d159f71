import { mnemonicToSeedSync } from '@scure/bip39'
import * as bitcoin from 'bitcoinjs-lib'
import { ECPairFactory, ECPairInterface } from 'ecpair'
import * as ecc from 'tiny-secp256k1'
import { HDKey } from 'viem/accounts'
import { DEV_MNEMONIC } from '../anvil'

/** The local Bitcoin network's development keys, from anvil's public mnemonic: docs/bridge/README.md#development-keys */

const ECPair = ECPairFactory(ecc)

/** Development keys 0 to 4 hold coin from the genesis blocks on. */
export const FUNDED_DEV_KEYS = 5

let root: HDKey | undefined
const devRoot = () => (root ??= HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC)))

/** The regtest key at a BIP-32 path of the development mnemonic. */
export function devKeyAt(path: string): ECPairInterface {
    return ECPair.fromPrivateKey(devRoot().derive(path).privateKey!, { network: bitcoin.networks.regtest })
}

/** Development key i: BIP-84 regtest, m/84'/1'/0'/0/i, as a wallet restoring the mnemonic finds it. */
export function bitcoinDevKey(index: number): ECPairInterface {
    return devKeyAt(`m/84'/1'/0'/0/${index}`)
}

/** The key the local network's coinbases pay (the mnemonic's first change address): where the timed blocks' coins go. */
export function bitcoinMinerKey(): ECPairInterface {
    return devKeyAt(`m/84'/1'/0'/1/0`)
}

export function p2wpkhScript(key: ECPairInterface): Uint8Array {
    return bitcoin.payments.p2wpkh({ pubkey: key.publicKey }).output!
}

export function regtestAddress(key: ECPairInterface): string {
    return bitcoin.payments.p2wpkh({ pubkey: key.publicKey, network: bitcoin.networks.regtest }).address!
}
