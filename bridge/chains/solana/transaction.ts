import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js'
import bs58 from 'bs58'

/** SOLANA transfers as the engine stores them, `<lastValidBlockHeight>:<base64 wire transaction>`, sent as the same bytes every time: docs/bridge/networks.md#solana */

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
