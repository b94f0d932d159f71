import { Hex } from 'viem'
import type { z } from 'zod'
import { relatedAddresses } from './address'
import { decodeLog } from './decode'
import { hex, isoTimestamp } from '../format'
import { LogRow } from '../queries/logs'
import { Related, RelatedRefs } from '../queries/related'
import type { Log } from '../schemas'

/** What renderLogs shows of other rows: the emitting contract and the transaction's `to`. */
export function logRefs(rows: readonly LogRow[]): RelatedRefs {
    return { addresses: rows.flatMap((r) => [r.address, r.tx_to]) }
}

/** Renders a page of Blockscout Logs, with the addresses of logRefs. */
export function renderLogs(rows: readonly LogRow[], related: Related): z.input<typeof Log>[] {
    const address = relatedAddresses(related)
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
