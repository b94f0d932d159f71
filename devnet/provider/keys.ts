import { ECPairInterface } from 'ecpair'
import { LocalAccount, mnemonicToAccount } from 'viem/accounts'
import { DEV_MNEMONIC } from '../anvil'
import { devKeyAt } from '../bitcoin/keys'

/**
 * The local provider's keys, from anvil's public mnemonic in an account of their own (7) so that
 * they never meet the development keys: index 0 is its treasury (what it pays out from), 1… the
 * deposit addresses of its exchanges in turn (docs/bridge/README.md#local-chains-npm-start).
 */

const PROVIDER_ACCOUNT = 7

/** BIP-84 regtest, m/84'/1'/7'/0/i. */
export function providerBitcoinKey(index: number): ECPairInterface {
    return devKeyAt(`m/84'/1'/${PROVIDER_ACCOUNT}'/0/${index}`)
}

/** m/44'/60'/7'/0/i. */
export function providerEvmAccount(index: number): LocalAccount {
    return mnemonicToAccount(DEV_MNEMONIC, { accountIndex: PROVIDER_ACCOUNT, addressIndex: index })
}
