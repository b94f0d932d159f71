import * as fs from 'fs'
import * as path from 'path'
import { bytesToHex, defineKzg, Hex, hexToBytes, Kzg } from 'viem'

/**
 * KZG commitments and proofs for blob transactions (EIP-4844), from what is installed: the
 * pure-JS KZG of micro-eth-signer (a development dependency, as anvil is)
 * and the trusted setup viem ships. Loaded when first asked for, so that nothing else of the
 * devnet needs it. A blob's commitment and proof take a few seconds.
 */
export function kzg(): Kzg {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily, a development dependency
    const { KZG } = require('micro-eth-signer/kzg') as typeof import('micro-eth-signer/kzg')
    // viem/node's mainnetTrustedSetupPath points beside its CommonJS build, where the file is not.
    const setup = JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve('viem')), '..', 'trusted-setups', 'mainnet.json'), 'utf8'))
    const k = new KZG(setup)
    return defineKzg({
        blobToKzgCommitment: (blob) => hexToBytes(k.blobToKzgCommitment(bytesToHex(blob)) as Hex),
        computeBlobKzgProof: (blob, commitment) => hexToBytes(k.computeBlobProof(bytesToHex(blob), bytesToHex(commitment)) as Hex),
    })
}
