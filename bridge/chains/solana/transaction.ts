import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js'
import bs58 from 'bs58'

/**
 * Signed transfers as the engine stores them. A Solana transaction carries a recent blockhash,
 * not a sequence number, and is valid only until the chain's block height passes that
 * blockhash's lastValidBlockHeight (which the node reports with the blockhash, and which the
 * transaction bytes do not contain). So the stored raw form is
 *
 *   <lastValidBlockHeight>:<base64 of the signed wire transaction>
 *
 * broadcast() sends exactly those wire bytes, every time; the height in front is what lets
 * inspect() prove, even after a restart, that the bytes can no longer land.
 */

export interface StoredTransfer {
    lastValidBlockHeight: bigint
    wire: Buffer
    /** The first signature, base58: the transaction's id on Solana. */
    signature: string
    recentBlockhash: string
}

export function encodeStored(lastValidBlockHeight: bigint, wire: Uint8Array): string {
    return `${lastValidBlockHeight}:${Buffer.from(wire).toString('base64')}`
}

export function decodeStored(raw: string): StoredTransfer {
    const match = /^(\d+):([A-Za-z0-9+/]+={0,2})$/.exec(raw)
    if (!match) throw new Error('not a stored Solana transfer')
    const wire = Buffer.from(match[2], 'base64')
    const tx = Transaction.from(wire)
    if (!tx.signature || !tx.recentBlockhash) throw new Error('stored Solana transfer is not signed')
    return { lastValidBlockHeight: BigInt(match[1]), wire, signature: bs58.encode(tx.signature), recentBlockhash: tx.recentBlockhash }
}

/** One system transfer, paid and signed by `from` (the only signer, so the fee is one signature's). */
export function signSystemTransfer(from: Keypair, to: PublicKey, lamports: bigint, recentBlockhash: string): { wire: Buffer; signature: string } {
    const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash })
        .add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }))
    tx.sign(from)
    return { wire: tx.serialize(), signature: bs58.encode(tx.signature!) }
}

/** The message of such a transfer, unsigned: what getFeeForMessage prices. */
export function transferMessage(from: PublicKey, to: PublicKey, lamports: bigint, recentBlockhash: string) {
    return new Transaction({ feePayer: from, recentBlockhash }).add(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports })).compileMessage()
}
