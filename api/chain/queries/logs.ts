import { blockLogIds } from '../../../db/row-ids'
import { Db } from '../db'
import { FETCH_SIZE } from '../pagination'

/**
 * Reads of the indexer's `log` table. Its id is the zero-padded (block, log index)
 * (db/row-ids.ts), so a block's logs are a primary-key range; see docs/chain-api.md.
 */

export interface LogRow {
    block_number: number
    block_hash: string
    index: number
    transaction_hash: string
    address: string
    topic0: string | null
    topic1: string | null
    topic2: string | null
    topic3: string | null
    data: Buffer
    timestamp: Date
    tx_to: string | null
}

/** Columns of `log l` joined with its transaction `t` (the `smart_contract` is the transaction's `to`). */
const LOG_COLUMNS = `l.block_number, l.block_hash, l.index, l.transaction_hash, l.address, l.topic0, l.topic1, l.topic2,
    l.topic3, l.data, t.timestamp, t."to" AS tx_to`
const LOG_JOIN = 'JOIN transaction t ON t.id = l.transaction_hash'

const MAX_INT = 2_147_483_647

/** A page of a transaction's logs after log index `after`, in log order: among its block's, a primary-key range. */
export async function transactionLogs(db: Db, tx: { block_number: number; index: number }, after: number): Promise<LogRow[]> {
    const ids = blockLogIds(tx.block_number, after + 1)
    const { rows } = await db.query<LogRow>(
        `SELECT ${LOG_COLUMNS} FROM log l ${LOG_JOIN}
          WHERE l.id >= $1 AND l.id <= $2 AND l.transaction_index = $3 ORDER BY l.id LIMIT ${FETCH_SIZE}`,
        [ids.first, ids.last, tx.index]
    )
    return rows
}

/** A page of the logs an address emitted before the cursor, newest first, optionally with `topic` in any position. */
export async function addressLogs(db: Db, address: string, query: { block_number?: number; index?: number; topic?: string }): Promise<LogRow[]> {
    const params: unknown[] = [address, query.block_number ?? MAX_INT, query.block_number === undefined ? MAX_INT : query.index ?? MAX_INT]
    let topic = ''
    if (query.topic) {
        params.push(query.topic)
        topic = 'AND $4 IN (l.topic0, l.topic1, l.topic2, l.topic3)'
    }
    const { rows } = await db.query<LogRow>(
        `SELECT ${LOG_COLUMNS} FROM log l ${LOG_JOIN}
          WHERE l.address = $1 AND (l.block_number, l.index) < ($2, $3) ${topic}
          ORDER BY l.block_number DESC, l.index DESC LIMIT ${FETCH_SIZE}`,
        params
    )
    return rows
}

/** The log row of the Etherscan-style API: what its record adds (position and gas of its transaction). */
export type EtherscanLogRow = Omit<LogRow, 'tx_to'> & { transaction_index: number; gas_price: string; gas_used: string }

const PAIRS = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]] as const
type TopicPair = `${(typeof PAIRS)[number][0]}_${(typeof PAIRS)[number][1]}`

/** An eth_getLogs-style filter: a block range, an emitter, topics and how each given pair of them combines. */
export interface LogFilter {
    from: number
    to: number
    address?: string
    /** topic0..topic3, undefined where not given */
    topics: readonly [string | undefined, string | undefined, string | undefined, string | undefined]
    /** by pair of positions; `and` when absent */
    operators: Partial<Record<TopicPair, 'and' | 'or'>>
    offset: number
    limit: number
}

const POSITIONS = [0, 1, 2, 3] as const

/**
 * The topic condition as Blockscout builds it: each pair of given topics contributes
 * `(topicA op topicB)` with its operator, and the pairs are all required. A single topic is a plain
 * equality.
 */
function topicCondition(filter: LogFilter, values: unknown[]): string {
    const given = POSITIONS.filter((n) => filter.topics[n] !== undefined)
    const placeholder = new Map<number, string>()
    for (const n of given) {
        values.push(filter.topics[n])
        placeholder.set(n, `l.topic${n} = $${values.length}`)
    }
    if (given.length === 1) return placeholder.get(given[0])!
    return PAIRS.filter(([a, b]) => placeholder.has(a) && placeholder.has(b))
        .map(([a, b]) => `(${placeholder.get(a)} ${(filter.operators[`${a}_${b}`] ?? 'and').toUpperCase()} ${placeholder.get(b)})`)
        .join(' AND ')
}

/**
 * Logs in chain order. With an address the scan is its (address, block, index) index; without one
 * it is the primary-key range of the block range (`to` below the last block id), filtered by topic.
 */
export async function filteredLogs(db: Db, filter: LogFilter): Promise<EtherscanLogRow[]> {
    const values: unknown[] = [filter.from, filter.to, filter.offset, filter.limit]
    let where = 'l.block_number BETWEEN $1 AND $2'
    if (filter.address !== undefined) {
        values.push(filter.address)
        where += ` AND l.address = $${values.length}`
    } else {
        values.push(blockLogIds(filter.from).first, blockLogIds(Math.min(filter.to, MAX_INT - 1) + 1).first)
        where += ` AND l.id >= $${values.length - 1} AND l.id < $${values.length}`
    }
    if (POSITIONS.some((n) => filter.topics[n] !== undefined)) where += ` AND ${topicCondition(filter, values)}`
    const order = filter.address !== undefined ? 'l.block_number, l.index' : 'l.id'
    const { rows } = await db.query<EtherscanLogRow>(
        `SELECT l.block_number, l.block_hash, l.index, l.transaction_hash, l.transaction_index, l.address, l.topic0, l.topic1,
                l.topic2, l.topic3, l.data, t.timestamp, t.effective_gas_price::text AS gas_price, t.gas_used::text
           FROM (SELECT l.id FROM log l WHERE ${where} ORDER BY ${order} OFFSET $3 LIMIT $4) page
           JOIN log l ON l.id = page.id
           JOIN transaction t ON t.id = l.transaction_hash
          ORDER BY l.block_number, l.index`,
        values
    )
    return rows
}
