import { z } from 'zod'
import { HttpError } from '../../common/service/http-error'
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

const ADDRESS_FORMAT = 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/'
const HASH_FORMAT = 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/'
const MAX_INT = 2_147_483_647

/** Path parameters as the OpenAPI document states them; the parse functions below validate with them. */
export const AddressHash = z.string().regex(ADDRESS, ADDRESS_FORMAT).meta({ id: 'AddressHash', description: 'An address, 0x and 40 hex digits (any case)' })
export const TransactionHash = z.string().regex(FULL_HASH, HASH_FORMAT).meta({ id: 'TransactionHash', description: 'A transaction hash, 0x and 64 hex digits' })
const BlockNumber = z.string().regex(INTEGER, 'Invalid integer. Got: string').refine((s) => Number(s) <= MAX_INT, 'Invalid integer. Got: string')
const BlockHash = z.string().regex(FULL_HASH, HASH_FORMAT)
export const BlockHashOrNumber = z.union([BlockNumber, BlockHash])
    .meta({ id: 'BlockHashOrNumber', description: `A block number (at most ${MAX_INT}) or a block hash (0x and 64 hex digits)` })

/** The path of an address's routes: /addresses/:hash, /tokens/:hash, /smart-contracts/:hash. */
export const AddressPath = z.object({ hash: AddressHash })
export const TransactionPath = z.object({ hash: TransactionHash })
export const BlockPath = z.object({ block: BlockHashOrNumber })

/** A path address, lowercased as stored. */
export function addressParam(value: unknown): string {
    const parsed = AddressHash.safeParse(value)
    if (!parsed.success) throw invalidParam('address_hash_param', ADDRESS_FORMAT)
    return parsed.data.toLowerCase()
}

export function transactionHashParam(value: unknown): string {
    const parsed = TransactionHash.safeParse(value)
    if (!parsed.success) throw invalidParam('transaction_hash_param', HASH_FORMAT)
    return parsed.data.toLowerCase()
}

/** A token id in a path: a decimal uint256. */
export const TokenId = z.string().regex(/^\d{1,78}$/, 'a token id: a non-negative decimal integer').meta({ id: 'TokenId' })
export const TokenInstancePath = z.object({ hash: AddressHash, id: TokenId })

const MAX_UINT256 = 2n ** 256n - 1n

/** A path token id; anything but a decimal uint256 answers 400, as Blockscout's instance routes do. */
export function tokenIdParam(value: unknown): bigint {
    const parsed = TokenId.safeParse(value)
    if (!parsed.success || BigInt(parsed.data) > MAX_UINT256) throw new HttpError(400, 'Invalid parameter(s)')
    return BigInt(parsed.data)
}

export type BlockRef = { number: number } | { hash: string }

export function blockParam(value: unknown): BlockRef {
    const number = BlockNumber.safeParse(value)
    if (number.success) return { number: Number(number.data) }
    const hash = BlockHash.safeParse(value)
    if (hash.success) return { hash: hash.data.toLowerCase() }
    throw invalidParam('block_hash_or_number_param', 'Failed to cast value to one of: anyOf', 'Invalid integer. Got: string', HASH_FORMAT)
}

/** Parses the query against a zod schema; every failing key becomes one 422 entry. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
    const result = schema.safeParse(query ?? {})
    if (result.success) return result.data
    throw invalidParams(result.error.issues.map((issue) => ({ param: String(issue.path[0] ?? 'query'), detail: issue.message })))
}

/** Query-string pieces shared by the list routes. */
export const q = {
    int: z.string().regex(INTEGER, 'Invalid integer').transform(Number).refine((n) => n <= MAX_INT, 'Invalid integer'),
    uint: z.string().regex(/^\d{1,78}$/, 'Invalid non-negative integer').transform(BigInt),
    address: z.string().regex(ADDRESS, ADDRESS_FORMAT).transform((s) => s.toLowerCase()),
    hash: z.string().regex(FULL_HASH, HASH_FORMAT).transform((s) => s.toLowerCase()),
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
