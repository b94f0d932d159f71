import { Db } from '../db'
import { checksum, hex, isoTimestamp } from '../format'
import { FETCH_SIZE } from '../pagination'
import { addressFrames, CALL_TYPES, InternalTransactionRow } from '../queries/internal-transactions'
import { addressLogs, LogRow } from '../queries/logs'
import { related } from '../queries/related'
import { addressTransfers, TokenTransferRow } from '../queries/token-transfers'
import { addressTransactionKeys, transactionsByIds, TransactionRow } from '../queries/transactions'
import { renderTransaction, transactionAddresses } from '../render/transaction'
import { keysetPages, mapPages, RowSource } from './writer'

/**
 * Blockscout's four address exports (Explorer.Chain.CsvExport.Address.*): an address's
 * transactions, internal transactions, token transfers and logs in the blocks of a period, with
 * Blockscout's columns in its order. Rows are read by the same keyset queries as the address's list
 * routes, in their order (newest first), from the period's last block down to its first; each page
 * is turned into its lines before the next is read.
 */

export const ADDRESS_EXPORTS = ['transactions', 'internal-transactions', 'token-transfers', 'logs'] as const
export type AddressExportKind = (typeof ADDRESS_EXPORTS)[number]

export interface AddressExportRequest {
    db: Db
    address: string
    /** the first and last block of the period */
    blocks: { from: number; to: number }
    /** filter_type=address: only the rows the address sent (`from`) or received (`to`) */
    side?: 'from' | 'to'
    /** filter_type=topic (logs): only the logs with this topic in any position */
    topic?: string
    /** the indexed head, for the rendered transactions' confirmations */
    head: number
}

/** Blockscout writes a DateTime as Elixir prints it: `2024-01-31 12:00:00.000000Z`. */
export function csvTimestamp(value: Date | string | null): string | null {
    return isoTimestamp(value)?.replace('T', ' ') ?? null
}

/** Blockscout's Type column: OUT when the address sent the row, IN when it received it, else empty. */
function direction(address: string, from: string | null | undefined, to: string | null | undefined): string {
    if (from?.toLowerCase() === address) return 'OUT'
    if (to?.toLowerCase() === address) return 'IN'
    return ''
}

const optionalChecksum = (value: string | null) => (value === null ? null : checksum(value))

/** The cursor below which a newest-first (block, index) list starts: everything of the period's last block and before. */
const belowBlock = (block: number) => ({ block_number: block + 1, index: 0 })

/** What a transaction row of the file holds: the transaction as the list renders it. */
type ShownTransaction = ReturnType<typeof renderTransaction>

/** Transactions by key, rendered as /api/v2/addresses/{hash}/transactions renders them, in the keys' order. */
async function renderedTransactions(db: Db, ids: readonly string[], head: number): Promise<ShownTransaction[]> {
    const rows = await transactionsByIds(db, [...new Set(ids)])
    const address = transactionAddresses(rows)
    const byId = new Map(rows.map((t) => [t.id, renderTransaction(t, address, head)]))
    return ids.map((id) => byId.get(id)!)
}

function transactionsExport(r: AddressExportRequest): RowSource<ShownTransaction> {
    const keys = keysetPages({
        first: belowBlock(r.blocks.to),
        read: (cursor) => addressTransactionKeys(r.db, r.address, { filter: r.side, ...cursor }),
        next: (last) => ({ block_number: last.block_number, index: last.index }),
        full: FETCH_SIZE,
        past: (row) => row.block_number < r.blocks.from,
    })
    return {
        pages: mapPages(keys, (page) => renderedTransactions(r.db, page.map((k) => k.id), r.head)),
        columns: [
            { header: 'TxHash', value: (t) => t.hash },
            { header: 'BlockNumber', value: (t) => t.block_number },
            { header: 'UnixTimestamp', value: (t) => csvTimestamp(t.timestamp) },
            { header: 'FromAddress', value: (t) => t.from?.hash },
            { header: 'ToAddress', value: (t) => t.to?.hash },
            { header: 'ContractAddress', value: (t) => t.created_contract?.hash },
            { header: 'Type', value: (t) => direction(r.address, t.from?.hash, t.to?.hash) },
            { header: 'Value', value: (t) => t.value },
            { header: 'Fee', value: (t) => t.fee.value },
            { header: 'Status', value: (t) => t.status },
            { header: 'ErrCode', value: (t) => (t.status === 'ok' ? null : t.result) },
            // No price feed: Blockscout's fiat columns stay empty, as it writes them without market data.
            { header: 'CurrentPrice', value: () => null },
            { header: 'TxDateOpeningPrice', value: () => null },
            { header: 'TxDateClosingPrice', value: () => null },
            { header: 'MethodName', value: (t) => t.method },
        ],
    }
}

