import { getAddress } from 'viem'

/** Conversions from stored values (lowercase hex text, numeric strings, bytea) to Blockscout's JSON. */

const checksums = new Map<string, string>()

/** EIP-55 form of a stored lowercase address; memoised because every list renders dozens. */
export function checksum(address: string): string {
    let value = checksums.get(address)
    if (!value) {
        value = getAddress(address)
        if (checksums.size > 100_000) checksums.clear()
        checksums.set(address, value)
    }
    return value
}

/** Blockscout's timestamp form: ISO-8601 UTC with microseconds. */
export function isoTimestamp(value: Date | string): string
export function isoTimestamp(value: Date | string | null): string | null
export function isoTimestamp(value: Date | string | null): string | null {
    if (value === null) return null
    const date = value instanceof Date ? value : new Date(value)
    // Postgres keeps microseconds, JavaScript dates milliseconds: pad to Blockscout's six digits.
    return `${date.toISOString().slice(0, -1)}000Z`
}

export function hex(bytes: Buffer | null): string {
    return bytes ? `0x${bytes.toString('hex')}` : '0x'
}

/** numeric columns arrive from pg as strings; Blockscout sends big numbers as decimal strings. */
export function decimal(value: string | number | bigint): string
export function decimal(value: string | number | bigint | null): string | null
export function decimal(value: string | number | bigint | null): string | null {
    return value === null ? null : String(value)
}

export function percentage(part: bigint, whole: bigint): number | null {
    if (whole === 0n) return null
    // 4 decimal places of precision without going through floats for the division itself.
    return Number((part * 1_000_000n) / whole) / 10_000
}
