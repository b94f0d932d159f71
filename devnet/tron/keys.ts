import { mnemonicToSeedSync } from '@scure/bip39'
import { deriveNode, publicKeyToAddress } from '../../bridge/chains/tron/keys'
import { DEV_MNEMONIC } from '../anvil'

/** The local TRON network's development keys: public knowledge, never for real funds (docs/bridge/README.md#local-chains-npm-start). */

export const TRON_DEV_KEY_COUNT = 10
/** What each development key holds from the genesis block. */
export const TRON_DEV_TRX_SUN = 1_000_000_000_000n
export const TRON_DEV_USDT = 10_000_000_000_000n

export interface TronDevKey {
    /** base58 T-address */
    address: string
    privateKey: Uint8Array
}

/** Key i at TRON wallets' path m/44'/195'/0'/0/i of DEV_MNEMONIC (anvil's mnemonic). */
export function tronDevKey(index: number): TronDevKey {
    const node = deriveNode(mnemonicToSeedSync(DEV_MNEMONIC), { kind: 'deposit', index })
    return { address: publicKeyToAddress(node.publicKey!), privateKey: node.privateKey! }
}

export function tronDevKeys(count = TRON_DEV_KEY_COUNT): TronDevKey[] {
    return Array.from({ length: count }, (_, i) => tronDevKey(i))
}
