import * as fs from 'fs'
import * as path from 'path'
import { KZG } from 'micro-eth-signer/kzg'
import { bytesToHex, defineKzg, Hex, hexToBytes, Kzg } from 'viem'

/**
 * KZG for signing blob (EIP-4844) transactions, from what is installed: micro-eth-signer (with
 * hardhat) and the trusted setup viem ships. Pure JS: a blob's commitment and proof take a few seconds.
 */
export function kzg(): Kzg {
    // viem/node's mainnetTrustedSetupPath points beside its CommonJS build, where the file is not.
    const setup = JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve('viem')), '..', 'trusted-setups', 'mainnet.json'), 'utf8'))
    const k = new KZG(setup)
    return defineKzg({
        blobToKzgCommitment: (blob) => hexToBytes(k.blobToKzgCommitment(bytesToHex(blob)) as Hex),
        computeBlobKzgProof: (blob, commitment) => hexToBytes(k.computeBlobProof(bytesToHex(blob), bytesToHex(commitment)) as Hex),
    })
}
