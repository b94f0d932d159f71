import { Db } from '../db'
import { likePrefix, TOKEN_COLUMNS, TokenCursor, tokenOrder, tokenOrderAfter, TokenRow } from './tokens'
import type { TokenStandard } from './token-transfers'

/** The lookups of Blockscout's search: exact matches by number, address or hash, and text matches; see docs/chain-api.md. */

export interface FoundBlockRow {
    id: string
    number: number
    timestamp: Date
}

export async function blocksByNumber(db: Db, number: number): Promise<FoundBlockRow[]> {
    const { rows } = await db.query<FoundBlockRow>('SELECT id, number, timestamp FROM block WHERE number = $1', [number])
    return rows
}

export async function blocksByHash(db: Db, hash: string): Promise<FoundBlockRow[]> {
    const { rows } = await db.query<FoundBlockRow>('SELECT id, number, timestamp FROM block WHERE id = $1', [hash])
    return rows
}

export async function transactionsByHash(db: Db, hash: string): Promise<{ id: string; timestamp: Date }[]> {
    const { rows } = await db.query<{ id: string; timestamp: Date }>('SELECT id, timestamp FROM transaction WHERE id = $1', [hash])
    return rows
}

/** A known address, with its verified name and, when it is a token, the token's columns (all null otherwise). */
export interface FoundAddressRow {
    id: string
    is_contract: boolean
    verified_name: string | null
    token_id: string | null
    type: TokenStandard | null
    name: string | null
    symbol: string | null
    decimals: number | null
    total_supply: string | null
    holder_count: number | null
}

export async function addressMatch(db: Db, hash: string): Promise<FoundAddressRow | undefined> {
    const { rows } = await db.query<FoundAddressRow>(
        `SELECT a.id, a.is_contract, v.name AS verified_name,
                k.id AS token_id, k.type, k.name, k.symbol, k.decimals, k.total_supply, k.holder_count
           FROM address a LEFT JOIN verified_contract v ON v.id = a.id LEFT JOIN token k ON k.id = a.id
          WHERE a.id = $1`,
        [hash]
    )
    return rows[0]
}

/** Tokens whose name or symbol starts with the term (case-insensitive), in the registry's order: a page of `limit` + 1. */
export async function tokensByText(db: Db, term: string, after: TokenCursor | undefined, limit: number): Promise<(TokenRow & { verified: boolean })[]> {
    const params: unknown[] = [likePrefix(term)]
    const cursor = after ? `AND ${tokenOrderAfter(params, after)}` : ''
    const { rows } = await db.query<TokenRow & { verified: boolean }>(
        `SELECT ${TOKEN_COLUMNS}, EXISTS (SELECT 1 FROM verified_contract v WHERE v.id = k.id) AS verified
           FROM token k WHERE (lower(k.name) LIKE $1 OR lower(k.symbol) LIKE $1) ${cursor}
          ORDER BY ${tokenOrder()} LIMIT ${limit + 1}`,
        params
    )
    return rows
}

/** Verified contracts that are not tokens whose name starts with the term (case-insensitive), by name. */
export async function contractsByText(db: Db, term: string, limit: number): Promise<{ id: string; name: string }[]> {
    const { rows } = await db.query<{ id: string; name: string }>(
        `SELECT v.id, v.name FROM verified_contract v
          WHERE lower(v.name) LIKE $1 AND NOT EXISTS (SELECT 1 FROM token k WHERE k.id = v.id)
          ORDER BY v.name, v.id LIMIT ${limit}`,
        [likePrefix(term)]
    )
    return rows
}

/** The hash of the block of that number, if indexed. */
export async function blockHashOf(db: Db, number: number): Promise<string | undefined> {
    const { rows } = await db.query<{ id: string }>('SELECT id FROM block WHERE number = $1', [number])
    return rows[0]?.id
}

export async function transactionExists(db: Db, hash: string): Promise<boolean> {
    return !!(await db.query('SELECT 1 FROM transaction WHERE id = $1', [hash])).rowCount
}

export async function blockExists(db: Db, hash: string): Promise<boolean> {
    return !!(await db.query('SELECT 1 FROM block WHERE id = $1', [hash])).rowCount
}
