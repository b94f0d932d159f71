/**
 * Blockscout's keyset pagination: fixed pages of 50, one extra row fetched to learn whether a next
 * page exists, and `next_page_params` built from the last row shown (null on the last page). The
 * cursor is the row's sort key, so a deep page costs what the first does and a walk stays
 * consistent while new rows arrive at the top.
 */
export const PAGE_SIZE = 50
export const FETCH_SIZE = PAGE_SIZE + 1

export interface Page<T> {
    items: T[]
    next_page_params: Record<string, unknown> | null
}

/**
 * The request's own filters (`type`, `filter`, `q`, `sort`, ...) exactly as the client sent them,
 * for next_page_params. The Blockscout frontend merges its filters into the next request itself,
 * but a client that follows next_page_params alone would otherwise page on through the unfiltered
 * list from the filtered list's cursor.
 */
export function carried(query: Record<string, unknown>, keys: readonly string[]): Record<string, string> {
    const out: Record<string, string> = {}
    for (const key of keys) {
        const value = query[key]
        if (typeof value === 'string' && value !== '') out[key] = value
    }
    return out
}

export function paginate<R>(
    rows: R[],
    cursor: (last: R) => Record<string, unknown>,
    pageSize = PAGE_SIZE,
    filters: Record<string, unknown> = {},
): { rows: R[]; next: Record<string, unknown> | null } {
    if (rows.length <= pageSize) return { rows, next: null }
    const shown = rows.slice(0, pageSize)
    return { rows: shown, next: { ...filters, ...cursor(shown[shown.length - 1]), items_count: pageSize } }
}

/** paginate for the lists whose Blockscout cursor is the row's keys alone, without items_count (token transfers, NFTs). */
export function paginateByKeys<R>(
    rows: R[],
    cursor: (last: R) => Record<string, unknown>,
    filters: Record<string, unknown> = {},
    pageSize = PAGE_SIZE,
): { rows: R[]; next: Record<string, unknown> | null } {
    const page = paginate(rows, cursor, pageSize, filters)
    if (page.next) delete page.next.items_count
    return page
}

/**
 * A page of token transfers: the cursor is the last transfer's (block_number, index) and, as
 * Blockscout's token-transfer lists build it (token_transfers_next_page_params), has no items_count.
 * A page that ends inside an ERC-1155 batch adds Blockscout's batch keys, `index_in_batch` the one read back.
 */
export function paginateTransfers<R extends { block_number: number; log_index: number; block_hash: string; transaction_hash: string; batch_index: number | null }>(
    rows: R[],
    filters: Record<string, unknown> = {},
    pageSize = PAGE_SIZE,
): { rows: R[]; next: Record<string, unknown> | null } {
    return paginateByKeys(rows, (t) => ({
        block_number: t.block_number,
        index: t.log_index,
        ...(t.batch_index === null ? {} : {
            batch_log_index: t.log_index, batch_block_hash: t.block_hash, batch_transaction_hash: t.transaction_hash, index_in_batch: t.batch_index,
        }),
    }), filters, pageSize)
}
