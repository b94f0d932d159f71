import { mnemonicToSeedSync } from '@scure/bip39'
import * as bitcoin from 'bitcoinjs-lib'
import { ECPairFactory, ECPairInterface } from 'ecpair'
import * as ecc from 'tiny-secp256k1'
import { HDKey, LocalAccount, mnemonicToAccount } from 'viem/accounts'
import { DEV_MNEMONIC } from '../anvil'

/**
 * The local provider's keys, from anvil's public mnemonic in an account of their own (7) so that
 * they never meet the development keys: index 0 is its treasury (what it pays out from), 1… the
 * deposit addresses of its exchanges in turn (docs/bridge/README.md#local-chains-npm-start).
 */

const ECPair = ECPairFactory(ecc)
const PROVIDER_ACCOUNT = 7

let root: HDKey | undefined
const devRoot = () => (root ??= HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC)))

/** BIP-84 regtest, m/84'/1'/7'/0/i. */
export function providerBitcoinKey(index: number): ECPairInterface {
    return ECPair.fromPrivateKey(devRoot().derive(`m/84'/1'/${PROVIDER_ACCOUNT}'/0/${index}`).privateKey!, { network: bitcoin.networks.regtest })
}

/** m/44'/60'/7'/0/i. */
export function providerEvmAccount(index: number): LocalAccount {
    return mnemonicToAccount(DEV_MNEMONIC, { accountIndex: PROVIDER_ACCOUNT, addressIndex: index })
}
