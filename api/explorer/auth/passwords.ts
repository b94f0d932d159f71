import argon2 from 'argon2'
import bcrypt from 'bcryptjs'
import { WorkPool } from '../../../common/work-pool'

/**
 * Password hashing: argon2id with the parameters of the OWASP Password Storage Cheat Sheet
 * (19 MiB, 2 passes, 1 lane), which keeps a sign-in near 50 ms of one core instead of the
 * library default's several hundred on a small server. Hashes imported from an older store made
 * with bcrypt ($2a$/$2b$/$2y$) still verify, and the caller is told to replace them. Every hash and
 * verification runs in a bounded WorkPool (docs/explorer-api.md, Rate limits).
 */
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

const BCRYPT_PREFIX = /^\$2[aby]\$\d{2}\$/

export interface PasswordCheck {
    ok: boolean
    /** The stored hash is bcrypt or argon2 with other parameters: store hash(password) now. */
    rehash: boolean
}

export class Passwords {
    private dummyHash?: Promise<string>

    constructor(private readonly pool: WorkPool) {}

    hash(password: string): Promise<string> {
        return this.pool.run(() => argon2.hash(password, ARGON2_OPTIONS))
    }

    verify(storedHash: string, password: string): Promise<PasswordCheck> {
        if (BCRYPT_PREFIX.test(storedHash)) {
            return this.pool.run(async () => ({ ok: await bcrypt.compare(password, storedHash), rehash: true }))
        }
        if (storedHash.startsWith('$argon2')) {
            return this.pool.run(async () => {
                const ok = await argon2.verify(storedHash, password).catch(() => false)
                return { ok, rehash: ok && argon2.needsRehash(storedHash, ARGON2_OPTIONS) }
            })
        }
        return Promise.resolve({ ok: false, rehash: false })
    }

    /**
     * Spends the time of one verification for an email without an account, so the answer to a
     * sign-in does not reveal by its delay whether the account exists.
     */
    async spendVerificationTime(password: string): Promise<void> {
        // Made outside the pool: a busy pool must not leave a rejected promise here for good.
        this.dummyHash ??= argon2.hash('not a password of anyone', ARGON2_OPTIONS)
        const dummy = await this.dummyHash
        await this.pool.run(() => argon2.verify(dummy, password).catch(() => false))
    }
}
