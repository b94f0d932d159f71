/**
 * Ids of log-derived rows (logs, token transfers, swaps): the zero-padded block number and log
 * index, so the primary key sorts in chain order. The indexer writes them; readers use them to
 * find the rows of one block (or one transaction within it) by a primary-key range, which is why
 * those tables carry no (block, index) or transaction index of their own.
 */
export function logId(blockNumber: number, logIndex: number): string {
    return `${String(blockNumber).padStart(10, '0')}-${String(logIndex).padStart(6, '0')}`
}

/**
 * Ids of the token transfers of an ERC-1155 TransferBatch log, one row per id: the log's id and the
 * zero-padded position in the batch. `logId-000000` sorts after the log's own id and before the next
 * log's, so the primary key stays in chain order and a block's range (blockLogIds) holds them.
 */
export function batchTransferId(blockNumber: number, logIndex: number, position: number): string {
    return `${logId(blockNumber, logIndex)}-${String(position).padStart(6, '0')}`
}

/** The ids of a block's log rows from position `from` on: `id >= first AND id <= last`. */
export function blockLogIds(blockNumber: number, from = 0): { first: string; last: string } {
    return { first: logId(blockNumber, from), last: logId(blockNumber, 999_999) }
}

/**
 * Ids of call frames: zero-padded block number, transaction index and the frame's depth-first
 * position in its transaction, so the primary key sorts in chain order like the log ids.
 */
export function internalTransactionId(blockNumber: number, transactionIndex: number, index: number): string {
    return `${String(blockNumber).padStart(10, '0')}-${String(transactionIndex).padStart(6, '0')}-${String(index).padStart(6, '0')}`
}

/** Ids of an address's native balance history: the address and the zero-padded block number. */
export function coinBalanceId(address: string, blockNumber: number): string {
    return `${address}-${String(blockNumber).padStart(10, '0')}`
}

/** Ids of NFT rows: an instance is `token-tokenId` (decimal id), an ERC-1155 balance adds `-holder`. */
export function instanceId(token: string, tokenId: bigint): string {
    return `${token}-${tokenId}`
}

export function nftBalanceId(token: string, tokenId: bigint, holder: string): string {
    return `${instanceId(token, tokenId)}-${holder}`
}
