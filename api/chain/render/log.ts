import { Hex } from 'viem'
import { Db } from '../db'
import { loadAddresses } from './address'
import { decodeLog } from './decode'
import { hex, isoTimestamp } from '../format'

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
export const LOG_COLUMNS = `l.block_number, l.block_hash, l.index, l.transaction_hash, l.address, l.topic0, l.topic1, l.topic2,
    l.topic3, l.data, t.timestamp, t."to" AS tx_to`
export const LOG_JOIN = 'JOIN transaction t ON t.id = l.transaction_hash'

export async function renderLogs(db: Db, rows: LogRow[]) {
    const address = await loadAddresses(db, rows.flatMap((r) => [r.address, r.tx_to]))
    return rows.map((r) => {
        const topics = [r.topic0, r.topic1, r.topic2, r.topic3]
        const data = hex(r.data) as Hex
        return {
            transaction_hash: r.transaction_hash,
            address: address(r.address),
            topics,
            data,
            index: r.index,
            decoded: decodeLog(topics, data),
            smart_contract: address(r.tx_to),
            block_number: r.block_number,
            block_hash: r.block_hash,
            block_timestamp: isoTimestamp(r.timestamp),
        }
    })
}
