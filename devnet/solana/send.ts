import { Connection, PublicKey, SystemProgram, Transaction } from '@solana/web3.js'
import { parseUnits } from '../../bridge/amounts'
import { solanaDevKey } from './keys'

/** `npm run devnet -- send SOLANA <address> <amount>`: a wallet's transfer from development key 0, through the cluster's JSON-RPC (docs/bridge/README.md#local-chains-npm-start). */

export interface SolanaSendEnv {
    SOLANA_RPC_URL?: string
    SOLANA_DEVNET_PORT: number
}

const DECIMALS = 9

export function solanaUrl(env: SolanaSendEnv): string {
    return env.SOLANA_RPC_URL ?? `http://127.0.0.1:${env.SOLANA_DEVNET_PORT}`
}

/** Sends `amount` SOL (a decimal string) to `to`, signed by development key 0; resolves to the signature once the node has taken it. */
export async function sendSolana(env: SolanaSendEnv, to: string, amount: string): Promise<string> {
    let recipient: PublicKey
    try {
        recipient = new PublicKey(to)
    } catch {
        throw new Error(`not a base58 Solana address: ${to}`)
    }
    const lamports = parseUnits(amount, DECIMALS)
    if (lamports <= 0n) throw new Error('the amount must be positive')
    const connection = new Connection(solanaUrl(env), 'confirmed')
    const payer = solanaDevKey(0)
    try {
        const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports }))
        return await connection.sendTransaction(tx, [payer])
    } finally {
        payer.secretKey.fill(0)
    }
}
