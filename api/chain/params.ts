import { z } from 'zod'
import { invalidParam, invalidParams } from './errors'

/**
 * Path and query parameters, validated as Blockscout validates them (its OpenAPI spec): a value
 * that fails answers 422 naming the parameter, never a 500 or a silently empty page.
 */

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const FULL_HASH = /^0x[0-9a-fA-F]{64}$/
const INTEGER = /^\d{1,10}$/

export function isAddress(value: string): boolean {
    return ADDRESS.test(value)
}

export function isFullHash(value: string): boolean {
    return FULL_HASH.test(value)
}

/** A path address, lowercased as stored. */
export function addressParam(value: string): string {
    if (!ADDRESS.test(value)) throw invalidParam('address_hash_param', 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/')
    return value.toLowerCase()
}

export function transactionHashParam(value: string): string {
    if (!FULL_HASH.test(value)) throw invalidParam('transaction_hash_param', 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/')
    return value.toLowerCase()
}

export type BlockRef = { number: number } | { hash: string }

export function blockParam(value: string): BlockRef {
    if (INTEGER.test(value) && Number(value) <= 2_147_483_647) return { number: Number(value) }
    if (FULL_HASH.test(value)) return { hash: value.toLowerCase() }
    throw invalidParam(
        'block_hash_or_number_param',
        'Failed to cast value to one of: anyOf',
        'Invalid integer. Got: string',
        'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/',
    )
}

/** Parses the query against a zod schema; every failing key becomes one 422 entry. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
    const result = schema.safeParse(query ?? {})
    if (result.success) return result.data
    throw invalidParams(result.error.issues.map((issue) => ({ param: String(issue.path[0] ?? 'query'), detail: issue.message })))
}

/** Query-string pieces shared by the list routes. */
export const q = {
    int: z.string().regex(INTEGER, 'Invalid integer').transform(Number).refine((n) => n <= 2_147_483_647, 'Invalid integer'),
    uint: z.string().regex(/^\d{1,78}$/, 'Invalid non-negative integer').transform(BigInt),
    address: z.string().regex(ADDRESS, 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/').transform((s) => s.toLowerCase()),
    hash: z.string().regex(FULL_HASH, 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/').transform((s) => s.toLowerCase()),
    itemsCount: z.string().regex(/^\d{1,2}$/, 'Invalid integer').transform(Number).refine((n) => n >= 1 && n <= 50, 'must be between 1 and 50'),
    timestamp: z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'Invalid datetime'),
    /** Free text (search terms): bounded, and without NUL, which Postgres text cannot hold. */
    text: z.string().max(256).refine((s) => !s.includes('\u0000'), 'must not contain NUL characters'),
    bool: z.enum(['true', 'false']).transform((s) => s === 'true'),
    /** A comma list of allowed values, e.g. `type=ERC-20,ERC-721`; empty means none given. */
    list<T extends string>(values: readonly T[]) {
        return z.string().transform((s, ctx) => {
            const items = s.split(',').map((v) => v.trim()).filter(Boolean)
            const bad = items.find((v) => !(values as readonly string[]).includes(v))
            if (bad !== undefined) {
                ctx.addIssue({ code: 'custom', message: `Invalid value ${JSON.stringify(bad)}; expected any of ${values.join(', ')}` })
                return z.NEVER
            }
            return items as T[]
        })
    },
}
