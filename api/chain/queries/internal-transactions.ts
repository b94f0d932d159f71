import { internalTransactionId } from '../../../db/row-ids'
import { Db } from '../db'
import { FETCH_SIZE } from '../pagination'
import { Window } from './window'

/**
 * Reads of the indexer's `internal_transaction` table: the call frames of the node's traces. The
 * id is the frame's position (block, transaction index, frame index), zero-padded
 * (db/row-ids.ts), so a block's or a transaction's frames are primary-key ranges; see
 * docs/chain-api.md.
 */

export interface InternalTransactionRow {
    id: string
    block_number: number
    timestamp: Date
    transaction_hash: string
    transaction_index: number
    index: number
    trace_address: number[]
    type: string
    from: string
    to: string | null
    created_contract: string | null
    value: string
    gas: string | null
    gas_used: string | null
    input: Buffer | null
    output: Buffer | null
    error: string | null
}

const INTERNAL_TRANSACTION_COLUMNS = `i.id, i.block_number, i.timestamp, i.transaction_hash, i.transaction_index, i.index,
    i.trace_address, i.type, i."from", i."to", i.created_contract, i.value, i.gas, i.gas_used, i.input, i.output, i.error`

/** Frames whose kind is a message call; the others (create, create2, selfdestruct, reward) always move or make something. */
export const CALL_TYPES = ['call', 'delegatecall', 'staticcall', 'callcode']
const CALLS = CALL_TYPES.map((t) => `'${t}'`).join(', ')

/**
 * Blockscout lists a transaction's own top-level call nowhere (it is the transaction), but does list
 * a top-level creation. `i` is the internal_transaction alias.
 */
const LISTED = `NOT (i.index = 0 AND i.type IN (${CALLS}))`

/** The last frame index a transaction can hold, and the last transaction index of a block (db/row-ids.ts). */
const LAST = 999_999

/** The position of the last frame shown, the cursor of every internal-transaction list. */
export interface FrameCursor {
    block_number?: number
    transaction_index?: number
    index?: number
}

/** The id just below a cursor's row, for `id < $cursor` keyset queries (newest first). */
function cursorId(cursor: FrameCursor): string {
    if (cursor.block_number === undefined) return '9999999999'
    return internalTransactionId(cursor.block_number, cursor.transaction_index ?? LAST, cursor.index ?? LAST)
}

/** A page of the listed frames with ids first..last, in call order. */
async function listedFrames(db: Db, first: string, last: string): Promise<InternalTransactionRow[]> {
    const { rows } = await db.query<InternalTransactionRow>(
        `SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
          WHERE i.id >= $1 AND i.id <= $2 AND ${LISTED} ORDER BY i.id LIMIT ${FETCH_SIZE}`,
        [first, last]
    )
    return rows
}

/** A page of the chain's listed frames before the cursor, newest first. */
export async function chainFrames(db: Db, cursor: FrameCursor): Promise<InternalTransactionRow[]> {
    const { rows } = await db.query<InternalTransactionRow>(
        `SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
          WHERE i.id < $1 AND ${LISTED} ORDER BY i.id DESC LIMIT ${FETCH_SIZE}`,
        [cursorId(cursor)]
    )
    return rows
}

/** A page of a transaction's listed frames after frame `after`, in call order. */
export function transactionFrames(db: Db, tx: { block_number: number; index: number }, after: number): Promise<InternalTransactionRow[]> {
    return listedFrames(db, internalTransactionId(tx.block_number, tx.index, after + 1), internalTransactionId(tx.block_number, tx.index, LAST))
}

/** A page of a block's listed frames after the cursor (its transaction_index and index), in call order. */
export function blockFrames(db: Db, blockNumber: number, cursor: FrameCursor): Promise<InternalTransactionRow[]> {
    const first = cursor.transaction_index === undefined
        ? internalTransactionId(blockNumber, 0, 0)
        : internalTransactionId(blockNumber, cursor.transaction_index, (cursor.index ?? -1) + 1)
    return listedFrames(db, first, internalTransactionId(blockNumber, LAST, LAST))
}

/** The sides of a frame an address can be on. */
const ROLES = ['"from"', '"to"', 'created_contract'] as const
type Role = (typeof ROLES)[number]

/**
 * One keyset scan per role of the address ($1) on its partial index, to be merged with UNION:
 * each selects `columns` of listed frames (a creation is always listed) with `condition`, then
 * `tail` (its order and limit).
 */
function roleScans(roles: readonly Role[], columns: string, condition: string, tail: string): string {
    return roles
        .map((role) => `(SELECT ${columns} FROM internal_transaction i
              WHERE i.${role} = $1${condition} AND ${role === 'created_contract' ? 'true' : LISTED} ${tail})`)
        .join(' UNION ')
}

/** A page of an address's listed frames before the cursor, newest first; `side` keeps one role. */
export async function addressFrames(db: Db, address: string, side: 'from' | 'to' | undefined, cursor: FrameCursor): Promise<InternalTransactionRow[]> {
    const roles: Role[] = side === 'to' ? ['"to"'] : side === 'from' ? ['"from"'] : [...ROLES]
    const scans = roleScans(roles, INTERNAL_TRANSACTION_COLUMNS, ' AND i.id < $2', `ORDER BY i.id DESC LIMIT ${FETCH_SIZE}`)
    const { rows } = await db.query<InternalTransactionRow>(
        `SELECT * FROM (${scans}) i ORDER BY i.id DESC LIMIT ${FETCH_SIZE}`,
        [address, cursorId(cursor)]
    )
    return rows
}

