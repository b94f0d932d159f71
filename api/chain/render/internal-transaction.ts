import type { z } from 'zod'
import { decimal, isoTimestamp } from '../format'
import { InternalTransactionRow } from '../queries/internal-transactions'
import { Related, RelatedRefs } from '../queries/related'
import { relatedAddresses } from './address'
import type { InternalTransaction } from '../schemas'

/** The cursor of every internal-transaction list: the position of the last row shown. */
export function internalTransactionCursor(row: InternalTransactionRow) {
    return { block_number: row.block_number, transaction_index: row.transaction_index, index: row.index }
}

/** What renderInternalTransactions shows of other rows: the frames' addresses. */
export function internalTransactionRefs(rows: readonly InternalTransactionRow[]): RelatedRefs {
    return { addresses: rows.flatMap((r) => [r.from, r.to, r.created_contract]) }
}

/** Renders Blockscout InternalTransactions, with the addresses of internalTransactionRefs. */
export function renderInternalTransactions(rows: readonly InternalTransactionRow[], related: Related): z.input<typeof InternalTransaction>[] {
    const address = relatedAddresses(related)
    return rows.map((r) => ({
        error: r.error,
        success: r.error === null,
        type: r.type,
        transaction_hash: r.transaction_hash,
        transaction_index: r.transaction_index,
        from: address(r.from),
        to: address(r.to),
        created_contract: address(r.created_contract),
        value: decimal(r.value),
        index: r.index,
        block_number: r.block_number,
        // Older frontends read `block`; current Blockscout sends both.
        block: r.block_number,
        block_index: r.index,
        timestamp: isoTimestamp(r.timestamp),
        gas_limit: decimal(r.gas),
    }))
}

const quantity = (value: string | null) => (value === null ? undefined : `0x${BigInt(value).toString(16)}`)
const bytes = (value: Buffer | null) => (value === null ? undefined : `0x${value.toString('hex')}`)

/**
 * A transaction's call tree the way `trace_transaction` shows it (Parity format), which is what
 * Blockscout's raw-trace tab displays.
 */
export function renderRawTrace(rows: InternalTransactionRow[]) {
    const children = new Map<string, number>()
    for (const r of rows) {
        if (r.trace_address.length === 0) continue
        const parent = r.trace_address.slice(0, -1).join(',')
        children.set(parent, (children.get(parent) ?? 0) + 1)
    }
    return rows.map((r) => {
        const frame: Record<string, unknown> = {
            subtraces: children.get(r.trace_address.join(',')) ?? 0,
            traceAddress: r.trace_address,
            transactionHash: r.transaction_hash,
            blockNumber: r.block_number,
        }
        if (r.type === 'create' || r.type === 'create2') {
            frame.type = 'create'
            frame.action = { from: r.from, gas: quantity(r.gas), init: bytes(r.input), value: quantity(r.value), creationMethod: r.type }
            if (r.error === null) frame.result = { address: r.created_contract, code: bytes(r.output), gasUsed: quantity(r.gas_used) }
        } else if (r.type === 'selfdestruct') {
            frame.type = 'suicide'
            frame.action = { address: r.from, refundAddress: r.to, balance: quantity(r.value) }
        } else {
            frame.type = 'call'
            frame.action = { callType: r.type, from: r.from, to: r.to, gas: quantity(r.gas), input: bytes(r.input), value: quantity(r.value) }
            if (r.error === null) frame.result = { gasUsed: quantity(r.gas_used), output: bytes(r.output) }
        }
        if (r.error !== null) frame.error = r.error
        return frame
    })
}
