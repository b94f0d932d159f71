import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'crypto'

/**
 * Secrets at rest: AES-256-GCM under keys derived (HKDF-SHA256) from MASTER_KEY, one key per
 * purpose (the HKDF info string). The stored format, which databases already hold and must keep
 * opening: a 12-byte IV, and the ciphertext followed by its 16-byte tag. The associated data names
 * the row a value belongs to, so a ciphertext copied onto another row does not open.
 */

const IV_BYTES = 12
const TAG_BYTES = 16
const NO_SALT = Buffer.alloc(0)

export class SealError extends Error {}

export interface Sealed {
    iv: Buffer
    /** The encrypted bytes followed by the 16-byte GCM tag. */
    ciphertext: Buffer
}

/** MASTER_KEY's 32 bytes from its hex form. */
export function masterKeyBytes(masterKeyHex: string): Buffer {
    const key = Buffer.from(masterKeyHex, 'hex')
    if (key.length !== 32) throw new Error('MASTER_KEY must be 32 bytes (64 hex characters)')
    return key
}

/**
 * A 32-byte AES key: HKDF-SHA256 of the input key material for one purpose (`info`). The salt is
 * empty for keys fixed per purpose, random and stored beside the value for per-value keys.
 */
export function deriveKey(ikm: Buffer, info: string, salt: Buffer = NO_SALT): Buffer {
    return Buffer.from(hkdfSync('sha256', ikm, salt, info, 32))
}

export function seal(key: Buffer, plain: Buffer, aad: string): Sealed {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    cipher.setAAD(Buffer.from(aad, 'utf8'))
    return { iv, ciphertext: Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]) }
}

/** The plaintext; throws SealError when the key, the IV or the associated data do not match. */
export function open(key: Buffer, sealed: Sealed, aad: string): Buffer {
    const { iv, ciphertext } = sealed
    if (ciphertext.length < TAG_BYTES) throw new SealError('sealed value is shorter than its tag')
    const decipher = createDecipheriv('aes-256-gcm', key, iv)
    decipher.setAAD(Buffer.from(aad, 'utf8'))
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_BYTES))
    try {
        return Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - TAG_BYTES)), decipher.final()])
    } catch {
        throw new SealError('sealed value does not open with this MASTER_KEY')
    }
}

/** Seals values of one purpose under one key derived from MASTER_KEY (empty salt). */
export class Sealer {
    private readonly key: Buffer

    constructor(masterKeyHex: string, info: string) {
        this.key = deriveKey(masterKeyBytes(masterKeyHex), info)
    }

    seal(plain: Buffer, aad: string): Sealed {
        return seal(this.key, plain, aad)
    }

    /** The plaintext; throws SealError when the key, the IV or the associated data do not match. */
    open(iv: Buffer, ciphertext: Buffer, aad: string): Buffer {
        return open(this.key, { iv, ciphertext }, aad)
    }
}
