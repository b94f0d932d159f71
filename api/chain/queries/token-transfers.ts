import { batchTransferId, blockLogIds, logId } from '../../../db/row-ids'
import { Db } from '../db'
import { verifiedSignature } from './called-methods'
import { FETCH_SIZE } from '../pagination'
import { ETHERSCAN_TX_COLUMNS, EtherscanTxColumns } from './transactions'
import { Window } from './window'

/**
 * Reads of the indexer's `token_transfer` table. Its id is the zero-padded (block, log index)
 * (db/row-ids.ts), so a block's or the chain's transfers are primary-key ranges; see docs/chain-api.md.
 * An ERC-1155 TransferBatch is one row per id sharing the log's (block, log index), told apart by
 * `batch_index`: every list orders by it last, and a cursor inside a batch carries `index_in_batch`.
 */

export interface TokenTransferRow {
    block_number: number
    block_hash: string
    timestamp: Date
    log_index: number
    transaction_hash: string
    token: string
    token_type: TokenStandard
    from: string
    to: string
    value: string | null
    token_id: string | null
    /** position in its ERC-1155 TransferBatch log; null for every other transfer */
    batch_index: number | null
    method_id: string | null
    /** the name the verified ABIs of the contract the transaction called give method_id (queries/called-methods.ts) */
    verified_signature: string | null
}

/** Columns of `token_transfer tt` joined with its transaction `t` (for the method name). */
const TOKEN_TRANSFER_COLUMNS = `tt.block_number, tt.block_hash, tt.timestamp, tt.log_index, tt.transaction_hash, tt.token,
    tt.token_type, tt."from", tt."to", tt.value, tt.token_id, tt.batch_index, t.method_id,
    ${verifiedSignature('t.method_id', 't."to"')} AS verified_signature`
const TOKEN_TRANSFER_JOIN = 'JOIN transaction t ON t.id = tt.transaction_hash'

const MAX_INT = 2_147_483_647

/** The token standards a transfer's `token_type` names, as Blockscout's `type` filters take them. */
export const TOKEN_TYPES = ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984'] as const
export type TokenStandard = (typeof TOKEN_TYPES)[number]

/** The standards whose every transfer has a token id. */
const NFT_TYPES: readonly string[] = ['ERC-721', 'ERC-1155'] satisfies TokenStandard[]

/**
 * For a list of NFT standards only, the condition that lets Postgres read an address's NFT transfers
 * from the partial (side, block, log index) WHERE token_id IS NOT NULL indexes, not through every
 * newer ERC-20 transfer of the address; it is written out, not a parameter, so the planner proves it.
 */
function nftsOnly(types: readonly string[]): string {
    return types.every((t) => NFT_TYPES.includes(t)) ? ' AND token_id IS NOT NULL' : ''
}

/** The (block_number, index) cursor of the token-transfer lists, and the position within an ERC-1155 batch when the page ended inside one. */
export interface TransferCursor {
    block_number?: number
    index?: number
    index_in_batch?: number
}

/** Log indexes beyond this do not fit the id's six digits (db/row-ids.ts). */
const MAX_LOG_INDEX = 999_999
/**
 * Above every id: the first page's bound. A bound that is always there keeps the condition an
 * index bound in the prepared statement's generic plan (an `IS NULL OR` would scan from the end).
 */
const AFTER_ALL = logId(9_999_999_999, MAX_LOG_INDEX)

/**
 * The id of the cursor transfer: the page holds the transfers before it. A log index too large to
 * exist resumes at the block's end.
 */
function idBefore(blockNumber: number, index: number, indexInBatch?: number): string {
    if (index > MAX_LOG_INDEX) return logId(blockNumber + 1, 0)
    return indexInBatch === undefined ? logId(blockNumber, index) : batchTransferId(blockNumber, index, indexInBatch)
}

/**
 * The keyset condition of the (block_number, log_index) lists, newest first, on columns `$b`, `$i`
 * and `$k` (the position in a batch; 0 without one): the cursor's (block, index) bounds the index
 * scan, and of the rows at exactly that log only the batch rows before the cursor's position stay.
 */
function transferBefore(b: number, i: number, k: number): string {
    return `(block_number, log_index) <= ($${b}, $${i}) AND NOT (block_number = $${b} AND log_index = $${i} AND COALESCE(batch_index, 0) >= $${k})`
}

/** Newest first; the rows of one batch by position, last first. */
const NEWEST_FIRST = 'block_number DESC, log_index DESC, batch_index DESC'

/** The parameters of transferBefore for a cursor: the first page starts after every row. */
function cursorParams(cursor: TransferCursor): [number, number, number] {
    return cursor.block_number === undefined ? [MAX_INT, MAX_INT, 0] : [cursor.block_number, cursor.index ?? MAX_INT, cursor.index_in_batch ?? 0]
}

