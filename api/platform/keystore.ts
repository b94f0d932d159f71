import argon2 from 'argon2'
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'crypto'
import { Hex } from 'viem'

/**
 * The platform's secrets at rest.
 *
 * A user's password goes through argon2id once per request (with the user's salt); the 32-byte
 * result ("password secret") is never stored. From it:
 * - the verifier = HMAC(master key, secret) is stored and compared in constant time. Because the
 *   master key is in it, a stolen database does not even allow an offline guess of the password;
 * - each wallet's key-encryption key = HKDF(master key ‖ secret, wallet salt), under which the
 *   private key is sealed with AES-256-GCM, bound to its user and address as associated data
 *   (a ciphertext copied onto another row does not open).
 * So opening a key needs the server's master key and the user's password together.
 */

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

    constructor(masterKeyHex: string) {
        this.masterKey = Buffer.from(masterKeyHex, 'hex')
        if (this.masterKey.length !== 32) throw new Error('the master key must be 32 bytes (64 hex characters)')
    }

    /** The argon2id secret of a password under a stored salt and parameters. */
    async passwordSecret(password: string, salt: Buffer, kdf: string): Promise<Buffer> {
        const params = KDF_FORMAT.exec(kdf)
        if (!params) throw new Error(`unknown password kdf ${kdf}`)
        return argon2.hash(password, {
            type: argon2.argon2id,
            raw: true,
            salt,
            hashLength: 32,
            memoryCost: Number(params[1]),
            timeCost: Number(params[2]),
            parallelism: Number(params[3]),
        })
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
        const iv = randomBytes(12)
        const cipher = createCipheriv('aes-256-gcm', this.kek(secret, salt), iv)
        cipher.setAAD(this.aad(userId, address))
        const key = Buffer.from(privateKey.slice(2), 'hex')
        const ciphertext = Buffer.concat([cipher.update(key), cipher.final(), cipher.getAuthTag()])
        key.fill(0)
        return { salt, iv, ciphertext }
    }

    open(sealed: SealedKey, secret: Buffer, userId: string, address: string): Hex {
        const decipher = createDecipheriv('aes-256-gcm', this.kek(secret, sealed.salt), sealed.iv)
        decipher.setAAD(this.aad(userId, address))
        decipher.setAuthTag(sealed.ciphertext.subarray(-16))
        const key = Buffer.concat([decipher.update(sealed.ciphertext.subarray(0, -16)), decipher.final()])
        const hex = `0x${key.toString('hex')}` as Hex
        key.fill(0)
        return hex
    }

    private verifier(secret: Buffer): Buffer {
        return createHmac('sha256', this.masterKey).update('platform/v1/verifier').update(secret).digest()
    }

    private kek(secret: Buffer, salt: Buffer): Buffer {
        return Buffer.from(hkdfSync('sha256', Buffer.concat([this.masterKey, secret]), salt, 'platform/v1/wallet-key', 32))
    }

    private aad(userId: string, address: string): Buffer {
        return Buffer.from(`platform/v1|${userId}|${address.toLowerCase()}`, 'utf8')
    }
}