/** A frame with the gas price of its transaction, which its Fee column is priced at. */
type PricedFrame = InternalTransactionRow & { gas_price: string | null }

async function pricedFrames(db: Db, frames: InternalTransactionRow[]): Promise<PricedFrame[]> {
    const prices = await gasPrices(db, frames.map((f) => f.transaction_hash))
    return frames.map((f) => ({ ...f, gas_price: prices.get(f.transaction_hash) ?? null }))
}

async function gasPrices(db: Db, hashes: readonly string[]): Promise<Map<string, string>> {
    const rows = await transactionsByIds(db, [...new Set(hashes)])
    return new Map(rows.map((t: TransactionRow) => [t.id, t.gas_price ?? t.effective_gas_price]))
}

function internalTransactionsExport(r: AddressExportRequest): RowSource<PricedFrame> {
    const frames = keysetPages({
        first: { block_number: r.blocks.to + 1, transaction_index: 0, index: 0 },
        read: (cursor) => addressFrames(r.db, r.address, r.side, cursor),
        next: (last) => ({ block_number: last.block_number, transaction_index: last.transaction_index, index: last.index }),
        full: FETCH_SIZE,
        past: (row) => row.block_number < r.blocks.from,
    })
    const isCall = (f: PricedFrame) => CALL_TYPES.includes(f.type)
    return {
        pages: mapPages(frames, (page) => pricedFrames(r.db, page)),
        columns: [
            { header: 'TxHash', value: (f) => f.transaction_hash },
            { header: 'Index', value: (f) => f.index },
            { header: 'BlockNumber', value: (f) => f.block_number },
            { header: 'TxIndex', value: (f) => f.transaction_index },
            { header: 'UnixTimestamp', value: (f) => csvTimestamp(f.timestamp) },
            { header: 'FromAddress', value: (f) => checksum(f.from) },
            { header: 'ToAddress', value: (f) => optionalChecksum(f.to) },
            { header: 'ContractAddress', value: (f) => optionalChecksum(f.created_contract) },
            // Blockscout's type is call, create, create2 or selfdestruct; the kind of call is CallType.
            { header: 'Type', value: (f) => (isCall(f) ? 'call' : f.type) },
            { header: 'CallType', value: (f) => (isCall(f) ? f.type : null) },
            { header: 'Gas', value: (f) => f.gas ?? '0' },
            { header: 'GasUsed', value: (f) => f.gas_used },
            { header: 'Value', value: (f) => f.value },
            { header: 'Input', value: (f) => (f.input === null ? null : hex(f.input)) },
            { header: 'Output', value: (f) => (f.output === null ? null : hex(f.output)) },
            { header: 'ErrCode', value: (f) => f.error },
            { header: 'Fee', value: (f) => (f.gas_price === null || f.gas_used === null ? null : BigInt(f.gas_price) * BigInt(f.gas_used)) },
        ],
    }
}

/** A transfer with its token's symbol and decimals and its transaction as the list renders it (fee, status). */
type TransferLine = TokenTransferRow & { symbol: string | null; decimals: number | null; transaction: ShownTransaction }

async function transferLines(r: AddressExportRequest, rows: TokenTransferRow[]): Promise<TransferLine[]> {
    const [{ tokens }, transactions] = await Promise.all([
        related(r.db, { tokens: rows.map((t) => t.token) }),
        renderedTransactions(r.db, rows.map((t) => t.transaction_hash), r.head),
    ])
    return rows.map((t, i) => {
        const token = tokens.get(t.token)
        return { ...t, symbol: token?.symbol ?? null, decimals: token?.decimals ?? null, transaction: transactions[i] }
    })
}

