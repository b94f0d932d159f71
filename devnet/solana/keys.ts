import { Keypair } from '@solana/web3.js'
import { mnemonicToSeedSync } from '@scure/bip39'
import { deriveKeypair } from '../../bridge/chains/solana/keys'
import { DEV_MNEMONIC } from '../anvil'

/** The local Solana cluster's development keys: public knowledge, never for real funds (docs/bridge/README.md#local-chains-npm-start). */

export const SOLANA_DEV_KEY_COUNT = 10
/** Lamports each development key holds from the first slot (1,000,000 SOL). */
export const SOLANA_DEV_LAMPORTS = 1_000_000_000_000_000n

/** Key i at Solana wallets' path m/44'/501'/i'/0' of DEV_MNEMONIC (anvil's mnemonic). */
export function solanaDevKey(index: number): Keypair {
    return deriveKeypair(mnemonicToSeedSync(DEV_MNEMONIC), { kind: 'deposit', index })
}

export function solanaDevKeys(count = SOLANA_DEV_KEY_COUNT): Keypair[] {
    return Array.from({ length: count }, (_, i) => solanaDevKey(i))
}
