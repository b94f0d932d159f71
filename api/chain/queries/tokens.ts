import { Db } from '../db'
import { FETCH_SIZE } from '../pagination'
import type { TokenStandard } from './token-transfers'

/** Reads of the indexer's `token` registry and `token_balance` table; see docs/chain-api.md. */

export interface TokenRow {
    id: string
    type: TokenStandard
    name: string | null
    symbol: string | null
    decimals: number | null
    total_supply: string | null
    holder_count: number
}

/** A token with its transfer counter, as its own page shows it. */
export interface TokenDetailRow extends TokenRow {
    transfer_count: number
}

export const TOKEN_COLUMNS = 'k.id, k.type, k.name, k.symbol, k.decimals, k.total_supply, k.holder_count'

/** Escapes LIKE wildcards so a user's `%` or `_` matches itself. */
export function likePrefix(text: string): string {
    return `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** The registry's order: holder count (descending unless `asc`), then name (unnamed last), then address. */
export function tokenOrder(asc = false): string {
    return `k.holder_count ${asc ? 'ASC' : 'DESC'}, k.name ASC NULLS LAST, k.id ASC`
}

/** The cursor of tokenOrder: the last token shown. */
export interface TokenCursor {
    holders: number
    name: string | null
    address: string
}

/** Keyset condition for tokenOrder: the rows after the cursor token; pushes its parameters. */
export function tokenOrderAfter(params: unknown[], after: TokenCursor, asc = false): string {
    params.push(after.holders, after.name, after.address)
    const [h, n, a] = [params.length - 2, params.length - 1, params.length].map((i) => `$${i}`)
    const sameName = `(${n}::text IS NULL AND k.name IS NULL OR k.name = ${n}::text)`
    const laterName = `(${n}::text IS NOT NULL AND (k.name IS NULL OR k.name > ${n}::text))`
    return `(k.holder_count ${asc ? '>' : '<'} ${h} OR (k.holder_count = ${h} AND (${laterName} OR (${sameName} AND k.id > ${a}))))`
}

export async function tokenById(db: Db, hash: string): Promise<TokenDetailRow | undefined> {
    const { rows } = await db.query<TokenDetailRow>(`SELECT ${TOKEN_COLUMNS}, k.transfer_count FROM token k WHERE k.id = $1`, [hash])
    return rows[0]
}

export interface TokenListQuery {
    /** a prefix of the name or symbol, case-insensitive */
    text?: string
    types?: readonly string[]
    after?: TokenCursor
    asc: boolean
    pageSize: number
}

/** A page (pageSize + 1 rows) of the token registry in tokenOrder. */
export async function tokenList(db: Db, query: TokenListQuery): Promise<TokenRow[]> {
    const params: unknown[] = []
    const where: string[] = []
    if (query.text) {
        params.push(likePrefix(query.text))
        where.push(`(lower(k.name) LIKE $${params.length} OR lower(k.symbol) LIKE $${params.length})`)
    }
    if (query.types && query.types.length > 0) {
        params.push(query.types)
        where.push(`k.type = ANY($${params.length})`)
    }
    if (query.after) where.push(tokenOrderAfter(params, query.after, query.asc))
    const { rows } = await db.query<TokenRow>(
        `SELECT ${TOKEN_COLUMNS} FROM token k ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
          ORDER BY ${tokenOrder(query.asc)} LIMIT ${query.pageSize + 1}`,
        params
    )
    return rows
}

export interface HolderRow {
    holder: string
    value: string
    /** ERC-1155: the id held (a holder of several ids is a row each); null for the other standards */
    token_id: string | null
}

/**
 * A page of a token's holders by balance. Ties on value are broken by address, descending too,
 * so one backward scan of the (token, value, holder) index serves any page.
 */
export async function tokenHolders(db: Db, token: string, after?: { value: bigint; holder: string }): Promise<HolderRow[]> {
    const params: unknown[] = [token]
    let cursor = ''
    if (after) {
        params.push(String(after.value), after.holder)
        cursor = 'AND (value, holder) < ($2::numeric, $3)'
    }
    const { rows } = await db.query<HolderRow>(
        `SELECT holder, value, NULL AS token_id FROM token_balance WHERE token = $1 AND value > 0 ${cursor}
          ORDER BY value DESC, holder DESC LIMIT ${FETCH_SIZE}`,
        params
    )
    return rows
}

/**
 * A page of an ERC-1155's holders as Blockscout lists them: one row per (holder, token id) by
 * balance, ties by holder then id, all descending: a backward scan of nft_balance_token_holders.
 */
export async function erc1155Holders(db: Db, token: string, after?: { value: bigint; holder: string; tokenId: bigint }): Promise<HolderRow[]> {
    const params: unknown[] = [token]
    let cursor = ''
    if (after) {
        params.push(String(after.value), after.holder, String(after.tokenId))
        cursor = 'AND (b.value, b.holder, b.token_id) < ($2::numeric, $3, $4::numeric)'
    }
    const { rows } = await db.query<HolderRow>(
        `SELECT b.holder, b.value::text, b.token_id::text FROM nft_balance b WHERE b.token = $1 AND b.value > 0 ${cursor}
          ORDER BY b.value DESC, b.holder DESC, b.token_id DESC LIMIT ${FETCH_SIZE}`,
        params
    )
    return rows
}

export interface TokenBalanceRow extends TokenRow {
    value: string
}

/** The tokens an address holds, largest balance first, at most `limit` of them, after `after` when given. */
export async function addressTokenBalances(
    db: Db, holder: string, types: readonly string[] | null, after: { value: bigint; id: string } | undefined, limit: number,
): Promise<TokenBalanceRow[]> {
    const params: unknown[] = [holder, types]
    let cursor = ''
    if (after) {
        params.push(String(after.value), after.id)
        cursor = 'AND (tb.value, k.id) < ($3::numeric, $4)'
    }
    const { rows } = await db.query<TokenBalanceRow>(
        `SELECT ${TOKEN_COLUMNS}, tb.value
           FROM token_balance tb JOIN token k ON k.id = tb.token
          WHERE tb.holder = $1 AND tb.value > 0 AND ($2::text[] IS NULL OR k.type = ANY($2)) ${cursor}
          ORDER BY tb.value DESC, k.id DESC LIMIT ${Math.trunc(limit)}`,
        params
    )
    return rows
}

/** A holder's indexed balance of a token; undefined when the indexer has none. */
export async function tokenBalance(db: Db, holder: string, token: string): Promise<string | undefined> {
    const { rows } = await db.query<{ value: string }>(
        'SELECT value::text FROM token_balance WHERE holder = $1 AND token = $2',
        [holder, token]
    )
    return rows[0]?.value
}

/** The total supply the indexer read from the token: undefined for an unknown token, null when totalSupply() did not answer. */
export async function tokenSupply(db: Db, token: string): Promise<string | null | undefined> {
    const { rows } = await db.query<{ total_supply: string | null }>(
        'SELECT total_supply::text FROM token WHERE id = $1',
        [token]
    )
    return rows[0]?.total_supply
}

/** A token's symbol and decimals, undefined until the indexer has seen it. */
export async function tokenUnits(db: Db, token: string): Promise<{ symbol: string | null; decimals: number | null } | undefined> {
    const { rows } = await db.query<{ symbol: string | null; decimals: number | null }>(
        'SELECT symbol, decimals FROM token WHERE id = $1',
        [token]
    )
    return rows[0]
}

export interface HeldTokenRow {
    token: string
    value: string
    name: string | null
    symbol: string | null
    decimals: number | null
    type: string | null
}

/** Every token the indexer saw the holder hold, with a non-zero balance (the wallet platform's balances). */
export async function heldTokens(db: Db, holder: string, limit: number, offset: number): Promise<{ rows: HeldTokenRow[]; total: number }> {
    const [{ rows }, count] = await Promise.all([
        db.query<HeldTokenRow>(
            `SELECT b.token, b.value::text AS value, t.name, t.symbol, t.decimals, t.type
             FROM token_balance b LEFT JOIN token t ON t.id = b.token
             WHERE b.holder = $1 AND b.value > 0
             ORDER BY t.symbol NULLS LAST, b.token
             LIMIT $2 OFFSET $3`,
            [holder.toLowerCase(), limit, offset]
        ),
        db.query<{ n: number }>('SELECT count(*)::int AS n FROM token_balance WHERE holder = $1 AND value > 0', [holder.toLowerCase()]),
    ])
    return { rows, total: count.rows[0].n }
}
