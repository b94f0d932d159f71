import type { StoredAuthorization } from '../../../common/evm/authorization'
import { Db } from '../db'
import { FETCH_SIZE } from '../pagination'
import { addressInfo } from './addresses'
import { implementationInfo, verifiedSignature } from './called-methods'
import { Window } from './window'

/** Reads of the indexer's `transaction` table; see docs/chain-api.md. */

/** A transaction's own columns, as stored. */
export interface StoredTransactionRow {
    id: string
    block_number: number
    block_hash: string
    timestamp: Date
    index: number
    from: string
    to: string | null
    created_contract: string | null
    value: string
    nonce: number
    type: number | null
    gas_limit: string
    gas_price: string | null
    max_fee_per_gas: string | null
    max_priority_fee_per_gas: string | null
    gas_used: string
    effective_gas_price: string
    fee: string
    status: number
    input: Buffer
    method_id: string | null
    token_transfer_count: number
    max_fee_per_blob_gas: string | null
    blob_versioned_hashes: string[] | null
    blob_gas_used: string | null
    blob_gas_price: string | null
    authorization_list: StoredAuthorization[] | null
    /** the top-level frame's error as traced, null on success or without call trees */
    error: string | null
    /** a reverted transaction's revert data (docs/indexer.md#revert-data) */
    revert_data: Buffer | null
}

/** A transaction with what rendering it needs besides its own columns. */
export interface TransactionRow extends StoredTransactionRow {
    /** null when the indexer had no call trees for it */
    has_error_in_internal_transactions: boolean | null
    base_fee_per_gas: string | null
    creates_token: boolean
    from_contract: boolean | null
    from_name: string | null
    to_contract: boolean | null
    to_name: string | null
    created_contract_contract: boolean | null
    created_contract_name: string | null
    /** the name the called contract's verified ABIs give method_id (queries/called-methods.ts), null when none does */
    verified_signature: string | null
    /** the called contract's implementation when it is a detected proxy, and that implementation's verified name */
    to_implementation: string | null
    to_implementation_name: string | null
}

/** Columns of `transaction t` joined with its block `b`, as TransactionRow holds them. */
const TRANSACTION_COLUMNS = `t.id, t.block_number, t.block_hash, t.timestamp, t.index, t."from", t."to", t.created_contract,
    t.value, t.nonce, t.type, t.gas_limit, t.gas_price, t.max_fee_per_gas, t.max_priority_fee_per_gas, t.gas_used,
    t.effective_gas_price, t.fee, t.status, t.input, t.method_id, t.token_transfer_count, t.has_error_in_internal_transactions,
    t.max_fee_per_blob_gas, t.blob_versioned_hashes, t.blob_gas_used, t.blob_gas_price, t.authorization_list,
    t.error, t.revert_data, b.base_fee_per_gas,
    (t.created_contract IS NOT NULL AND EXISTS (SELECT 1 FROM token k WHERE k.id = t.created_contract)) AS creates_token,
    ${addressInfo('t."from"', 'from')}, ${addressInfo('t."to"', 'to')}, ${addressInfo('t.created_contract', 'created_contract')},
    ${verifiedSignature('t.method_id', 't."to"')} AS verified_signature, ${implementationInfo('t."to"', 'to')}`

const TRANSACTION_JOIN = 'JOIN block b ON b.number = t.block_number'

/** What a list's keyset query returns of each transaction: its rendered item's identity and its position. */
export interface TransactionKey {
    id: string
    block_hash: string
    block_number: number
    index: number
}

const TRANSACTION_KEY_COLUMNS = 't.id, t.block_hash, t.block_number, t.index'

const MAX_INT = 2_147_483_647

export const TRANSACTION_TYPES = ['token_transfer', 'contract_creation', 'contract_call', 'coin_transfer', 'token_creation'] as const

/** SQL for Blockscout's transaction `type` filter: a transaction matches if it has any of the types. */
function transactionTypeCondition(types: readonly string[] | undefined): string {
    if (!types || types.length === 0) return 'TRUE'
    const conditions: Record<string, string> = {
        token_transfer: 't.token_transfer_count > 0',
        contract_creation: 't."to" IS NULL',
        contract_call: 'EXISTS (SELECT 1 FROM address a WHERE a.id = t."to" AND a.is_contract)',
        coin_transfer: 't.value > 0',
        token_creation: 'EXISTS (SELECT 1 FROM token k WHERE k.id = t.created_contract)',
    }
    return `(${types.map((t) => conditions[t]).join(' OR ')})`
}

