import { AmountError, numberToDecimal, parseRational } from '../amounts'

/**
 * Exact conversions between a provider's decimal strings and our base units. A provider prints
 * amounts at its own precision, which need not match the token's decimals (a minimum of
 * "0.000123456789" BTC), so each conversion says which way it rounds; the choice is always the
 * one that keeps us inside what the provider promised (see the callers).
 */

export type Rounding = 'exact' | 'down' | 'up'

/** "0.000123456789" with 8 decimals, up → 12346n. Pure bigint arithmetic, never a float. */
export function decimalToUnits(value: string, decimals: number, rounding: Rounding): bigint {
    const { num, den } = parseRational(value)
    const scaled = num * 10n ** BigInt(decimals)
    const units = scaled / den
    const remainder = scaled % den
    if (remainder === 0n) return units
    if (rounding === 'exact') throw new AmountError(`"${value}" has more than the token's ${decimals} decimal places`)
    return rounding === 'up' ? units + 1n : units
}

/**
 * A JSON number has already been through a double by the time we see it, so it is accepted only
 * when that cannot have changed it: any decimal of at most 15 significant digits survives the
 * round trip decimal → double → shortest decimal unchanged, so the text we rebuild is the text the
 * provider printed. Anything longer is refused rather than guessed.
 */
export const MAX_EXACT_SIGNIFICANT_DIGITS = 15

/** A provider amount (string, or a short JSON number) as a plain decimal string. */
export function providerDecimal(value: string | number): string {
    if (typeof value === 'string') {
        const text = value.trim()
        if (!/^\d+(?:\.\d+)?$/.test(text)) throw new AmountError(`"${value}" is not a plain non-negative decimal`)
        return text
    }
    if (!Number.isFinite(value) || value < 0) throw new AmountError(`${value} is not a non-negative finite number`)
    const text = numberToDecimal(value)
    const significant = text.replace('.', '').replace(/^0+/, '').replace(/0+$/, '')
    if (significant.length > MAX_EXACT_SIGNIFICANT_DIGITS) {
        throw new AmountError(`${text} was sent as a JSON number with more than ${MAX_EXACT_SIGNIFICANT_DIGITS} significant digits and may not be exact`)
    }
    return text
}
