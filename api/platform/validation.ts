import { Address, getAddress, isAddress, zeroAddress } from 'viem'
import { z } from 'zod'

/** Field schemas shared by the platform's routes. Passwords are never part of a schema (see auth.ts). */

// Printable, no control characters: user ids end up in logs and rate-limit keys.
export const userId = z
    .string()
    .min(1, 'must not be empty')
    .max(128, 'must be at most 128 characters')
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')

/**
 * An address as EIP-55 says: all lowercase, or mixed case with a valid checksum (a mistyped
 * checksummed address is refused, not silently accepted). Normalised to the checksummed form.
 */
export const address = z
    .string()
    .refine((v) => isAddress(v, { strict: true }), 'must be a 0x-prefixed 20-byte address, lowercase or with a valid EIP-55 checksum')
    .transform((v) => getAddress(v))
    .meta({ description: 'A 0x-prefixed 20-byte address, lowercase or with a valid EIP-55 checksum', pattern: '^0x[0-9a-fA-F]{40}$' })

export const nonZeroAddress = address.refine((v) => v !== zeroAddress, 'must not be the zero address')

/** The native coin in `token` fields; matched case-insensitively. */
export const NATIVE = 'NATIVE'

export type TokenRef = Address | typeof NATIVE

/** A token address, or NATIVE for the chain's coin (the zero address is taken to mean the coin too). */
export const tokenRef = z
    .string()
    .refine((v) => v.toUpperCase() === NATIVE || isAddress(v, { strict: true }), `must be a token address or ${NATIVE}`)
    .transform((v): TokenRef => (v.toUpperCase() === NATIVE || v.toLowerCase() === zeroAddress ? NATIVE : getAddress(v)))
    .meta({ description: `A token address (lowercase or EIP-55), or ${NATIVE} (any case) for the native coin`, pattern: '^(0x[0-9a-fA-F]{40}|[Nn][Aa][Tt][Ii][Vv][Ee])$' })

/** An amount before its token's decimals are known: a decimal string or a plain JSON number. */
export const amount = z
    .union([z.string().max(100), z.number()], { error: 'must be a decimal string in whole tokens, such as "1.5"' })
    .meta({ description: 'Whole tokens as a decimal string, such as "1.5" (a JSON number is accepted when it prints without an exponent)' })

/** Router deadline override, unix seconds. */
export const deadline = z.coerce.number().int('must be an integer (unix seconds)').positive('must be positive').optional()

/** Wallet-level routes may name the user too; the wallet must then belong to that user. */
export const optionalUserId = userId.optional()

/** An integer in [min, max], given as a JSON number or a string of digits. */
export function integer(min: number, max: number) {
    return z
        .union([z.number(), z.string().regex(/^\d+$/, 'must be an integer').transform(Number)])
        .pipe(z.number().int('must be an integer').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
}
