import { z } from 'zod'
import { Window } from '../queries/window'
import { EtherscanError } from './envelope'

/**
 * Parameters of the Etherscan-style API. Every schema carries the text a client sees: Blockscout's
 * own where its v1 controllers have one, otherwise "Invalid `name` param" as its block module says.
 */

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const FULL_HASH = /^0x[0-9a-fA-F]{64}$/
export const MAX_BLOCK = 2_147_483_647

/** Etherscan's results window: page x offset may not reach past the 10,000th row. */
export const RESULTS_WINDOW = 10_000

export const required = (name: string) => `Query parameter '${name}' is required`
export const invalidParam = (name: string) => `Invalid \`${name}\` param`

/** A string parameter; a repeated key (an array) or a nested one (an object) is as bad as a malformed value. */
export function text(missing: string, invalid: string) {
    return z.string({ error: (issue) => (issue.input === undefined ? missing : invalid) })
}

export function addressParam(missing: string, invalid: string) {
    return text(missing, invalid).regex(ADDRESS, invalid).transform((s) => s.toLowerCase())
}

export function hashParam(missing: string, invalid: string) {
    return text(missing, invalid).regex(FULL_HASH, invalid).transform((s) => s.toLowerCase())
}

export function isAddress(value: string): boolean {
    return ADDRESS.test(value)
}

/**
 * A block number. Clients habitually send a far-future endblock (Etherscan's examples use
 * 99999999) to mean "to the end", so anything past the largest storable number means that.
 */
export function blockNumber(name: string) {
    return text(required(name), invalidParam(name)).regex(/^\d{1,20}$/, invalidParam(name)).transform((s) => Math.min(Number(s), MAX_BLOCK))
}

/** A count from 1; its upper bound is the results window, checked with the other parameters in windowOf. */
function positive(name: string) {
    return text(required(name), invalidParam(name))
        .regex(/^\d{1,9}$/, invalidParam(name))
        .transform(Number)
        .refine((n) => n >= 1, invalidParam(name))
}

export const sort = z.enum(['asc', 'desc'], { error: invalidParam('sort') })

/**
 * page/offset as Etherscan pages: `offset` rows per page. Without them a list answers its first
 * maxOffset rows (10,000 as Blockscout and Etherscan, 1,000 for logs).
 */
export const paging = {
    page: positive('page').optional(),
    offset: positive('offset').optional(),
    sort: sort.optional(),
    startblock: blockNumber('startblock').optional(),
    endblock: blockNumber('endblock').optional(),
}

export interface Paging {
    page?: number
    offset?: number
    sort?: 'asc' | 'desc'
    startblock?: number
    endblock?: number
}

export function windowOf(p: Paging, options: { maxOffset?: number; defaultSort?: 'asc' | 'desc' } = {}): Window {
    const maxOffset = options.maxOffset ?? RESULTS_WINDOW
    const page = p.page ?? 1
    const size = p.offset ?? maxOffset
    if (page * size > RESULTS_WINDOW) {
        throw new EtherscanError(`Result window is too large, PageNo x Offset size must be less than or equal to ${RESULTS_WINDOW}`)
    }
    if (size > maxOffset) throw new EtherscanError(`Offset must be at most ${maxOffset}`)
    return {
        offset: (page - 1) * size,
        limit: size,
        depth: page * size,
        desc: (p.sort ?? options.defaultSort ?? 'desc') === 'desc',
        from: p.startblock ?? 0,
        to: p.endblock ?? MAX_BLOCK,
    }
}