/** A transaction with the indexed head it was read at: its confirmations and its answers' cache lifetime count from it. */
export interface TransactionAtHead extends TransactionRow {
    indexed_head: number
}

export async function transactionByHash(db: Db, hash: string): Promise<TransactionAtHead | undefined> {
    const { rows } = await db.query<TransactionAtHead>(
        `SELECT ${TRANSACTION_COLUMNS}, (SELECT c.last_block FROM chain_counters c WHERE c.id = 'chain') AS indexed_head
           FROM transaction t ${TRANSACTION_JOIN} WHERE t.id = $1`,
        [hash]
    )
    return rows[0]
}

/** Transactions by hash, in no particular order. */
export async function transactionsByIds(db: Db, ids: string[]): Promise<TransactionRow[]> {
    const { rows } = await db.query<TransactionRow>(
        `SELECT ${TRANSACTION_COLUMNS} FROM transaction t ${TRANSACTION_JOIN} WHERE t.id = ANY($1::text[])`,
        [ids]
    )
    return rows
}

export interface BlockTransactionsFilter {
    block: number
    types?: readonly string[]
    /** Position after which the page starts. */
    after: number
}

/** A page of a block's transactions in position order. */
export async function blockTransactionKeys(db: Db, filter: BlockTransactionsFilter): Promise<TransactionKey[]> {
    const { rows } = await db.query<TransactionKey>(
        `SELECT ${TRANSACTION_KEY_COLUMNS} FROM transaction t
          WHERE t.block_number = $1 AND t.index > $2 AND ${transactionTypeCondition(filter.types)}
          ORDER BY t.index LIMIT ${FETCH_SIZE}`,
        [filter.block, filter.after]
    )
    return rows
}

/** A page of the chain's transactions before the cursor position (none: from the top), newest first. */
/** A page of transactions before the cursor, newest first; `blobsOnly`: EIP-4844 ones (type 3), through their partial index. */
export async function transactionKeysBefore(db: Db, cursor: { block_number?: number; index?: number }, blobsOnly = false): Promise<TransactionKey[]> {
    const { rows } = await db.query<TransactionKey>(
        `SELECT ${TRANSACTION_KEY_COLUMNS} FROM transaction t
          WHERE (t.block_number, t.index) < ($1, $2)${blobsOnly ? ' AND t.type = 3' : ''}
          ORDER BY t.block_number DESC, t.index DESC LIMIT ${FETCH_SIZE}`,
        [cursor.block_number ?? MAX_INT, cursor.block_number === undefined ? 0 : cursor.index ?? 0]
    )
    return rows
}

export async function latestTransactionKeys(db: Db, count: number): Promise<TransactionKey[]> {
    const { rows } = await db.query<TransactionKey>(
        `SELECT ${TRANSACTION_KEY_COLUMNS} FROM transaction t ORDER BY t.block_number DESC, t.index DESC LIMIT ${count}`
    )
    return rows
}

/**
 * The orders of an address's transaction list. Each has an index per side (from, to) in exactly
 * its order (db/migrations: the (side, block_number, index) ones and SortIndexes): a new one needs its own.
 */
export const ADDRESS_TRANSACTION_SORTS = ['block_number', 'value', 'fee'] as const

/**
 * `column = param`, written so that the planner walks the (column, ...) index. With `=` it knows
 * the column is constant, drops it from the ORDER BY, and may walk the (block_number, index)
 * primary key backwards instead, filtering every row by the address: cheap when the address is in
 * every few transactions near the head, but a walk through every newer transaction when it was
 * busy once and quiet since (a heap read per row, thousands on a live chain, millions on a long
 * one). As a range, the column stays in the ORDER BY, which only its own index gives in order.
 */
function onSideIndex(column: string, param: string): string {
    return `${column} >= ${param} AND ${column} <= ${param}`
}

