/**
 * Money is an integer of base units (bigint) everywhere inside the bridge; decimal strings exist
 * only at the edge (HTTP, WebSocket, events). These two conversions are exact.
 */

export class AmountError extends Error {}

/** "12.5" with 6 decimals → 12500000n. Rejects more fraction digits than the token has. */
export function parseUnits(value: string, decimals: number): bigint {
    const match = /^(\d+)(?:\.(\d+))?$/.exec(value)
    if (!match) throw new AmountError(`"${value}" is not a plain decimal number`)
    const [, whole, fraction = ''] = match
    const trimmed = fraction.replace(/0+$/, '')
    if (trimmed.length > decimals) throw new AmountError(`has more than the token's ${decimals} decimal places`)
    return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(trimmed.padEnd(decimals, '0') || '0')
}

/** 12500000n with 6 decimals → "12.5" (no exponent, no trailing zeros). */
export function formatUnits(value: bigint, decimals: number): string {
    const negative = value < 0n
    const abs = negative ? -value : value
    const base = 10n ** BigInt(decimals)
    const whole = abs / base
    const fraction = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '')
    return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`
}

/**
 * A JSON number as the decimal the sender wrote: JavaScript prints the shortest string that reads
 * back as the same double, so 0.1 stays "0.1"; exponent forms (1e-7, 1e+21) are expanded.
 */
export function numberToDecimal(value: number): string {
    if (!Number.isFinite(value)) throw new AmountError('must be a finite number')
    const text = String(value)
    const exp = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
    if (!exp) return text
    const [, sign, lead, rest = '', power] = exp
    const digits = lead + rest
    const point = 1 + Number(power)
    if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`
    if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

/** a × 10^(to − from), rounding down when decimals are dropped. */
export function rescale(amount: bigint, from: number, to: number): bigint {
    return to >= from ? amount * 10n ** BigInt(to - from) : amount / 10n ** BigInt(from - to)
}

/** A positive decimal string ("3000.25") as an exact fraction. */
export function parseRational(value: string): { num: bigint; den: bigint } {
    const match = /^(\d+)(?:\.(\d+))?$/.exec(value)
    if (!match) throw new AmountError(`"${value}" is not a plain decimal number`)
    const fraction = match[2] ?? ''
    return { num: BigInt(match[1] + fraction), den: 10n ** BigInt(fraction.length) }
}

/** num/den as a decimal string with at most `places` fraction digits, rounded down. */
export function formatRatio(num: bigint, den: bigint, places = 18): string {
    if (den === 0n) return '0'
    return formatUnits((num * 10n ** BigInt(places)) / den, places)
}
