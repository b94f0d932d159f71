import { createHmac, randomBytes } from 'crypto'
import { Request } from 'express'
import { Pool } from 'pg'
import { Address, LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { Logger } from '../../common/logger'
import { clientKey } from '../../common/service/client-ip'
import { FailureLimit } from '../../common/service/rate-limit'
import { PlatformEnv } from './config'
import { badRequest, unauthorized } from './http'
import { Keystore } from './keystore'
import { findUser, insertUser } from './users'
import { findWallet, WalletRow, walletsOf } from './wallets'

/** A caller who proved a user_id: the password secret opens that user's wallets. */
export interface UserAuth {
    userId: string
    secret: Buffer
}

/** A caller who proved ownership of one wallet. */
export interface WalletAuth extends UserAuth {
    wallet: WalletRow
}

const MAX_PASSWORD = 1024
export const MIN_NEW_PASSWORD = 8
const CACHE_LIMIT = 10_000

/** The account a password is checked for, and the client checking it: the keys of the failure counts. */
interface Attempt {
    ip: string
    /** `user:<user_id>`, or `wallet:<address>` when no user_id is given. */
    account: string
}

/**
 * User-level auth proves a user_id with its password; wallet-level auth proves the
 * password of the user owning a wallet address (and, when a user_id is given too, that the wallet
 * is that user's). Every failure is the same 401, after the same argon2id work: an unknown user or
 * wallet is checked against a dummy credential. Failures count in Postgres (shared by all replicas)
 * per (account, client IP) and per client IP, each attempt counted before any argon2id work; past either
 * limit that IP gets 429 until the window ends, and no other IP does, so nobody can lock an owner
 * out (docs/platform-api.md, Limits). A success clears its (account, IP) count only.
 */
export class Auth {
    private readonly accountFailures: FailureLimit
    private readonly ipFailures: FailureLimit
    /** Verified passwords for a short while, keyed by an HMAC of (user_id, password) under a per-process key. */
    private readonly cache = new Map<string, { secret: Buffer; expires: number }>()
    private readonly cacheKey = randomBytes(32)

    constructor(
        private readonly pool: Pool,
        private readonly keystore: Keystore,
        private readonly env: PlatformEnv,
        private readonly log: Logger
    ) {
        const limit = (name: string, points: number) => new FailureLimit(
            pool,
            'platform_auth_failure',
            { name, points, windowSeconds: env.PLATFORM_AUTH_WINDOW_SECONDS },
            (seconds) => `Too many failed authentication attempts; retry in ${seconds} seconds`,
            { announceBudget: true }
        )
        this.accountFailures = limit('platform', env.PLATFORM_AUTH_MAX_FAILURES)
        this.ipFailures = limit('platform-ip', env.PLATFORM_AUTH_IP_MAX_FAILURES)
    }

    /** The password from header x-user-pwd, else body user_pwd, else query user_pwd (which is logged, without its value). */
    password(req: Request): string | undefined {
        const header = req.headers['x-user-pwd']
        if (typeof header === 'string' && header.length > 0) return header
        const body = req.body as Record<string, unknown> | undefined
        if (body && typeof body === 'object' && typeof body.user_pwd === 'string' && body.user_pwd.length > 0) return body.user_pwd
        const query = req.query.user_pwd
        if (typeof query === 'string' && query.length > 0) {
            this.log.warn({ method: req.method, path: req.baseUrl + req.path }, 'password sent as the user_pwd query parameter, where URLs get logged; send the x-user-pwd header instead')
            return query
        }
        return undefined
    }

    async user(req: Request, userId: string): Promise<UserAuth> {
        const password = this.password(req)
        if (!password) throw unauthorized()
        const secret = await this.verify({ ip: clientKey(req), account: `user:${userId}` }, userId, password)
        return { userId, secret }
    }

    async wallet(req: Request, address: Address, userId?: string): Promise<WalletAuth> {
        const password = this.password(req)
        if (!password) throw unauthorized()
        const wallet = await findWallet(this.pool, address)
        const owner = wallet && (userId === undefined || wallet.userId === userId) ? wallet.userId : undefined
        const account = userId !== undefined ? `user:${userId}` : `wallet:${address.toLowerCase()}`
        // With no owner, verify() still runs the dummy check, so this failure costs what a wrong password costs.
        const secret = await this.verify({ ip: clientKey(req), account }, owner, password)
        return { userId: wallet!.userId, secret, wallet: wallet! }
    }

    /**
     * User-level auth, then one of the user's wallets to sign with: the named one (which must be
     * theirs; else the same 401), or their oldest.
     */
    async userWallet(req: Request, userId: string, address?: Address): Promise<WalletAuth> {
        const auth = await this.user(req, userId)
        if (address) {
            const wallet = await findWallet(this.pool, address)
            if (!wallet || wallet.userId !== userId) throw unauthorized()
            return { ...auth, wallet }
        }
        const [oldest] = await walletsOf(this.pool, userId)
        if (!oldest) throw badRequest('The user has no wallet to sign with; register one first (POST /api/wallet/register_random)')
        return { ...auth, wallet: (await findWallet(this.pool, oldest))! }
    }

    /**
     * register and register_random: a new user_id is created with this password (at least
     * MIN_NEW_PASSWORD characters); an existing one must be proved with its password.
     */
    async registerOrVerify(req: Request, userId: string): Promise<UserAuth & { created: boolean }> {
        const password = this.password(req)
        if (!password) throw unauthorized()
        if (!(await findUser(this.pool, userId))) {
            if (password.length < MIN_NEW_PASSWORD) throw badRequest(`user_pwd must be at least ${MIN_NEW_PASSWORD} characters`)
            if (password.length > MAX_PASSWORD) throw badRequest(`user_pwd must be at most ${MAX_PASSWORD} characters`)
            const { credential, secret } = await this.keystore.newCredential(password)
            if (await insertUser(this.pool, userId, credential)) return { userId, secret, created: true }
            // Created by a concurrent request a moment ago: from here on it is an existing user.
        }
        const secret = await this.verify({ ip: clientKey(req), account: `user:${userId}` }, userId, password)
        return { userId, secret, created: false }
    }

    /** The wallet's signing account; its key exists in memory only for the request. */
    account(auth: WalletAuth): LocalAccount {
        return privateKeyToAccount(this.keystore.open(auth.wallet.sealed, auth.secret, auth.userId, auth.wallet.address))
    }

    private async verify(attempt: Attempt, userId: string | undefined, password: string): Promise<Buffer> {
        // A cached (user_id, password) was verified moments ago: no guess gets here, nothing to count.
        const cacheKey = userId === undefined ? undefined : this.cacheKeyOf(userId, password)
        const cached = cacheKey ? this.cache.get(cacheKey) : undefined
        if (cached && cached.expires > Date.now()) return cached.secret
        const failedBefore = await this.reserve(attempt)
        // A check that could not be made (the hash pool full, the database away) is no failure.
        const secret = await this.check(userId, password).catch(async (err) => {
            await this.giveBack(attempt)
            throw err
        })
        // A failure stays counted: reserve() counted it before the work.
        if (!secret) throw unauthorized()
        if (failedBefore > 0) await Promise.all([this.ipFailures.refund(attempt.ip), this.accountFailures.clear(accountKey(attempt))])
        else await this.giveBack(attempt)
        if (cacheKey) this.remember(cacheKey, secret)
        return secret
    }

    /** The secret a correct password opens; undefined for a wrong one or an unknown user, after the same work. */
    private async check(userId: string | undefined, password: string): Promise<Buffer | undefined> {
        if (password.length > MAX_PASSWORD) return undefined
        const row = userId === undefined ? undefined : await findUser(this.pool, userId)
        const secret = await this.keystore.verify(password, row ?? this.keystore.dummyCredential)
        return row ? secret ?? undefined : undefined
    }

    private async giveBack(attempt: Attempt): Promise<void> {
        await Promise.all([this.ipFailures.refund(attempt.ip), this.accountFailures.refund(accountKey(attempt))])
    }

    /**
     * Counts the attempt as a failure in both limits before any argon2id work, so guesses sent at
     * once cannot pass together; a 429 when either is full, and then neither counts it. Resolves
     * with the (account, IP) failures before this attempt. The IP's limit is taken first and the
     * (account, IP) one only by an attempt inside it: taken at once, an attempt the IP limit
     * refuses would hold an account point until it gave it back, and could crowd out an attempt
     * the account limit would have let through.
     */
    private async reserve(attempt: Attempt): Promise<number> {
        await this.ipFailures.reserve(attempt.ip)
        try {
            return await this.accountFailures.reserve(accountKey(attempt))
        } catch (err) {
            await this.ipFailures.refund(attempt.ip)
            throw err
        }
    }

    private cacheKeyOf(userId: string, password: string): string {
        return createHmac('sha256', this.cacheKey).update(userId).update('\u0000').update(password).digest('base64')
    }

    private remember(key: string, secret: Buffer): void {
        const ttl = this.env.PLATFORM_AUTH_CACHE_SECONDS
        if (ttl === 0) return
        if (this.cache.size >= CACHE_LIMIT) {
            const now = Date.now()
            for (const [k, v] of this.cache) if (v.expires <= now) this.cache.delete(k)
            // Still full of live entries: drop the oldest (Map keeps insertion order).
            while (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!)
        }
        this.cache.set(key, { secret, expires: Date.now() + ttl * 1000 })
    }
}

/** The IP first: it holds no `|`, so no user_id can make two attempts share a key. */
function accountKey(attempt: Attempt): string {
    return `${attempt.ip}|${attempt.account}`
}
