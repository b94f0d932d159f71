import { parseUnits } from '../../bridge/amounts'
import { bitcoinDevKey } from './keys'
import { payBitcoin } from './wallet'

/** `npm run devnet -- send BITCOIN <address> <amount>`: BTC from development key 0 (docs/bridge/README.md#local-chains-npm-start). */

export async function sendBitcoin(esploraUrl: string, to: string, amount: string, token?: string): Promise<string> {
    if (token !== undefined && token.toUpperCase() !== 'BTC') throw new Error(`BITCOIN has no token ${token}: only BTC`)
    return payBitcoin(esploraUrl, bitcoinDevKey(0), to, parseUnits(amount, 8))
}
