import { Finality } from '../finality'

/** Bitcoin finality by depth, deeper for larger amounts; a configured number of confirmations is a floor: docs/bridge/networks.md#bitcoin */

export interface ConfirmationTier {
    /** Largest amount (satoshi, inclusive) of this tier; null for the last, open-ended one. */
    upTo: bigint | null
    confirmations: number
}

export const DEFAULT_CONFIRMATION_TIERS: readonly ConfirmationTier[] = [
    { upTo: 1_000_000n, confirmations: 1 },
    { upTo: 10_000_000n, confirmations: 2 },
    { upTo: 100_000_000n, confirmations: 3 },
    { upTo: null, confirmations: 6 },
]

export function tierConfirmations(amount: bigint, tiers: readonly ConfirmationTier[]): number {
    for (const tier of tiers) if (tier.upTo === null || amount <= tier.upTo) return tier.confirmations
    return tiers[tiers.length - 1].confirmations
}

/** Confirmations an amount needs: its tier, raised to the configured floor. */
export function requiredConfirmations(amount: bigint, tiers: readonly ConfirmationTier[], floor?: Finality): number {
    const tier = tierConfirmations(amount, tiers)
    const least = floor && 'confirmations' in floor ? floor.confirmations : 1
    return Math.max(tier, least, 1)
}

/**
 * "1000000:1,10000000:2,100000000:3,*:6" (satoshi:confirmations, ascending, `*` last) as tiers.
 * Throws on anything else, so a typo stops the start instead of weakening the policy.
 */
export function parseConfirmationTiers(text: string): ConfirmationTier[] {
    const tiers = text.split(',').map((part) => part.trim()).filter(Boolean).map((part) => {
        const match = /^(\*|\d+):(\d+)$/.exec(part)
        if (!match || Number(match[2]) < 1) throw new Error(`bad confirmation tier "${part}" (expected satoshi:confirmations or *:confirmations)`)
        return { upTo: match[1] === '*' ? null : BigInt(match[1]), confirmations: Number(match[2]) }
    })
    if (tiers.length === 0 || tiers[tiers.length - 1].upTo !== null) throw new Error('confirmation tiers must end with *:confirmations')
    for (let i = 1; i < tiers.length; i++) {
        const [prev, cur] = [tiers[i - 1], tiers[i]]
        if (prev.upTo === null || (cur.upTo !== null && cur.upTo <= prev.upTo)) throw new Error('confirmation tiers must ascend by amount')
        if (cur.confirmations < prev.confirmations) throw new Error('a larger amount cannot need fewer confirmations')
    }
    return tiers
}