/** An address's listed frames, counted up to `cap` (the tabs show "50+"). */
export async function countAddressFrames(db: Db, address: string, cap: number): Promise<number> {
    const { rows } = await db.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM (${roleScans(ROLES, 'i.id', '', `LIMIT ${cap}`)} LIMIT ${cap}) x`,
        [address]
    )
    return rows[0].count
}

/** A block's listed frames (bounded by the block's gas), for its `internal_transactions_count`. */
export async function countBlockFrames(db: Db, blockNumber: number): Promise<number> {
    const { rows } = await db.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM internal_transaction i WHERE i.id >= $1 AND i.id <= $2 AND ${LISTED}`,
        [internalTransactionId(blockNumber, 0, 0), internalTransactionId(blockNumber, LAST, LAST)]
    )
    return rows[0].count
}

/**
 * Every frame of a transaction, its top-level call included, in call order. Bounded by the
 * block's gas: every frame costs gas, so a transaction holds a few thousand at most.
 */
export async function transactionTrace(db: Db, tx: { block_number: number; index: number }): Promise<InternalTransactionRow[]> {
    const { rows } = await db.query<InternalTransactionRow>(
        `SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
          WHERE i.id >= $1 AND i.id <= $2 ORDER BY i.id`,
        [internalTransactionId(tx.block_number, tx.index, 0), internalTransactionId(tx.block_number, tx.index, LAST)]
    )
    return rows
}

/** What a frame moves of the coin: enough to apply it to balances. */
export type CoinFrameRow = Pick<InternalTransactionRow, 'transaction_hash' | 'trace_address' | 'type' | 'from' | 'to' | 'created_contract' | 'value' | 'error'>

/** The frames of a block's transactions up to position `last`, in call order. */
export async function blockCoinFrames(db: Db, blockNumber: number, last: number): Promise<CoinFrameRow[]> {
    const { rows } = await db.query<CoinFrameRow>(
        `SELECT transaction_hash, trace_address, type, "from", "to", created_contract, value, error FROM internal_transaction
          WHERE id >= $1 AND id <= $2 ORDER BY id`,
        [internalTransactionId(blockNumber, 0, 0), internalTransactionId(blockNumber, last, LAST)]
    )
    return rows
}

/**
 * Row ids start with the 10-digit zero-padded block number (as every log-derived id does), so the
 * frames of a block range are a primary-key range: the bound keeps an index scan from walking
 * the whole table when startblock/endblock or a transaction narrows it.
 */
function blockIdRange(from: number, to: number): [string, string] {
    return [String(from).padStart(10, '0'), String(to + 1).padStart(10, '0')]
}

/**
 * The Etherscan-style list's frames: never the top-level call (frame 0 is the transaction itself,
 * which txlist already shows); and, as Blockscout does, message calls that move no coin are left
 * out unless `includeZero`, so the default list is the value transfers and contract creations a
 * wallet wants.
 */
function windowFrameFilter(includeZero: boolean): string {
    return `i.index > 0${includeZero ? '' : ` AND NOT (i.type IN (${CALLS}) AND i.value = 0)`}`
}

/** A window of a transaction's frames (see windowFrameFilter), in call order or its reverse. */
export async function transactionFrameWindow(
    db: Db, tx: { block_number: number; index: number }, w: Window, includeZero: boolean,
): Promise<InternalTransactionRow[]> {
    const [lo, hi] = blockIdRange(tx.block_number, tx.block_number)
    const dir = w.desc ? 'DESC' : 'ASC'
    const { rows } = await db.query<InternalTransactionRow>(
        `SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
          WHERE i.id >= $1 AND i.id < $2 AND i.block_number = $3 AND i.transaction_index = $4 AND ${windowFrameFilter(includeZero)}
          ORDER BY i.id ${dir} OFFSET $5 LIMIT $6`,
        [lo, hi, tx.block_number, tx.index, w.offset, w.limit]
    )
    return rows
}

/** A window of an address's frames (any role), or without an address of every frame, in the window's block range. */
export async function addressFrameWindow(db: Db, address: string | undefined, w: Window, includeZero: boolean): Promise<InternalTransactionRow[]> {
    const [lo, hi] = blockIdRange(w.from, w.to)
    const dir = w.desc ? 'DESC' : 'ASC'
    const where = `i.id >= $2 AND i.id < $3 AND i.block_number BETWEEN $4 AND $5 AND ${windowFrameFilter(includeZero)}`
    const branches = address
        ? ROLES.map((c) => `(SELECT i.id FROM internal_transaction i WHERE i.${c} = $1 AND ${where} ORDER BY i.id ${dir} LIMIT $6)`)
        : [`(SELECT i.id FROM internal_transaction i WHERE $1::text IS NULL AND ${where} ORDER BY i.id ${dir} LIMIT $6)`]
    const { rows } = await db.query<InternalTransactionRow>(
        `SELECT ${INTERNAL_TRANSACTION_COLUMNS}
           FROM (SELECT id FROM (${branches.join(' UNION ')}) u ORDER BY id ${dir} OFFSET $7 LIMIT $8) page
           JOIN internal_transaction i ON i.id = page.id
          ORDER BY i.id ${dir}`,
        [address ?? null, lo, hi, w.from, w.to, w.depth, w.offset, w.limit]
    )
    return rows
}
