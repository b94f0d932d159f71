import { parseUnits } from '../../bridge/amounts'
import { bitcoinDevKey } from './keys'
import { payBitcoin } from './wallet'

/** `npm run devnet -- send BITCOIN <address> <amount>`: BTC from development key 0 (docs/bridge/README.md#local-chains-npm-start). */

export async function sendBitcoin(esploraUrl: string, to: string, amount: string): Promise<string> {
    return payBitcoin(esploraUrl, bitcoinDevKey(0), to, parseUnits(amount, 8))
}
