import { Db } from './db'
import { notFound } from './errors'
import { BlockRef } from './params'
import { blockByRef, BlockRow } from './queries/blocks'
import { TokenDetailRow, tokenById } from './queries/tokens'
import { TransactionAtHead, transactionByHash } from './queries/transactions'

/**
 * The object a route's path names, or Blockscout's 404 when the indexer has none. They take the
 * parsed path parameter rather than parsing it: a route parses its path and query first, so a bad
 * parameter answers 422 before anything is read.
 */

export async function transactionOr404(db: Db, hash: string): Promise<TransactionAtHead> {
    const row = await transactionByHash(db, hash)
    if (!row) throw notFound()
    return row
}

export async function blockOr404(db: Db, ref: BlockRef): Promise<BlockRow> {
    const row = await blockByRef(db, ref)
    if (!row) throw notFound()
    return row
}

export async function tokenOr404(db: Db, hash: string): Promise<TokenDetailRow> {
    const row = await tokenById(db, hash)
    if (!row) throw notFound()
    return row
}
