import argon2 from 'argon2'
import bcrypt from 'bcryptjs'

/**
 * Password hashing: argon2id with the parameters of the OWASP Password Storage Cheat Sheet
 * (19 MiB, 2 passes, 1 lane), which keeps a sign-in near 50 ms of one core instead of the
 * library default's several hundred on a small server. Hashes imported from an older store made
 * with bcrypt ($2a$/$2b$/$2y$) still verify, and the caller is told to replace them.
 */
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

const BCRYPT_PREFIX = /^\$2[aby]\$\d{2}\$/

export function hashPassword(password: string): Promise<string> {
    return argon2.hash(password, ARGON2_OPTIONS)
}

export interface PasswordCheck {
    ok: boolean
    /** The stored hash is bcrypt or argon2 with other parameters: store hashPassword(password) now. */
    rehash: boolean
}

export async function verifyPassword(storedHash: string, password: string): Promise<PasswordCheck> {
    if (BCRYPT_PREFIX.test(storedHash)) {
        return { ok: await bcrypt.compare(password, storedHash), rehash: true }
    }
    if (storedHash.startsWith('$argon2')) {
        const ok = await argon2.verify(storedHash, password).catch(() => false)
        return { ok, rehash: ok && argon2.needsRehash(storedHash, ARGON2_OPTIONS) }
    }
    return { ok: false, rehash: false }
}

let dummyHash: Promise<string> | undefined

/**
 * Spends the time of one verification for an email without an account, so the answer to a
 * sign-in does not reveal by its delay whether the account exists.
 */
export async function spendVerificationTime(password: string): Promise<void> {
    dummyHash ??= hashPassword('not a password of anyone')
    await argon2.verify(await dummyHash, password).catch(() => false)
}
