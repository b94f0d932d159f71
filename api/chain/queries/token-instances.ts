import { Db } from '../db'
import { nftMetadataOf, NftMetadataRow } from './nft-metadata'
import { related, Related } from './related'
import { FETCH_SIZE } from '../pagination'
import type { TokenStandard } from './token-transfers'
import { TOKEN_COLUMNS, TokenRow } from './tokens'

/**
 * Reads of the indexer's NFT tables (docs/indexer.md#nfts): `token_instance` (one row per token id,
 * with the ERC-721 owner and the id's transfer count) and `nft_balance` (ERC-1155 holdings, no zero
 * rows). Every list is a keyset scan of an index; none walks the transfers.
 */

export interface InstanceRow {
    token: string
    token_id: string
    /** ERC-721: the current owner (the zero address once burnt); null for ERC-1155 */
    owner: string | null
}

/** What an instance shows of other rows: its owner and token, and its metadata as the fetcher cached it (by nftMetadataKey). */
export interface InstanceRelations {
    related: Related
    metadata: Map<string, NftMetadataRow>
}

/** The owners, tokens and cached metadata of the instances, read side by side. */
export async function instanceRelations(db: Db, rows: readonly InstanceRow[]): Promise<InstanceRelations> {
    const [loaded, metadata] = await Promise.all([
        related(db, { addresses: rows.map((r) => r.owner), tokens: rows.map((r) => r.token) }),
        nftMetadataOf(db, rows.map((r) => ({ token: r.token, tokenId: r.token_id }))),
    ])
    return { related: loaded, metadata }
}

export interface InstanceDetailRow extends InstanceRow {
    transfer_count: number
}

/** Above every uint256: the first page's bound of a token id order, so the condition stays an index bound. */
const ABOVE_ALL_IDS = '1' + '0'.repeat(78)
/** After every lowercase 0x address in any collation (letters after digits): the first page's bound of a token order. */
const AFTER_ALL_TOKENS = 'zz'

/**
 * A page of a token's instances, highest id first (Blockscout's inventory order); with `holder`,
 * those it holds: the ERC-721s it owns, or the ERC-1155 ids it has a balance of.
 */
export async function tokenInstances(db: Db, token: { id: string; type: string }, page: { before?: bigint; holder?: string }): Promise<InstanceRow[]> {
    const before = String(page.before ?? ABOVE_ALL_IDS)
    if (page.holder && token.type === 'ERC-1155') {
        const { rows } = await db.query<InstanceRow>(
            `SELECT b.token, b.token_id::text, NULL AS owner FROM nft_balance b
              WHERE b.holder = $1 AND b.token = $2 AND b.token_id < $3::numeric AND b.value > 0
              ORDER BY b.token_id DESC LIMIT ${FETCH_SIZE}`,
            [page.holder, token.id, before]
        )
        return rows
    }
    const { rows } = page.holder
        ? await db.query<InstanceRow>(
            `SELECT i.token, i.token_id::text, i.owner FROM token_instance i
              WHERE i.owner = $1 AND i.token = $2 AND i.token_id < $3::numeric ORDER BY i.token_id DESC LIMIT ${FETCH_SIZE}`,
            [page.holder, token.id, before])
        : await db.query<InstanceRow>(
            `SELECT i.token, i.token_id::text, i.owner FROM token_instance i
              WHERE i.token = $1 AND i.token_id < $2::numeric ORDER BY i.token_id DESC LIMIT ${FETCH_SIZE}`,
            [token.id, before])
    return rows
}

export async function tokenInstance(db: Db, token: string, tokenId: bigint): Promise<InstanceDetailRow | undefined> {
    const { rows } = await db.query<InstanceDetailRow>(
        'SELECT token, token_id::text, owner, transfer_count FROM token_instance WHERE token = $1 AND token_id = $2::numeric',
        [token, String(tokenId)]
    )
    return rows[0]
}

export interface InstanceHolderRow {
    holder: string
    value: string
}

/** A page of an ERC-1155 id's holders, largest balance first, ties by address descending (as the token's holders). */
export async function instanceHolders(db: Db, token: string, tokenId: bigint, after?: { value: bigint; holder: string }): Promise<InstanceHolderRow[]> {
    const params: unknown[] = [token, String(tokenId)]
    let cursor = ''
    if (after) {
        params.push(String(after.value), after.holder)
        cursor = 'AND (b.value, b.holder) < ($3::numeric, $4)'
    }
    const { rows } = await db.query<InstanceHolderRow>(
        `SELECT b.holder, b.value::text FROM nft_balance b WHERE b.token = $1 AND b.token_id = $2::numeric AND b.value > 0 ${cursor}
          ORDER BY b.value DESC, b.holder DESC LIMIT ${FETCH_SIZE}`,
        params
    )
    return rows
}