/** An address's transaction list: which side, the order, and the cursor (the last row's sort key). */
export interface AddressTransactionsQuery {
    filter?: 'to' | 'from'
    sort?: typeof ADDRESS_TRANSACTION_SORTS[number]
    order?: 'asc' | 'desc'
    block_number?: number
    index?: number
    value?: bigint
    fee?: bigint
}

/**
 * An address's transactions: those it sent, received, or created (a contract's creation). Each
 * direction is an index range scan that stops after one page, merged, so a page costs the same
 * at any depth and for any number of transactions.
 */
export async function addressTransactionKeys(db: Db, hash: string, query: AddressTransactionsQuery): Promise<TransactionKey[]> {
    const desc = (query.order ?? 'desc') === 'desc'
    const dir = desc ? 'DESC' : 'ASC'
    const cmp = desc ? '<' : '>'
    const sort = query.sort ?? 'block_number'
    const hasCursor = query.block_number !== undefined && query.index !== undefined
    const params: unknown[] = [hash]
    const sortColumns = sort === 'block_number' ? 'block_number, index' : `${sort}, block_number, index`
    const key = `(${sortColumns})`
    let cursor = 'TRUE'
    if (hasCursor) {
        if (sort !== 'block_number') params.push(String(query[sort] ?? (desc ? 10n ** 78n : -1n)))
        params.push(query.block_number, query.index)
        const n = params.length
        cursor = sort === 'block_number' ? `${key} ${cmp} ($${n - 1}, $${n})` : `${key} ${cmp} ($${n - 2}::numeric, $${n - 1}, $${n})`
    }
    const columns = ['"from"', '"to"', 'created_contract'].filter((c) =>
        query.filter === 'from' ? c === '"from"' : query.filter === 'to' ? c !== '"from"' : true
    )
    const order = sort === 'block_number' ? `block_number ${dir}, index ${dir}` : `${sort} ${dir}, block_number ${dir}, index ${dir}`
    // Each side reads its own (side, sort..., block_number, index) index; the creator has only an index on created_contract, and few rows.
    const branches = columns.map((c) => c === 'created_contract'
        ? `(SELECT ${sortColumns} FROM transaction WHERE ${c} = $1 AND ${cursor} ORDER BY ${order} LIMIT ${FETCH_SIZE})`
        : `(SELECT ${sortColumns} FROM transaction WHERE ${onSideIndex(c, '$1')} AND ${cursor} ORDER BY ${c} ${dir}, ${order} LIMIT ${FETCH_SIZE})`
    )
    const { rows } = await db.query<TransactionKey>(
        `SELECT ${TRANSACTION_KEY_COLUMNS}
           FROM (SELECT block_number, index FROM (${branches.join(' UNION ')}) u ORDER BY ${order} LIMIT ${FETCH_SIZE}) page
           JOIN transaction t ON t.block_number = page.block_number AND t.index = page.index
          ORDER BY ${order.replace(/(^|, )/g, '$1t.')}`,
        params
    )
    return rows
}

/** Transactions of blocks from..to that touch a watched address, each with the address it touches, newest first. */
export async function watchedTransactions(db: Db, watched: string[], from: number, to: number): Promise<(TransactionRow & { watched: string })[]> {
    const { rows } = await db.query<TransactionRow & { watched: string }>(
        `SELECT ${TRANSACTION_COLUMNS}, w.id AS watched
           FROM unnest($1::text[]) AS w(id)
           JOIN transaction t ON t.block_number BETWEEN $2 AND $3 AND w.id IN (t."from", t."to", t.created_contract)
           ${TRANSACTION_JOIN}
          ORDER BY t.block_number DESC, t.index DESC`,
        [watched, from, to]
    )
    return rows
}

/** What a transaction moves of the coin: enough to apply it to balances. */
export type CoinTransactionRow = Pick<
    StoredTransactionRow,
    'id' | 'index' | 'from' | 'to' | 'created_contract' | 'value' | 'status' | 'gas_used' | 'effective_gas_price' | 'blob_gas_used' | 'blob_gas_price'
>

/** A block's transactions up to position `last`, in position order. */
export async function blockCoinTransactions(db: Db, blockNumber: number, last: number): Promise<CoinTransactionRow[]> {
    const { rows } = await db.query<CoinTransactionRow>(
        `SELECT id, index, "from", "to", created_contract, value, status, gas_used, effective_gas_price, blob_gas_used, blob_gas_price
           FROM transaction WHERE block_number = $1 AND index <= $2 ORDER BY index`,
        [blockNumber, last]
    )
    return rows
}

