import { Db } from '../db'
import { FETCH_SIZE } from '../pagination'
import type { BlockRef } from '../params'
import { addressInfo } from './addresses'

/** Reads of the indexer's `block` table; see docs/chain-api.md. */

export interface BlockRow {
    id: string
    number: number
    parent_hash: string
    timestamp: Date
    miner: string
    gas_used: string
    gas_limit: string
    base_fee_per_gas: string | null
    size: number
    difficulty: string
    total_difficulty: string | null
    nonce: string
    transaction_count: number
    transaction_fees: string
    burnt_fees: string
    miner_contract: boolean | null
    miner_name: string | null
    /** Read for the single view only (blockByRef). */
    extra_data?: string
    /** null for blocks indexed before the indexer kept it. */
    state_root?: string | null
    /** EIP-4844, read for the single view only: null before Cancun or for blocks indexed before the columns existed. */
    blob_gas_used?: string | null
    excess_blob_gas?: string | null
    /** null when the block holds no blob transaction */
    blob_gas_price?: string | null
    blob_transaction_count?: number
}

/** What a list's keyset query returns of each block: its rendered item's identity and its position. */
export interface BlockKey {
    id: string
    number: number
}

const BLOCK_KEY_COLUMNS = 'b.id, b.number'

const BLOCK_COLUMNS = `b.id, b.number, b.parent_hash, b.timestamp, b.miner, b.gas_used, b.gas_limit, b.base_fee_per_gas,
    b.size, b.difficulty, b.total_difficulty, b.nonce, b.transaction_count, b.transaction_fees, b.burnt_fees,
    ${addressInfo('b.miner', 'miner')}`

/** The single view also shows the header fields no list needs. */
const BLOCK_SINGLE_COLUMNS = `${BLOCK_COLUMNS}, b.extra_data, b.state_root, b.blob_gas_used, b.excess_blob_gas, b.blob_gas_price,
    (SELECT count(*)::int FROM transaction t WHERE t.block_number = b.number AND t.type = 3) AS blob_transaction_count`

const MAX_INT = 2_147_483_647

/** The consensus block by number or hash; reorged-away blocks are deleted by the indexer, so never found. */
export async function blockByRef(db: Db, ref: BlockRef): Promise<BlockRow | undefined> {
    const where = 'number' in ref ? 'b.number = $1' : 'b.id = $1'
    const { rows } = await db.query<BlockRow>(`SELECT ${BLOCK_SINGLE_COLUMNS} FROM block b WHERE ${where}`, [
        'number' in ref ? ref.number : ref.hash,
    ])
    return rows[0]
}

/** A page of blocks below `before` (none: from the top), newest first. */
export async function blockKeysBefore(db: Db, before: number | undefined): Promise<BlockKey[]> {
    const { rows } = await db.query<BlockKey>(
        `SELECT ${BLOCK_KEY_COLUMNS} FROM block b WHERE b.number < $1 ORDER BY b.number DESC LIMIT ${FETCH_SIZE}`,
        [before ?? MAX_INT]
    )
    return rows
}

export async function latestBlockKeys(db: Db, count: number): Promise<BlockKey[]> {
    const { rows } = await db.query<BlockKey>(`SELECT ${BLOCK_KEY_COLUMNS} FROM block b ORDER BY b.number DESC LIMIT ${count}`)
    return rows
}

/** A page of the blocks `miner` mined below `before` (none: from the top), newest first. */
export async function minedBlockKeys(db: Db, miner: string, before: number | undefined): Promise<BlockKey[]> {
    const { rows } = await db.query<BlockKey>(
        `SELECT ${BLOCK_KEY_COLUMNS} FROM block b WHERE b.miner = $1 AND b.number < $2 ORDER BY b.number DESC LIMIT ${FETCH_SIZE}`,
        [miner, before ?? MAX_INT]
    )
    return rows
}

/**
 * How many blocks `miner` mined, counted up to `cap` (the indexer keeps no per-miner counter, and
 * a chain's one validator mines every block): an index-only scan that stops at the cap.
 */
export async function minedBlockCount(db: Db, miner: string, cap: number): Promise<number> {
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM (SELECT 1 FROM block WHERE miner = $1 LIMIT $2) x', [miner, cap])
    return rows[0].n
}

/** Blocks by hash, as lists render them, in no particular order. */
export async function blocksByIds(db: Db, ids: string[]): Promise<BlockRow[]> {
    const { rows } = await db.query<BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM block b WHERE b.id = ANY($1::text[])`, [ids])
    return rows
}

/** Blocks from..to, as lists render them, in chain order. */
export async function blocksBetween(db: Db, from: number, to: number): Promise<BlockRow[]> {
    const { rows } = await db.query<BlockRow>(
        `SELECT ${BLOCK_COLUMNS} FROM block b WHERE b.number BETWEEN $1 AND $2 ORDER BY b.number`,
        [from, to]
    )
    return rows
}

/**
 * The last block mined at or before the unix time, or the first at or after it. Ties go to the
 * highest number for "before" and the lowest for "after": the block closest to the time from that side.
 */
export async function blockNumberAtTime(db: Db, timestamp: number, closest: 'before' | 'after'): Promise<number | undefined> {
    const sql = closest === 'before'
        ? 'SELECT number FROM block WHERE timestamp <= to_timestamp($1) ORDER BY timestamp DESC, number DESC LIMIT 1'
        : 'SELECT number FROM block WHERE timestamp >= to_timestamp($1) ORDER BY timestamp ASC, number ASC LIMIT 1'
    const { rows } = await db.query<{ number: number }>(sql, [timestamp])
    return rows[0]?.number
}

/** Who a block's fees went to, and its base fee. */
export async function blockFeeTerms(db: Db, number: number): Promise<{ miner: string; base_fee_per_gas: string | null }> {
    const { rows } = await db.query<{ miner: string; base_fee_per_gas: string | null }>(
        'SELECT miner, base_fee_per_gas FROM block WHERE number = $1',
        [number]
    )
    return rows[0]
}
