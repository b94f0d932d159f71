import { z } from 'zod'
import { blockLogIds } from '../../../db/row-ids'
import { hex } from '../format'
import { EtherscanContext } from './context'
import { EtherscanError, nothingFound, parseParams } from './envelope'
import { Module } from './module'
import { addressParam, hashParam, MAX_BLOCK, paging, text, windowOf } from './params'
import { hexNumber } from './rows'
import type { LogRow as ChainLogRow } from '../render/log'

/** Etherscan's cap on getLogs: 1,000 records per request, the rest reached with page/offset. */
export const MAX_LOGS = 1_000

const TOPICS = [0, 1, 2, 3] as const
const PAIRS = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]] as const

function blockRef(name: string) {
    const invalid = `Invalid ${name} format`
    return text(invalid, invalid).regex(/^(latest|\d{1,20})$/, invalid)
}

const topic = (n: number) => hashParam(`Invalid topic${n} format`, `Invalid topic${n} format`).optional()
const operator = (a: number, b: number) =>
    z.enum(['and', 'or'], { error: `Invalid topic${a}_${b}_opr format` }).optional()

const LogsQuery = z.object({
    fromBlock: blockRef('fromBlock').optional(),
    toBlock: blockRef('toBlock').optional(),
    address: addressParam('Invalid address format', 'Invalid address format').optional(),
    topic0: topic(0),
    topic1: topic(1),
    topic2: topic(2),
    topic3: topic(3),
    topic0_1_opr: operator(0, 1),
    topic0_2_opr: operator(0, 2),
    topic0_3_opr: operator(0, 3),
    topic1_2_opr: operator(1, 2),
    topic1_3_opr: operator(1, 3),
    topic2_3_opr: operator(2, 3),
    page: paging.page,
    offset: paging.offset,
})

type LogsParams = z.infer<typeof LogsQuery>

/**
 * The topic condition as Blockscout builds it: each pair of given topics contributes
 * `(topicA op topicB)` with its topicA_B_opr ("and" when absent, where Blockscout would refuse
 * the request), and the pairs are all required. A single topic is a plain equality.
 */
function topicCondition(p: LogsParams, values: unknown[]): string {
    const given = TOPICS.filter((n) => p[`topic${n}`] !== undefined)
    const placeholder = new Map<number, string>()
    for (const n of given) {
        values.push(p[`topic${n}`])
        placeholder.set(n, `l.topic${n} = $${values.length}`)
    }
    if (given.length === 1) return placeholder.get(given[0])!
    return PAIRS.filter(([a, b]) => placeholder.has(a) && placeholder.has(b))
        .map(([a, b]) => `(${placeholder.get(a)} ${(p[`topic${a}_${b}_opr` as `topic0_1_opr`] ?? 'and').toUpperCase()} ${placeholder.get(b)})`)
        .join(' AND ')
}

/** The chain API's log row, with what Etherscan's log record adds (position and gas of its transaction). */
type LogRow = Omit<ChainLogRow, 'tx_to'> & { transaction_index: number; gas_price: string; gas_used: string }

/**
 * Logs in chain order. With an address the scan is its (address, block, index) index; without one
 * it is the primary-key range of the block range, filtered by topic: bounded by the block range
 * and by the statement timeout, which answers "Query Timeout" for a range too wide to filter.
 */
async function getlogs(ctx: EtherscanContext, query: unknown) {
    const p = parseParams(LogsQuery, query)
    if (p.address === undefined && TOPICS.every((n) => p[`topic${n}`] === undefined)) {
        throw new EtherscanError('Required query parameters missing: address and/or topic{x}')
    }
    const head = await ctx.head.get()
    const resolve = (ref: string | undefined, fallback: number) =>
        ref === undefined ? fallback : ref === 'latest' ? Math.max(head.number, 0) : Math.min(Number(ref), MAX_BLOCK)
    const from = resolve(p.fromBlock, 0)
    const to = resolve(p.toBlock, Math.max(head.number, 0))
    const w = windowOf({ page: p.page, offset: p.offset, sort: 'asc' }, { maxOffset: MAX_LOGS })
    const values: unknown[] = [from, to, w.offset, w.limit]
    let where = 'l.block_number BETWEEN $1 AND $2'
    if (p.address !== undefined) {
        values.push(p.address)
        where += ` AND l.address = $${values.length}`
    } else {
        values.push(blockLogIds(from).first, blockLogIds(Math.min(to, MAX_BLOCK - 1) + 1).first)
        where += ` AND l.id >= $${values.length - 1} AND l.id < $${values.length}`
    }
    if (TOPICS.some((n) => p[`topic${n}`] !== undefined)) where += ` AND ${topicCondition(p, values)}`
    const order = p.address !== undefined ? 'l.block_number, l.index' : 'l.id'
    const { rows } = await ctx.edb.query<LogRow>(
        `SELECT l.block_number, l.block_hash, l.index, l.transaction_hash, l.transaction_index, l.address, l.topic0, l.topic1,
                l.topic2, l.topic3, l.data, t.timestamp, t.effective_gas_price::text AS gas_price, t.gas_used::text
           FROM (SELECT l.id FROM log l WHERE ${where} ORDER BY ${order} OFFSET $3 LIMIT $4) page
           JOIN log l ON l.id = page.id
           JOIN transaction t ON t.id = l.transaction_hash
          ORDER BY l.block_number, l.index`,
        values
    )
    if (rows.length === 0) throw nothingFound('No logs found')
    return rows.map((r) => ({
        address: r.address,
        // Only the topics the log has, as eth_getLogs and Etherscan list them (Blockscout pads with nulls).
        topics: [r.topic0, r.topic1, r.topic2, r.topic3].filter((t): t is string => t !== null),
        data: hex(r.data),
        blockNumber: hexNumber(r.block_number),
        blockHash: r.block_hash,
        timeStamp: hexNumber(Math.floor(r.timestamp.getTime() / 1000)),
        gasPrice: hexNumber(r.gas_price),
        gasUsed: hexNumber(r.gas_used),
        logIndex: hexNumber(r.index),
        transactionHash: r.transaction_hash,
        transactionIndex: hexNumber(r.transaction_index),
    }))
}

export const logs: Module = { getlogs }
