import argon2 from 'argon2'
import { createHmac, randomBytes, timingSafeEqual } from 'crypto'
import { Hex } from 'viem'
import { WorkPool } from '../../common/work-pool'
import { deriveKey, masterKeyBytes, open, seal } from '../../common/sealing'

/** The platform's secrets at rest: password verifier and sealed wallet keys, opened only with the master key and the password together: docs/platform-api.md (Keys at rest) */

/** argon2id parameters of new users: OWASP's recommended minimum (19 MiB, 2 passes). */
const KDF = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const
export const CURRENT_KDF = `argon2id$v=19$m=${KDF.memoryCost},t=${KDF.timeCost},p=${KDF.parallelism}`

const KDF_FORMAT = /^argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)$/

export interface StoredCredential {
    kdf: string
    salt: Buffer
    verifier: Buffer
}

export interface SealedKey {
    salt: Buffer
    iv: Buffer
    ciphertext: Buffer
}

export class Keystore {
    private readonly masterKey: Buffer

    /** Every argon2id run goes through `hashes`, which refuses with 503 when it is full. */
    constructor(masterKeyHex: string, private readonly hashes: WorkPool) {
        this.masterKey = masterKeyBytes(masterKeyHex)
    }

    /** The argon2id secret of a password under a stored salt and parameters. */
    async passwordSecret(password: string, salt: Buffer, kdf: string): Promise<Buffer> {
        const params = KDF_FORMAT.exec(kdf)
        if (!params) throw new Error(`unknown password kdf ${kdf}`)
        return this.hashes.run(() => argon2.hash(password, {
            type: argon2.argon2id,
            raw: true,
            salt,
            hashLength: 32,
            memoryCost: Number(params[1]),
            timeCost: Number(params[2]),
            parallelism: Number(params[3]),
        }))
    }

    /** Credential of a new user, and the password secret to seal their first wallet with. */
    async newCredential(password: string): Promise<{ credential: StoredCredential; secret: Buffer }> {
        const salt = randomBytes(16)
        const secret = await this.passwordSecret(password, salt, CURRENT_KDF)
        return { credential: { kdf: CURRENT_KDF, salt, verifier: this.verifier(secret) }, secret }
    }

    /** The password secret when the password matches the credential, else undefined. */
    async verify(password: string, credential: StoredCredential): Promise<Buffer | undefined> {
        const secret = await this.passwordSecret(password, credential.salt, credential.kdf)
        const expected = this.verifier(secret)
        const ok = expected.length === credential.verifier.length && timingSafeEqual(expected, credential.verifier)
        return ok ? secret : undefined
    }

    /**
     * A credential no password matches, costing the same argon2id work as a real one: checked
     * when the user or wallet does not exist, so a failure takes as long either way.
     */
    readonly dummyCredential: StoredCredential = { kdf: CURRENT_KDF, salt: randomBytes(16), verifier: randomBytes(32) }

    seal(privateKey: Hex, secret: Buffer, userId: string, address: string): SealedKey {
        const salt = randomBytes(16)
        const kek = this.kek(secret, salt)
        const key = Buffer.from(privateKey.slice(2), 'hex')
        const { iv, ciphertext } = seal(kek, key, this.aad(userId, address))
        key.fill(0)
        kek.fill(0)
        return { salt, iv, ciphertext }
    }

    /** The private key; throws SealError when the secret, the master key or the row do not match. */
    open(sealed: SealedKey, secret: Buffer, userId: string, address: string): Hex {
        const kek = this.kek(secret, sealed.salt)
        try {
            const key = open(kek, sealed, this.aad(userId, address))
            const hex = `0x${key.toString('hex')}` as Hex
            key.fill(0)
            return hex
        } finally {
            kek.fill(0)
        }
    }

    private verifier(secret: Buffer): Buffer {
        return createHmac('sha256', this.masterKey).update('platform/v1/verifier').update(secret).digest()
    }

    /** Per-wallet key: both the master key and the password secret go into it, the wallet's salt beside. */
    private kek(secret: Buffer, salt: Buffer): Buffer {
        const ikm = Buffer.concat([this.masterKey, secret])
        const kek = deriveKey(ikm, 'platform/v1/wallet-key', salt)
        ikm.fill(0)
        return kek
    }

    private aad(userId: string, address: string): string {
        return `platform/v1|${userId}|${address.toLowerCase()}`
    }
}