/**
 * A page (pageSize + 1 rows) of every token transfer of the chain, newest first: a backward scan
 * of the primary key from the cursor. A `types` filter is a condition on that scan: a rare type
 * (NFTs on an ERC-20-heavy chain) reads further to fill its page.
 */
export async function chainTransfers(db: Db, cursor: TransferCursor, types: readonly string[] | null, pageSize: number): Promise<TokenTransferRow[]> {
    const before = cursor.block_number === undefined ? AFTER_ALL : idBefore(cursor.block_number, cursor.index ?? MAX_LOG_INDEX + 1, cursor.index === undefined ? undefined : cursor.index_in_batch)
    const { rows } = await db.query<TokenTransferRow>(
        `SELECT ${TOKEN_TRANSFER_COLUMNS} FROM token_transfer tt ${TOKEN_TRANSFER_JOIN}
          WHERE tt.id < $1 AND ($2::text[] IS NULL OR tt.token_type = ANY($2))
          ORDER BY tt.id DESC LIMIT ${pageSize + 1}`,
        [before, types]
    )
    return rows
}

/**
 * A transaction's token transfers after log index `after` (and, inside an ERC-1155 batch, after
 * position `afterInBatch` of it), in log order: a primary-key range of its block.
 */
export async function transactionTransfers(
    db: Db,
    tx: { id: string; block_number: number },
    page: { after: number; afterInBatch?: number; types: readonly string[] | null; limit: number }
): Promise<TokenTransferRow[]> {
    const ids = blockLogIds(tx.block_number, page.after + 1)
    if (page.afterInBatch !== undefined && page.after >= 0) ids.first = batchTransferId(tx.block_number, page.after, page.afterInBatch + 1)
    const { rows } = await db.query<TokenTransferRow>(
        `SELECT ${TOKEN_TRANSFER_COLUMNS} FROM token_transfer tt ${TOKEN_TRANSFER_JOIN}
          WHERE tt.id >= $1 AND tt.id <= $2 AND tt.transaction_hash = $3 AND ($4::text[] IS NULL OR tt.token_type = ANY($4))
          ORDER BY tt.id LIMIT ${page.limit}`,
        [ids.first, ids.last, tx.id, page.types]
    )
    return rows
}

export interface AddressTransfersQuery extends TransferCursor {
    type?: readonly string[]
    filter?: 'to' | 'from'
    token?: string
}

/** A page of an address's token transfers, newest first: one index scan per side, merged. */
export async function addressTransfers(db: Db, hash: string, query: AddressTransfersQuery): Promise<TokenTransferRow[]> {
    const params: unknown[] = [hash, ...cursorParams(query)]
    let extra = ''
    if (query.type && query.type.length > 0) {
        params.push(query.type)
        extra += ` AND token_type = ANY($${params.length})${nftsOnly(query.type)}`
    }
    if (query.token) {
        params.push(query.token)
        extra += ` AND token = $${params.length}`
    }
    const columns = query.filter === 'from' ? ['"from"'] : query.filter === 'to' ? ['"to"'] : ['"from"', '"to"']
    const branches = columns.map((c) =>
        `(SELECT id, block_number, log_index, batch_index FROM token_transfer WHERE ${c} = $1 AND ${transferBefore(2, 3, 4)}${extra}
           ORDER BY ${NEWEST_FIRST} LIMIT ${FETCH_SIZE})`
    )
    const { rows } = await db.query<TokenTransferRow>(
        `SELECT ${TOKEN_TRANSFER_COLUMNS}
           FROM (SELECT id FROM (${branches.join(' UNION ')}) u
                  ORDER BY ${NEWEST_FIRST} LIMIT ${FETCH_SIZE}) page
           JOIN token_transfer tt ON tt.id = page.id
           ${TOKEN_TRANSFER_JOIN}
          ORDER BY tt.block_number DESC, tt.log_index DESC, tt.batch_index DESC`,
        params
    )
    return rows
}

/** A page of a token's transfers, newest first. */
export async function tokenTransfers(db: Db, token: string, cursor: TransferCursor): Promise<TokenTransferRow[]> {
    const { rows } = await db.query<TokenTransferRow>(
        `SELECT ${TOKEN_TRANSFER_COLUMNS} FROM (SELECT * FROM token_transfer WHERE token = $1 AND ${transferBefore(2, 3, 4)}
                  ORDER BY ${NEWEST_FIRST} LIMIT ${FETCH_SIZE}) tt ${TOKEN_TRANSFER_JOIN}
          ORDER BY tt.block_number DESC, tt.log_index DESC, tt.batch_index DESC`,
        [token, ...cursorParams(cursor)]
    )
    return rows
}

