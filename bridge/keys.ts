import { randomBytes } from 'crypto'
import { Pool } from 'pg'
import { HDKey, hdKeyToAccount, LocalAccount } from 'viem/accounts'
import { Sealed, Sealer } from '../common/sealing'
import { Family } from './registry'

/** One sealed HD seed per chain family, opened only inside withSeed() and zeroed after: docs/bridge/lifecycle.md#keys */

export type KeyRole = { kind: 'deposit'; index: number } | { kind: 'vault' }

const KEY_INFO = 'bridge-seed-v1'

export class KeyManager {
    private readonly sealer: Sealer
    /** Ciphertexts only; the plaintext is never cached. */
    private readonly sealed = new Map<Family, Sealed>()
    /** Public addresses already derived, by family and role: deriving one opens the seed, and they never change. */
    private readonly addresses = new Map<string, string>()

    constructor(private readonly pool: Pool, masterKeyHex: string) {
        this.sealer = new Sealer(masterKeyHex, KEY_INFO)
    }

    /** Makes sure each family has a seed. Safe with several replicas starting at once: the first insert wins. */
    async init(families: Family[]): Promise<void> {
        for (const family of families) {
            const seed = randomBytes(64)
            const { iv, ciphertext } = this.sealer.seal(seed, `bridge_key_seed:${family}`)
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

    /**
     * The public address of a role in a family, derived once per process by `derive` (which gets the
     * plaintext seed, wiped right after) and remembered: an address is public, the seed is not.
     * `network` tells apart encodings of one key (a Bitcoin key's mainnet and regtest addresses).
     */
    async address(family: Family, role: KeyRole, derive: (seedBytes: Uint8Array) => string, network = ''): Promise<string> {
        const id = `${family}:${network}:${role.kind === 'vault' ? 'vault' : `deposit:${role.index}`}`
        let address = this.addresses.get(id)
        if (address === undefined) {
            address = await this.withSeed(family, derive)
            this.addresses.set(id, address)
        }
        return address
    }

    /** An EVM account for a role; the caller must use it only inside the withSeed callback that produced seedBytes. */
    static evmAccount(seedBytes: Uint8Array, role: KeyRole): LocalAccount {
        const path = role.kind === 'vault' ? `m/44'/60'/1'/0/0` : `m/44'/60'/0'/0/${role.index}`
        return hdKeyToAccount(HDKey.fromMasterSeed(seedBytes), { path: path as `m/44'/60'/${string}` })
    }

    /** The EVM address of a role (derived from the seed, which is wiped right after). */
    async evmAddress(role: KeyRole): Promise<`0x${string}`> {
        return (await this.address('evm', role, (seedBytes) => KeyManager.evmAccount(seedBytes, role).address)) as `0x${string}`
    }

    private open(iv: Buffer, sealed: Buffer, family: Family): Buffer {
        try {
            return this.sealer.open(iv, sealed, `bridge_key_seed:${family}`)
        } catch {
            throw new Error(`the ${family} bridge seed does not open with this MASTER_KEY`)
        }
    }
}
