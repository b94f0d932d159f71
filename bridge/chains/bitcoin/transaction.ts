import * as bitcoin from 'bitcoinjs-lib'
import { InputSigner } from './keys'
import { SpendPlan } from './selection'

/**
 * Building and signing a spend of P2WPKH coins (BIP-143 sighash, SIGHASH_ALL), and reading back
 * what a stored raw transaction spends.
 *
 * Every input signals replaceability (BIP-125, nSequence 0xfffffffd): a transaction stuck at too
 * low a fee can then be replaced by one that spends the same inputs at a higher fee, and the two
 * can never both land. Version 2, locktime 0.
 */

export const RBF_SEQUENCE = 0xfffffffd

export interface SignedSpend {
    txid: string
    raw: string
    vsize: number
}

/** Internal byte order of a txid (bitcoinjs and the wire use the reverse of the hex shown). */
export function txidBytes(txid: string): Uint8Array {
    return Uint8Array.from(Buffer.from(txid, 'hex').reverse())
}

export function bytesTxid(hash: Uint8Array): string {
    return Buffer.from(hash).reverse().toString('hex')
}

/** All inputs must belong to `signer`'s key. */
export function signSpend(plan: SpendPlan, signer: InputSigner): SignedSpend {
    const tx = new bitcoin.Transaction()
    tx.version = 2
    tx.locktime = 0
    for (const coin of plan.inputs) tx.addInput(txidBytes(coin.txid), coin.vout, RBF_SEQUENCE)
    for (const output of plan.outputs) tx.addOutput(output.script, output.value)
    // BIP-143: a P2WPKH input signs the P2PKH script of its key hash as its scriptCode.
    const scriptCode = bitcoin.payments.p2pkh({ pubkey: signer.publicKey }).output!
    plan.inputs.forEach((coin, i) => {
        const sighash = tx.hashForWitnessV0(i, scriptCode, coin.value, bitcoin.Transaction.SIGHASH_ALL)
        const signature = bitcoin.script.signature.encode(signer.sign(sighash), bitcoin.Transaction.SIGHASH_ALL)
        tx.setWitness(i, [signature, signer.publicKey])
    })
    const vsize = tx.virtualSize()
    if (vsize > plan.vsize) throw new Error(`signed transaction is ${vsize} vB, larger than the ${plan.vsize} vB its fee was computed for`)
    return { txid: tx.getId(), raw: tx.toHex(), vsize }
}

export interface DecodedSpend {
    txid: string
    inputs: { txid: string; vout: number }[]
    outputs: { script: Uint8Array; value: bigint }[]
    vsize: number
}

export function decodeSpend(raw: string): DecodedSpend {
    const tx = bitcoin.Transaction.fromHex(raw)
    return {
        txid: tx.getId(),
        inputs: tx.ins.map((i) => ({ txid: bytesTxid(i.hash), vout: i.index })),
        outputs: tx.outs.map((o) => ({ script: o.script, value: o.value })),
        vsize: tx.virtualSize(),
    }
}