/** A page of one NFT's transfers, newest first: the partial (token, token_id, block, log index) index. */
export async function instanceTransfers(db: Db, token: string, tokenId: bigint, cursor: TransferCursor): Promise<TokenTransferRow[]> {
    const { rows } = await db.query<TokenTransferRow>(
        `SELECT ${TOKEN_TRANSFER_COLUMNS} FROM (SELECT * FROM token_transfer WHERE token = $1 AND token_id = $5::numeric AND ${transferBefore(2, 3, 4)}
                  ORDER BY ${NEWEST_FIRST} LIMIT ${FETCH_SIZE}) tt ${TOKEN_TRANSFER_JOIN}
          ORDER BY tt.block_number DESC, tt.log_index DESC, tt.batch_index DESC`,
        [token, ...cursorParams(cursor), String(tokenId)]
    )
    return rows
}

/** What a transfer moves: enough to apply it to balances. */
export type BalanceTransferRow = Pick<TokenTransferRow, 'transaction_hash' | 'token' | 'token_type' | 'from' | 'to' | 'value' | 'token_id'>

/** Every token transfer of a block, in log order. */
export async function blockTransfers(db: Db, blockNumber: number): Promise<BalanceTransferRow[]> {
    const ids = blockLogIds(blockNumber)
    const { rows } = await db.query<BalanceTransferRow>(
        `SELECT transaction_hash, token, token_type, "from", "to", value, token_id FROM token_transfer
          WHERE id >= $1 AND id <= $2 ORDER BY id`,
        [ids.first, ids.last]
    )
    return rows
}

/** Transfers of blocks from..to that touch a watched address, each with the address it touches, newest first. */
export async function watchedTransfers(db: Db, watched: string[], from: number, to: number): Promise<(TokenTransferRow & { watched: string })[]> {
    const { rows } = await db.query<TokenTransferRow & { watched: string }>(
        `SELECT ${TOKEN_TRANSFER_COLUMNS}, w.id AS watched
           FROM unnest($1::text[]) AS w(id)
           JOIN token_transfer tt ON tt.block_number BETWEEN $2 AND $3 AND w.id IN (tt."from", tt."to")
           ${TOKEN_TRANSFER_JOIN}
          ORDER BY tt.block_number DESC, tt.log_index DESC`,
        [watched, from, to]
    )
    return rows
}

/** How many transfers of each of `tokens` blocks from..to hold (tokens without any left out). */
export async function transferCounts(db: Db, tokens: string[], from: number, to: number): Promise<{ token: string; n: number }[]> {
    const { rows } = await db.query<{ token: string; n: number }>(
        `SELECT token, count(*)::int AS n FROM token_transfer
          WHERE token = ANY($1::text[]) AND block_number BETWEEN $2 AND $3 GROUP BY token`,
        [tokens, from, to]
    )
    return rows
}

export interface EtherscanTransferRow extends EtherscanTxColumns {
    block_number: number
    block_hash: string
    timestamp: Date
    log_index: number
    token: string
    from: string
    to: string
    value: string | null
    token_id: string | null
    name: string | null
    symbol: string | null
    decimals: number | null
}

/**
 * Transfers of one token standard of an address (either side) or of a token, in a window of the
 * block range, in (block, log index, position in an ERC-1155 batch) order, with their token's name
 * and their transaction's columns. Each branch is a range scan of the side's (or the token's)
 * (…, block_number, log_index) index that stops after `depth` rows of the standard; an ERC-1155
 * batch's rows share their log's (block, log index), so its position orders them within it.
 */
export async function tokenTransferWindow(
    db: Db, type: TokenStandard, address: string | undefined, token: string | undefined, w: Window,
): Promise<EtherscanTransferRow[]> {
    const dir = w.desc ? 'DESC' : 'ASC'
    const order = `block_number ${dir}, log_index ${dir}, batch_index ${dir}`
    const where = `token_type = $8 AND ($2::text IS NULL OR token = $2) AND block_number BETWEEN $3 AND $4`
    const keys = 'id, block_number, log_index, batch_index'
    const branches = address
        ? ['"from"', '"to"'].map((c) => `(SELECT ${keys} FROM token_transfer WHERE ${c} = $1${nftsOnly([type])} AND ${where} ORDER BY ${order} LIMIT $5)`)
        : [`(SELECT ${keys} FROM token_transfer WHERE $1::text IS NULL AND token = $2 AND ${where} ORDER BY ${order} LIMIT $5)`]
    const { rows } = await db.query<EtherscanTransferRow>(
        `SELECT tt.block_number, tt.block_hash, tt.timestamp, tt.log_index, tt.token, tt."from", tt."to", tt.value::text, tt.token_id::text,
                k.name, k.symbol, k.decimals, ${ETHERSCAN_TX_COLUMNS}
           FROM (SELECT id FROM (${branches.join(' UNION ')}) u ORDER BY ${order} OFFSET $6 LIMIT $7) page
           JOIN token_transfer tt ON tt.id = page.id
           JOIN transaction t ON t.id = tt.transaction_hash
           LEFT JOIN token k ON k.id = tt.token
          ORDER BY tt.block_number ${dir}, tt.log_index ${dir}, tt.batch_index ${dir}`,
        [address ?? null, token ?? null, w.from, w.to, w.depth, w.offset, w.limit, type]
    )
    return rows
}