/** A transaction's position, by hash. */
export async function transactionPosition(db: Db, hash: string): Promise<{ block_number: number; index: number } | undefined> {
    const { rows } = await db.query<{ block_number: number; index: number }>(
        'SELECT block_number, index FROM transaction WHERE id = $1',
        [hash]
    )
    return rows[0]
}

/** A transaction's status, and its top-level frame's error when the call tree is indexed. */
export async function transactionOutcome(db: Db, hash: string): Promise<{ status: number; error: string | null } | undefined> {
    const { rows } = await db.query<{ status: number; error: string | null }>(
        `SELECT t.status,
                (SELECT i.error FROM internal_transaction i
                  WHERE i.id >= lpad(t.block_number::text, 10, '0') AND i.id < lpad((t.block_number + 1)::text, 10, '0')
                    AND i.block_number = t.block_number AND i.transaction_index = t.index AND i.index = 0) AS error
           FROM transaction t WHERE t.id = $1`,
        [hash]
    )
    return rows[0]
}

/** Transaction columns of `transaction t` every list row of the Etherscan-style account module shows. */
export const ETHERSCAN_TX_COLUMNS = `t.id AS tx_hash, t.block_hash AS tx_block_hash, t.index AS tx_index, t.nonce, t."from" AS tx_from,
    t."to" AS tx_to, t.created_contract, t.value::text AS tx_value, t.gas_limit::text, t.effective_gas_price::text,
    t.gas_used::text, t.status, t.input,
    (SELECT sum(c.gas_used) FROM transaction c WHERE c.block_number = t.block_number AND c.index <= t.index)::text AS cumulative_gas_used,
    ${verifiedSignature('t.method_id', 't."to"')} AS verified_signature`

export interface EtherscanTxColumns {
    /** the signature the called contract's verified ABIs give the input's selector (queries/called-methods.ts) */
    verified_signature: string | null
    tx_hash: string
    tx_block_hash: string
    tx_index: number
    nonce: number
    tx_from: string
    tx_to: string | null
    created_contract: string | null
    tx_value: string
    gas_limit: string
    effective_gas_price: string
    gas_used: string
    status: number
    input: Buffer
    cumulative_gas_used: string
}

export interface EtherscanTxRow extends EtherscanTxColumns {
    block_number: number
    timestamp: Date
}

/**
 * An address's transactions in a window of the block range. Each side of the address (sender,
 * recipient, creator of a contract) is an index range scan that stops after page x offset rows;
 * the merged window is cut from those, so a request reads at most 3 x depth index entries.
 */
export async function addressTransactionWindow(
    db: Db, address: string, side: 'from' | 'to' | undefined, w: Window,
): Promise<EtherscanTxRow[]> {
    const dir = w.desc ? 'DESC' : 'ASC'
    const columns = side === 'from' ? ['"from"'] : side === 'to' ? ['"to"', 'created_contract'] : ['"from"', '"to"', 'created_contract']
    const branches = columns.map((c) => c === 'created_contract'
        ? `(SELECT block_number, index FROM transaction WHERE ${c} = $1 AND block_number BETWEEN $2 AND $3
                  ORDER BY block_number ${dir}, index ${dir} LIMIT $4)`
        : `(SELECT block_number, index FROM transaction WHERE ${onSideIndex(c, '$1')} AND block_number BETWEEN $2 AND $3
                  ORDER BY ${c} ${dir}, block_number ${dir}, index ${dir} LIMIT $4)`
    )
    const { rows } = await db.query<EtherscanTxRow>(
        `SELECT t.block_number, t.timestamp, ${ETHERSCAN_TX_COLUMNS}
           FROM (SELECT block_number, index FROM (${branches.join(' UNION ')}) u
                  ORDER BY block_number ${dir}, index ${dir} OFFSET $5 LIMIT $6) page
           JOIN transaction t ON t.block_number = page.block_number AND t.index = page.index
          ORDER BY t.block_number ${dir}, t.index ${dir}`,
        [address, w.from, w.to, w.depth, w.offset, w.limit]
    )
    return rows
}
