import { Keypair } from '@solana/web3.js'
import { createHmac } from 'crypto'
import { KeyManager, KeyRole } from '../../keys'

/** SOLANA keys and addresses from the solana family's sealed seed, by SLIP-0010 (every level hardened) as Solana wallets derive them: docs/bridge/networks.md#solana */

const HARDENED = 0x8000_0000

/** Deposit i at the path Phantom and Solflare use for account i; the vault at change 1', which no deposit path ends in. */
export function solanaPath(role: KeyRole): string {
    return role.kind === 'vault' ? `m/44'/501'/0'/1'` : `m/44'/501'/${role.index}'/0'`
}

/**
 * SLIP-0010 ed25519 private key (32 bytes) of a path whose levels are all hardened; the caller wipes it. Written here
 * rather than taken from a package to keep key material away from another dependency; test/bridge/solana-units checks
 * it against the published vectors.
 */
export function slip10Ed25519(seed: Uint8Array, path: string): { key: Buffer; chainCode: Buffer } {
    const levels = path.split('/')
    if (levels[0] !== 'm') throw new Error(`not a derivation path: ${path}`)
    let I = createHmac('sha512', 'ed25519 seed').update(seed).digest()
    let key = I.subarray(0, 32)
    let chainCode = I.subarray(32)
    for (const level of levels.slice(1)) {
        const match = /^(\d+)'$/.exec(level)
        // ed25519 has no non-hardened children: SLIP-0010 leaves them undefined.
        if (!match) throw new Error(`SLIP-0010 ed25519 allows hardened levels only: ${path}`)
        const index = Number(match[1])
        if (!Number.isSafeInteger(index) || index >= HARDENED) throw new Error(`index out of range in ${path}`)
        const data = Buffer.alloc(37)
        key.copy(data, 1)
        data.writeUInt32BE(index + HARDENED, 33)
        const next = createHmac('sha512', chainCode).update(data).digest()
        data.fill(0)
        I.fill(0)
        I = next
        key = I.subarray(0, 32)
        chainCode = I.subarray(32)
    }
    const result = { key: Buffer.from(key), chainCode: Buffer.from(chainCode) }
    I.fill(0)
    return result
}

export function deriveKeypair(seed: Uint8Array, role: KeyRole): Keypair {
    if (role.kind === 'deposit' && (!Number.isInteger(role.index) || role.index < 0 || role.index >= HARDENED)) {
        throw new Error(`deposit index out of the hardened range: ${role.index}`)
    }
    const { key, chainCode } = slip10Ed25519(seed, solanaPath(role))
    try {
        return Keypair.fromSeed(key)
    } finally {
        key.fill(0)
        chainCode.fill(0)
    }
}

export class SolanaKeys {
    constructor(private readonly keys: KeyManager) {}

    address(role: KeyRole): Promise<string> {
        return this.keys.address('solana', role, (seed) => {
            const pair = deriveKeypair(seed, role)
            try {
                return pair.publicKey.toBase58()
            } finally {
                pair.secretKey.fill(0)
            }
        })
    }

    /** Runs fn with the role's keypair; the keypair's secret and the seed are wiped when it returns. */
    async withKeypair<T>(role: KeyRole, fn: (pair: Keypair) => T | Promise<T>): Promise<T> {
        return this.keys.withSeed('solana', async (seed) => {
            const pair = deriveKeypair(seed, role)
            try {
                return await fn(pair)
            } finally {
                pair.secretKey.fill(0)
            }
        })
    }
}
