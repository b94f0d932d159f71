import { Limits, emailKey } from '../rate-limits'

/**
 * Who may still try a password for an account: failures are counted per (account, client IP), so
 * an attacker's failures never refuse the owner at another IP. Failures of the account from every
 * IP are tallied too; past `alert` of them each IP's budget for that account drops, which slows a
 * guesser spread over many IPs without locking the owner out (docs/explorer-api.md, Rate limits).
 */
export class SigninGuard {
    constructor(private readonly limits: Limits, private readonly alert: number) {}

    /**
     * Counts this attempt as a failure of this IP for this account before any hashing, so attempts
     * sent at once cannot all pass; the 429 once this IP has spent its failures for the account.
     */
    async reserve(email: string, ip: string): Promise<void> {
        const accountFailures = await this.limits.signinAccountFailures.check(emailKey(email))
        const pairLimit = accountFailures >= this.alert ? this.limits.signinFailuresUnderAttack : this.limits.signinFailures
        await pairLimit.reserve(pairKey(email, ip))
    }

    /** The attempt could not be checked (the hash pool full, the database away): it is no failure. */
    async giveBack(email: string, ip: string): Promise<void> {
        await this.limits.signinFailures.refund(pairKey(email, ip))
    }

    /** The (account, IP) failure is counted already (reserve); the account's tally is not. */
    async failed(email: string): Promise<void> {
        await this.limits.signinAccountFailures.fail(emailKey(email))
    }

    /** The owner's success clears this IP's failures; the account's tally stays, so an attack in progress still counts. */
    async succeeded(email: string, ip: string): Promise<void> {
        await this.limits.signinFailures.clear(pairKey(email, ip))
    }
}

function pairKey(email: string, ip: string): string {
    return `${emailKey(email)}:${ip}`
}
