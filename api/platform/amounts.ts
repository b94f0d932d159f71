import { formatUnits, maxUint256 } from 'viem'
import { badRequest } from './http'

/**
 * Amounts cross the API as decimal strings in whole tokens ("1.5" NATIVE, "250" GOLD) and live
 * inside as bigint base units. The conversion is exact: a value with more fractional digits than
 * the token has is refused rather than rounded, since rounding would move a different amount than
 * the caller asked for.
 */

const DECIMAL = /^(\d+)(?:\.(\d+))?$/

/** What the schemas accept for an amount: a decimal string, or a JSON number that prints as one. */
export type AmountInput = string | number

export function parseAmount(value: AmountInput, decimals: number, field: string): bigint {
    const text = typeof value === 'number' ? numberText(value, field) : value.trim()
    const match = DECIMAL.exec(text)
    if (!match) throw badRequest(`${field} must be a non-negative decimal number in whole tokens, such as "1.5"`)
    const [, whole, fraction = ''] = match
    if (fraction.length > decimals) {
        throw badRequest(`${field} has ${fraction.length} fractional digits; the token has ${decimals} decimals`)
    }
    const units = BigInt(whole + fraction.padEnd(decimals, '0'))
    if (units > maxUint256) throw badRequest(`${field} is too large`)
    return units
}

/** As parseAmount, and zero is refused. */
export function parsePositiveAmount(value: AmountInput, decimals: number, field: string): bigint {
    const units = parseAmount(value, decimals, field)
    if (units === 0n) throw badRequest(`${field} must be greater than 0`)
    return units
}

function numberText(value: number, field: string): string {
    const text = String(value)
    // 1e21 and 1e-7 print in exponent form: their digits are not what the caller typed.
    if (!Number.isFinite(value) || /e/i.test(text)) {
        throw badRequest(`${field} must be given as a decimal string (for example "1000000000000000000000")`)
    }
    return text
}

/** Whole-token decimal string of base units, without trailing zeros ("1.5", "250"). */
export function formatAmount(units: bigint, decimals: number): string {
    return formatUnits(units, decimals)
}

/** A base-unit amount as both the whole-token string and the exact integer string. */
export function amountFields<N extends string>(name: N, units: bigint, decimals: number): Record<N | `${N}_raw`, string> {
    return { [name]: formatAmount(units, decimals), [`${name}_raw`]: units.toString() } as Record<N | `${N}_raw`, string>
}

/** part / whole as a decimal fraction string with up to 18 digits ("0.25"); "0" when whole is 0. */
export function fraction(part: bigint, whole: bigint): string {
    if (whole === 0n) return '0'
    return formatUnits((part * 10n ** 18n) / whole, 18)
}
