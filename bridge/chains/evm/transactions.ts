import { Address, Hex, PublicClient, TransactionNotFoundError, TransactionReceiptNotFoundError } from 'viem'
import { Finality } from '../finality'
import { TxState } from '../adapter'
import { finalHeight, settled } from './finality'

export async function receiptOrNull(client: PublicClient, hash: string) {
    try {
        return await client.getTransactionReceipt({ hash: hash as Hex })
    } catch (err) {
        if (err instanceof TransactionReceiptNotFoundError) return null
        throw err
    }
}

/**
 * Where one of our transactions stands. The nonce alone never condemns it: a node one block
 * behind another has no receipt yet while the other already counts the nonce. Only a nonce
 * used at a block that is final by the network's own rule (`networkFinality`, whatever
 * `finality` the caller judges the receipt by), with still no receipt for this transaction, is
 * 'superseded' (the sender then finds which transaction used it).
 */
export async function inspectTransaction(
    client: PublicClient,
    networkFinality: Finality,
    tx: { hash: string; from: string; nonce: number | null },
    finality: Finality
): Promise<TxState> {
    const receipt = await receiptOrNull(client, tx.hash)
    if (receipt) {
        const state = await settled(client, receipt.blockNumber, receipt.blockHash, finality)
        return { kind: receipt.status === 'success' ? 'confirmed' : 'reverted', ...state }
    }
    try {
        await client.getTransaction({ hash: tx.hash as Hex })
        return { kind: 'pending' }
    } catch (err) {
        if (!(err instanceof TransactionNotFoundError)) throw err
    }
    if (tx.nonce === null) return { kind: 'missing' }
    const finalNonce = await client.getTransactionCount({ address: tx.from as Address, blockNumber: await finalHeight(client, networkFinality) })
    return finalNonce > tx.nonce ? { kind: 'superseded' } : { kind: 'missing' }
}
