import { z } from 'zod'
import { hex } from '../format'
import { filteredLogs } from '../queries/logs'
import { EtherscanContext } from './context'
import { EtherscanError, nothingFound, parseParams } from './envelope'
import { Module, ModuleQueries } from './module'
import { addressParam, hashParam, MAX_BLOCK, paging, text, windowOf } from './params'
import { hexNumber } from './rows'

/** Etherscan's cap on getLogs: 1,000 records per request, the rest reached with page/offset. */
export const MAX_LOGS = 1_000

const TOPICS = [0, 1, 2, 3] as const

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
    const rows = await filteredLogs(ctx.edb, {
        from,
        to,
        address: p.address,
        topics: [p.topic0, p.topic1, p.topic2, p.topic3],
        // A pair without its operator is "and", where Blockscout would refuse the request.
        operators: {
            '0_1': p.topic0_1_opr, '0_2': p.topic0_2_opr, '0_3': p.topic0_3_opr,
            '1_2': p.topic1_2_opr, '1_3': p.topic1_3_opr, '2_3': p.topic2_3_opr,
        },
        offset: w.offset,
        limit: w.limit,
    })
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
export const logsQueries: ModuleQueries = [LogsQuery]