function tokenTransfersExport(r: AddressExportRequest): RowSource<TransferLine> {
    const transfers = keysetPages({
        first: { ...belowBlock(r.blocks.to), index_in_batch: 0 },
        read: (cursor) => addressTransfers(r.db, r.address, { filter: r.side, ...cursor }),
        // As paginateTransfers resumes: inside an ERC-1155 batch, after the row's position in it.
        next: (last) => ({ block_number: last.block_number, index: last.log_index, index_in_batch: last.batch_index ?? 0 }),
        full: FETCH_SIZE,
        past: (row) => row.block_number < r.blocks.from,
    })
    return {
        pages: mapPages(transfers, (page) => transferLines(r, page)),
        columns: [
            { header: 'TxHash', value: (t) => t.transaction_hash },
            { header: 'BlockNumber', value: (t) => t.block_number },
            { header: 'UnixTimestamp', value: (t) => csvTimestamp(t.timestamp) },
            { header: 'FromAddress', value: (t) => checksum(t.from) },
            { header: 'ToAddress', value: (t) => checksum(t.to) },
            { header: 'TokenContractAddress', value: (t) => checksum(t.token) },
            { header: 'Type', value: (t) => direction(r.address, t.from, t.to) },
            { header: 'TokenDecimals', value: (t) => t.decimals },
            { header: 'TokenSymbol', value: (t) => t.symbol },
            // Base units, as Blockscout's `amount`; an ERC-721 transfer moves an id, not an amount.
            { header: 'TokensTransferred', value: (t) => t.value },
            { header: 'TransactionFee', value: (t) => t.transaction.fee.value },
            { header: 'Status', value: (t) => t.transaction.status },
            { header: 'ErrCode', value: (t) => (t.transaction.status === 'ok' ? null : t.transaction.result) },
        ],
    }
}

function logsExport(r: AddressExportRequest): RowSource<LogRow> {
    const logs = keysetPages({
        first: belowBlock(r.blocks.to),
        read: (cursor) => addressLogs(r.db, r.address, { ...cursor, topic: r.topic }),
        next: (last) => ({ block_number: last.block_number, index: last.index }),
        full: FETCH_SIZE,
        past: (row) => row.block_number < r.blocks.from,
    })
    return {
        pages: logs,
        columns: [
            { header: 'TxHash', value: (l) => l.transaction_hash },
            { header: 'Index', value: (l) => l.index },
            { header: 'BlockNumber', value: (l) => l.block_number },
            { header: 'BlockHash', value: (l) => l.block_hash },
            { header: 'ContractAddress', value: (l) => checksum(l.address) },
            { header: 'Data', value: (l) => hex(l.data) },
            { header: 'FirstTopic', value: (l) => l.topic0 },
            { header: 'SecondTopic', value: (l) => l.topic1 },
            { header: 'ThirdTopic', value: (l) => l.topic2 },
            { header: 'FourthTopic', value: (l) => l.topic3 },
        ],
    }
}

const BUILDERS: Record<AddressExportKind, (r: AddressExportRequest) => RowSource<unknown>> = {
    'transactions': transactionsExport as (r: AddressExportRequest) => RowSource<unknown>,
    'internal-transactions': internalTransactionsExport as (r: AddressExportRequest) => RowSource<unknown>,
    'token-transfers': tokenTransfersExport as (r: AddressExportRequest) => RowSource<unknown>,
    'logs': logsExport as (r: AddressExportRequest) => RowSource<unknown>,
}

/** The rows and columns of one export kind; a period that holds no block (`blocks` undefined) is the header alone. */
export function addressExport(kind: AddressExportKind, r: Omit<AddressExportRequest, 'blocks'> & { blocks: AddressExportRequest['blocks'] | undefined }): RowSource<unknown> {
    if (r.blocks) return BUILDERS[kind]({ ...r, blocks: r.blocks })
    return { columns: BUILDERS[kind]({ ...r, blocks: { from: 0, to: -1 } }).columns, pages: noRows() }
}

async function* noRows(): AsyncGenerator<never[]> {}
