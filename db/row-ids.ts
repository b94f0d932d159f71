/**
 * Ids of log-derived rows (logs, token transfers, swaps): the zero-padded block number and log
 * index, so the primary key sorts in chain order. The indexer writes them; readers use them to
 * find the rows of one block (or one transaction within it) by a primary-key range, which is why
 * those tables carry no (block, index) or transaction index of their own.
 */
export function logId(blockNumber: number, logIndex: number): string {
    return `${String(blockNumber).padStart(10, '0')}-${String(logIndex).padStart(6, '0')}`
}

/** The ids of a block's log rows from position `from` on: `id >= first AND id <= last`. */
export function blockLogIds(blockNumber: number, from = 0): { first: string; last: string } {
    return { first: logId(blockNumber, from), last: logId(blockNumber, 999_999) }
}