export interface AddressNftRow extends InstanceRow {
    token_type: TokenStandard
    value: string
}

/** The (token, token id) cursor of an address's NFTs. */
export interface NftCursor {
    token: string
    tokenId: bigint
}

/**
 * The NFTs an address holds, by token then id, both descending: the ERC-721s it owns (value 1) and
 * the ERC-1155 ids it has a balance of; one index scan per standard asked for, merged.
 */
export async function addressNfts(
    db: Db,
    holder: string,
    query: { types: readonly string[]; after?: NftCursor }
): Promise<AddressNftRow[]> {
    const limit = FETCH_SIZE
    const params: unknown[] = [holder, query.after?.token ?? AFTER_ALL_TOKENS, String(query.after?.tokenId ?? ABOVE_ALL_IDS)]
    const branches: string[] = []
    if (query.types.includes('ERC-721')) {
        branches.push(`(SELECT token, token_id, owner, 'ERC-721' AS token_type, '1' AS value FROM token_instance
            WHERE owner = $1 AND (token, token_id) < ($2, $3::numeric) ORDER BY token DESC, token_id DESC LIMIT ${limit})`)
    }
    if (query.types.includes('ERC-1155')) {
        branches.push(`(SELECT token, token_id, NULL AS owner, 'ERC-1155' AS token_type, value::text FROM nft_balance
            WHERE holder = $1 AND (token, token_id) < ($2, $3::numeric) AND value > 0 ORDER BY token DESC, token_id DESC LIMIT ${limit})`)
    }
    if (branches.length === 0) return []
    const { rows } = await db.query<AddressNftRow>(
        `SELECT u.token, u.token_id::text, u.owner, u.token_type, u.value FROM (${branches.join(' UNION ALL ')}) u
          ORDER BY u.token DESC, u.token_id DESC LIMIT ${limit}`,
        params
    )
    return rows
}

/**
 * The first `perToken` NFTs the holder has of each collection (its ERC-721s or ERC-1155 ids, by id
 * descending), in one statement: a collections page previews up to 50 collections, each one index
 * range, never one query per collection.
 */
export async function collectionPreviews(db: Db, holder: string, collections: readonly { id: string; type: string }[], perToken: number): Promise<Map<string, AddressNftRow[]>> {
    const previews = new Map<string, AddressNftRow[]>(collections.map((c) => [c.id, []]))
    if (collections.length === 0) return previews
    const { rows } = await db.query<AddressNftRow>(
        `SELECT p.token, p.token_id::text, p.owner, p.token_type, p.value
           FROM unnest($2::text[], $3::text[]) AS c(token, type)
           CROSS JOIN LATERAL (
             (SELECT token, token_id, owner, 'ERC-721' AS token_type, '1' AS value FROM token_instance
               WHERE c.type = 'ERC-721' AND owner = $1 AND token = c.token ORDER BY token_id DESC LIMIT ${perToken})
             UNION ALL
             (SELECT token, token_id, NULL AS owner, 'ERC-1155' AS token_type, value::text FROM nft_balance
               WHERE c.type = 'ERC-1155' AND holder = $1 AND token = c.token AND value > 0 ORDER BY token_id DESC LIMIT ${perToken})
           ) p
          ORDER BY p.token DESC, p.token_id DESC`,
        [holder, collections.map((c) => c.id), collections.map((c) => c.type)]
    )
    for (const row of rows) previews.get(row.token)!.push(row)
    return previews
}

export interface CollectionRow extends TokenRow {
    /** ERC-721: tokens held; ERC-1155: the sum of the amounts of every id held */
    value: string
}

/** A page of the NFT collections an address holds some of, by token address descending, with its balance in each. */
export async function addressCollections(db: Db, holder: string, types: readonly string[], after?: string): Promise<CollectionRow[]> {
    const { rows } = await db.query<CollectionRow>(
        `SELECT ${TOKEN_COLUMNS}, b.value::text FROM token_balance b JOIN token k ON k.id = b.token
          WHERE b.holder = $1 AND b.value > 0 AND k.type = ANY($2) AND b.token < $3
          ORDER BY b.token DESC LIMIT ${FETCH_SIZE}`,
        [holder, types, after ?? AFTER_ALL_TOKENS]
    )
    return rows
}
