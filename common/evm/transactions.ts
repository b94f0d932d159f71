import { Address, Hex, parseTransaction, PublicClient, recoverTransactionAddress, TransactionNotFoundError, TransactionReceiptNotFoundError } from 'viem'
import { BroadcastResult, Finality, TxChain, TxState } from '../sending/chain'
import { errorText } from './errors'
import { finalHeight, settled } from './finality'

/** Broadcasting and following our own EVM transactions, as the durable sender needs them (docs/sending.md). */

/**
 * The lowest nonce from the node's pending count that no stored transaction of ours holds:
 * normally the next one; after a transaction was refused for good, its nonce again (no gap to
 * stall the rest).
 */
export async function nextNonce(client: PublicClient, from: Address, reserved: number[]): Promise<number> {
    const held = new Set(reserved)
    let nonce = await client.getTransactionCount({ address: from, blockTag: 'pending' })
    while (held.has(nonce)) nonce++
    return nonce
}

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
    const final = await finalHeight(client, networkFinality)
    // A chain shorter than its finality depth has no final block yet: nothing is proven.
    if (final < 0n) return { kind: 'missing' }
    const finalNonce = await client.getTransactionCount({ address: tx.from as Address, blockNumber: final })
    return finalNonce > tx.nonce ? { kind: 'superseded' } : { kind: 'missing' }
}

export async function broadcast(client: PublicClient, raw: string): Promise<BroadcastResult> {
    try {
        await client.sendRawTransaction({ serializedTransaction: raw as Hex })
        return { kind: 'accepted' }
    } catch (err) {
        const text = errorText(err)
        if (/already known|already imported|known transaction/i.test(text)) return { kind: 'accepted' }
        if (/insufficient funds/i.test(text)) {
            // A node behind the one that saw our funding says so too: believe it only when our own read agrees.
            if (await coversCost(client, raw as Hex)) return { kind: 'uncertain', reason: `${text} (but the sender's balance covers it)` }
            return { kind: 'rejected', reason: text, insufficientFunds: true }
        }
        if (/less than block base fee|underpriced|fee cap|intrinsic gas|exceeds block gas limit/i.test(text)) {
            return { kind: 'rejected', reason: text, insufficientFunds: false }
        }
        // "nonce too low" included: it may be this very transaction, mined already; inspect() tells.
        return { kind: 'uncertain', reason: text }
    }
}

/** Whether the signer of `raw` holds its value and its most gas cost now; false when that cannot be read. */
async function coversCost(client: PublicClient, raw: Hex): Promise<boolean> {
    try {
        const tx = parseTransaction(raw)
        const from = await recoverTransactionAddress({ serializedTransaction: raw as any })
        const balance = await client.getBalance({ address: from })
        return balance >= (tx.value ?? 0n) + (tx.gas ?? 0n) * (tx.maxFeePerGas ?? tx.gasPrice ?? 0n)
    } catch {
        return false
    }
}

/** An EVM network as the durable sender sees it; `networkFinality` is the depth at which a used nonce is final. */
export function evmTxChain(chain: string, client: PublicClient, networkFinality: Finality): TxChain {
    return {
        chain,
        broadcast: (raw) => broadcast(client, raw),
        inspect: (tx, finality) => inspectTransaction(client, networkFinality, tx, finality),
    }
}
