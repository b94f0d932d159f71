import { Hex } from 'viem'
import type { z } from 'zod'
import { Db } from '../db'
import { loadAddresses } from './address'
import { decodeLog } from './decode'
import { hex, isoTimestamp } from '../format'
import { LogRow } from '../queries/logs'
import type { Log } from '../schemas'

export async function renderLogs(db: Db, rows: LogRow[]): Promise<z.input<typeof Log>[]> {
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
