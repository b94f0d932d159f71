import { TronWeb } from 'tronweb'
import { parseUnits } from '../../bridge/amounts'
import { normalizeAddress } from '../../bridge/chains/tron/address'
import { decodeMessage, TronHttp } from '../../bridge/chains/tron/client'
import { MAINNET_USDT_CONTRACT } from '../../bridge/chains/tron/config'
import { signDigest } from '../../bridge/chains/tron/keys'
import { checkBuilt, TronTransaction, TransferIntent } from '../../bridge/chains/tron/transaction'
import { tronDevKey } from './keys'

/** `npm run devnet -- send TRON <address> <amount> [USDT]`: a wallet's transfer from development key 0, through the network's HTTP API (docs/bridge/README.md#local-chains-npm-start). */

export interface TronSendEnv {
    TRON_API_URL?: string
    TRON_API_KEY?: string
    TRON_USDT_CONTRACT?: string
    TRON_DEVNET_PORT: number
}

export type TronToken = 'TRX' | 'USDT'

const DECIMALS = 6
/** What one USDT transfer may burn for energy: 100 TRX, as the bridge's default. */
const FEE_LIMIT_SUN = 100_000_000n

export function tronUrl(env: TronSendEnv): string {
    return env.TRON_API_URL ?? `http://127.0.0.1:${env.TRON_DEVNET_PORT}`
}

/** Sends `amount` (whole TRX or USDT, a decimal string) to `to`, signed by development key 0; resolves to the txID once the node has taken it. */
export async function sendTron(env: TronSendEnv, to: string, amount: string, token: TronToken = 'TRX'): Promise<string> {
    if (!normalizeAddress(to)) throw new Error(`not a base58 TRON address: ${to}`)
    const units = parseUnits(amount, DECIMALS)
    if (units <= 0n) throw new Error('the amount must be positive')
    const url = tronUrl(env)
    const headers = env.TRON_API_KEY ? { 'TRON-PRO-API-KEY': env.TRON_API_KEY } : {}
    const tronWeb = new TronWeb({ fullHost: url, headers })
    const key = tronDevKey(0)
    let tx: TronTransaction
    let intent: TransferIntent
    if (token === 'TRX') {
        if (units > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${amount} TRX is too large for one transfer`)
        intent = { kind: 'trx', owner: key.address, to, amount: units }
        tx = (await tronWeb.transactionBuilder.sendTrx(to, Number(units), key.address)) as unknown as TronTransaction
    } else {
        const contract = env.TRON_USDT_CONTRACT ?? MAINNET_USDT_CONTRACT
        intent = { kind: 'trc20', owner: key.address, contract, to, amount: units, feeLimit: FEE_LIMIT_SUN }
        const built = await tronWeb.transactionBuilder.triggerSmartContract(contract, 'transfer(address,uint256)',
            { feeLimit: Number(FEE_LIMIT_SUN), callValue: 0 }, [{ type: 'address', value: to }, { type: 'uint256', value: units.toString() }], key.address)
        if (built?.result?.result !== true) throw new Error(`TRON: the node did not build the USDT transfer: ${JSON.stringify(built?.result ?? built).slice(0, 200)}`)
        tx = built.transaction as unknown as TronTransaction
    }
    // A wallet signs only what it meant to send, whatever the node built.
    checkBuilt(tx, intent)
    const signature = signDigest(key.privateKey, Buffer.from(tx.txID, 'hex'))
    const answer = await new TronHttp(url, env.TRON_API_KEY).post('/wallet/broadcasttransaction', { ...tx, signature: [signature] })
    if (answer?.result !== true) throw new Error(`TRON: the node refused the transfer: ${answer?.code ?? ''} ${typeof answer?.message === 'string' ? decodeMessage(answer.message) : JSON.stringify(answer)}`)
    return tx.txID
}
