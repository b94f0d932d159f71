import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'crypto'
import { Pool } from 'pg'
import { HDKey, hdKeyToAccount, LocalAccount } from 'viem/accounts'
import { Family } from './registry'

/**
 * The key manager. Each chain family has one HD seed (64 random bytes, BIP-32 master seed),
 * generated on first use and stored only sealed: AES-256-GCM under a key derived (HKDF-SHA256)
 * from MASTER_KEY, with the family name as associated data so a ciphertext moved to another row
 * does not open. The plaintext seed and any key derived from it exist only inside withSeed(), for
 * the duration of one derivation or signature; the buffer is zeroed afterwards.
 *
 * Paths (BIP-44, coin type 60 for every EVM chain):
 *   deposit address of swap i: m/44'/60'/0'/0/i  (i from bridge_deposit_index_seq, never reused)
 *   vault:                     m/44'/60'/1'/0/0  (one address, the same on every EVM chain)
 */

export type KeyRole = { kind: 'deposit'; index: number } | { kind: 'vault' }

const KEY_INFO = 'bridge-seed-v1'

export class KeyManager {
    private readonly sealingKey: Buffer
    /** Ciphertexts only; the plaintext is never cached. */
    private readonly sealed = new Map<Family, { iv: Buffer; ciphertext: Buffer }>()

    constructor(private readonly pool: Pool, masterKeyHex: string) {
        const master = Buffer.from(masterKeyHex, 'hex')
        if (master.length !== 32) throw new Error('MASTER_KEY must be 32 bytes')
        this.sealingKey = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), KEY_INFO, 32))
    }

    /** Makes sure each family has a seed. Safe with several replicas starting at once: the first insert wins. */
    async init(families: Family[]): Promise<void> {
        for (const family of families) {
            const seed = randomBytes(64)
            const iv = randomBytes(12)
            const ciphertext = this.seal(seed, iv, family)
            seed.fill(0)
            await this.pool.query(
                `INSERT INTO bridge_key_seed (family, iv, ciphertext) VALUES ($1, $2, $3) ON CONFLICT (family) DO NOTHING`,
                [family, iv, ciphertext]
            )
            const { rows } = await this.pool.query(`SELECT iv, ciphertext FROM bridge_key_seed WHERE family = $1`, [family])
            this.sealed.set(family, { iv: rows[0].iv, ciphertext: rows[0].ciphertext })
            // Opening it once at start turns a wrong MASTER_KEY into a start-up error, not a failed payout.
            await this.withSeed(family, () => undefined)
        }
    }

    /** Runs fn with the plaintext seed of a family, then wipes it. */
    async withSeed<T>(family: Family, fn: (seedBytes: Uint8Array) => T | Promise<T>): Promise<T> {
        const sealed = this.sealed.get(family)
        if (!sealed) throw new Error(`no seed for the ${family} family`)
        const seedBytes = this.open(sealed.iv, sealed.ciphertext, family)
        try {
            return await fn(seedBytes)
        } finally {
            seedBytes.fill(0)
        }
    }

    /** An EVM account for a role; the caller must use it only inside the withSeed callback that produced seedBytes. */
    static evmAccount(seedBytes: Uint8Array, role: KeyRole): LocalAccount {
        const path = role.kind === 'vault' ? `m/44'/60'/1'/0/0` : `m/44'/60'/0'/0/${role.index}`
        return hdKeyToAccount(HDKey.fromMasterSeed(seedBytes), { path: path as `m/44'/60'/${string}` })
    }

    /** The EVM address of a role (derived from the seed, which is wiped right after). */
    async evmAddress(role: KeyRole): Promise<`0x${string}`> {
        return this.withSeed('evm', (seedBytes) => KeyManager.evmAccount(seedBytes, role).address)
    }

    private seal(plain: Buffer, iv: Buffer, family: Family): Buffer {
        const cipher = createCipheriv('aes-256-gcm', this.sealingKey, iv)
        cipher.setAAD(Buffer.from(`bridge_key_seed:${family}`))
        return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()])
    }

    private open(iv: Buffer, sealed: Buffer, family: Family): Buffer {
        const decipher = createDecipheriv('aes-256-gcm', this.sealingKey, iv)
        decipher.setAAD(Buffer.from(`bridge_key_seed:${family}`))
        decipher.setAuthTag(sealed.subarray(sealed.length - 16))
        try {
            return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()])
        } catch {
            throw new Error(`the ${family} bridge seed does not open with this MASTER_KEY`)
        }
    }
}
