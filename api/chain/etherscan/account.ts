import { z } from 'zod'
import { hex } from '../format'
import { EtherscanContext } from './context'
import { EtherscanError, nothingFound, parseParams } from './envelope'
import { Module } from './module'
import { addressParam, hashParam, isAddress, paging, required, text, windowOf, Window } from './params'
import { method, TX_FIELDS, TxFields, unix } from './rows'
import { INTERNAL_TRANSACTION_COLUMNS, InternalTransactionRow } from '../render/internal-transaction'

const INVALID_ADDRESS = 'Invalid address format'
const MAX_MULTI = 20

/** Frames whose kind is a message call; the others (create, create2, selfdestruct, reward) always move or make something. */
const CALL_TYPES = ['call', 'delegatecall', 'staticcall', 'callcode']

// ---------------------------------------------------------------------------------------------
// balance, balancemulti

const BalanceQuery = z.object({
    address: text(required('address'), 'Invalid address hash'),
    // Only the indexed state exists: there is no mempool to make "pending" differ from "latest".
    tag: z.enum(['latest', 'pending'], { error: 'Error! Invalid tag: only latest and pending are supported' }).optional(),
})

function addressList(param: string): string[] {
    const list = param.split(',').map((a) => a.trim())
    if (list.length > MAX_MULTI) throw new EtherscanError(`Maximum of ${MAX_MULTI} addresses are allowed`)
    if (!list.every(isAddress)) throw new EtherscanError('Invalid address hash')
    return [...new Set(list.map((a) => a.toLowerCase()))]
}

async function balances(ctx: EtherscanContext, addresses: string[]): Promise<Map<string, string>> {
    const { rows } = await ctx.edb.query<{ id: string; balance: string }>(
        'SELECT id, balance::text FROM address WHERE id = ANY($1::text[])',
        [addresses]
    )
    return new Map(rows.map((r) => [r.id, r.balance]))
}

/** An address the indexer never saw has no coin: it holds 0, as on the chain until it is touched. */
async function balance(ctx: EtherscanContext, query: unknown) {
    const { address } = parseParams(BalanceQuery, query)
    const list = addressList(address)
    const known = await balances(ctx, list)
    if (list.length === 1) return known.get(list[0]) ?? '0'
    return list.map((a) => ({ account: a, balance: known.get(a) ?? '0', stale: false }))
}

async function balancemulti(ctx: EtherscanContext, query: unknown) {
    const { address } = parseParams(BalanceQuery, query)
    const list = addressList(address)
    const known = await balances(ctx, list)
    return list.map((a) => ({ account: a, balance: known.get(a) ?? '0', stale: false }))
}

// ---------------------------------------------------------------------------------------------
// txlist

const TxListQuery = z.object({
    address: addressParam(required('address'), INVALID_ADDRESS),
    filter_by: z.enum(['from', 'to'], { error: 'Invalid `filter_by` param' }).optional(),
    ...paging,
})

interface TxListRow extends TxFields {
    block_number: number
    timestamp: Date
}

/**
 * Each side of the address (sender, recipient, creator of a contract) is an index range scan that
 * stops after page x offset rows; the merged window is cut from those. A request therefore reads at
 * most 3 x 10,000 index entries however many transactions the address has.
 */
async function txlist(ctx: EtherscanContext, query: unknown) {
    const params = parseParams(TxListQuery, query)
    const w = windowOf(params)
    const dir = w.desc ? 'DESC' : 'ASC'
    const columns = params.filter_by === 'from' ? ['"from"'] : params.filter_by === 'to' ? ['"to"', 'created_contract'] : ['"from"', '"to"', 'created_contract']
    const branches = columns.map(
        (c) => `(SELECT block_number, index FROM transaction WHERE ${c} = $1 AND block_number BETWEEN $2 AND $3
                  ORDER BY block_number ${dir}, index ${dir} LIMIT $4)`
    )
    const [{ rows }, head] = await Promise.all([
        ctx.edb.query<TxListRow>(
            `SELECT t.block_number, t.timestamp, ${TX_FIELDS}
               FROM (SELECT block_number, index FROM (${branches.join(' UNION ')}) u
                      ORDER BY block_number ${dir}, index ${dir} OFFSET $5 LIMIT $6) page
               JOIN transaction t ON t.block_number = page.block_number AND t.index = page.index
              ORDER BY t.block_number ${dir}, t.index ${dir}`,
            [params.address, w.from, w.to, w.depth, w.offset, w.limit]
        ),
        ctx.head.get(),
    ])
    if (rows.length === 0) throw nothingFound('No transactions found')
    return rows.map((r) => ({
        blockNumber: String(r.block_number),
        timeStamp: unix(r.timestamp),
        hash: r.tx_hash,
        nonce: String(r.nonce),
        blockHash: r.tx_block_hash,
        transactionIndex: String(r.tx_index),
        from: r.tx_from,
        to: r.tx_to ?? '',
        value: r.tx_value,
        gas: r.gas_limit,
        gasPrice: r.effective_gas_price,
        isError: r.status === 1 ? '0' : '1',
        txreceipt_status: r.status === 1 ? '1' : '0',
        input: hex(r.input),
        contractAddress: r.created_contract ?? '',
        cumulativeGasUsed: r.cumulative_gas_used,
        gasUsed: r.gas_used,
        confirmations: String(Math.max(head.number - r.block_number, 0)),
        ...method(r.input),
    }))
}

// ---------------------------------------------------------------------------------------------
// txlistinternal

const InternalQuery = z.object({
    address: addressParam(required('address'), INVALID_ADDRESS).optional(),
    txhash: hashParam(required('txhash'), 'Invalid txhash format').optional(),
    include_zero_value: z.enum(['true', 'false'], { error: 'Invalid `include_zero_value` param' }).optional(),
    ...paging,
})

/**
 * Row ids start with the 10-digit zero-padded block number (as every log-derived id does), so the
 * frames of a block range are a primary-key range: the bound keeps an index scan from walking
 * the whole table when startblock/endblock or a transaction narrows it.
 */
function blockIdRange(from: number, to: number): [string, string] {
    return [String(from).padStart(10, '0'), String(to + 1).padStart(10, '0')]
}

/**
 * The top-level call (frame 0) is the transaction itself, which txlist already shows; and, as
 * Blockscout does, message calls that move no coin are left out unless include_zero_value=true,
 * so the default list is the value transfers and contract creations a wallet wants.
 */
function frameFilter(includeZero: boolean): string {
    const calls = CALL_TYPES.map((t) => `'${t}'`).join(', ')
    return `i.index > 0${includeZero ? '' : ` AND NOT (i.type IN (${calls}) AND i.value = 0)`}`
}

async function internalByTransaction(ctx: EtherscanContext, hash: string, w: Window, includeZero: boolean) {
    const { rows: txs } = await ctx.edb.query<{ block_number: number; index: number }>(
        'SELECT block_number, index FROM transaction WHERE id = $1',
        [hash]
    )
    const tx = txs[0]
    if (!tx) return []
    const [lo, hi] = blockIdRange(tx.block_number, tx.block_number)
    const dir = w.desc ? 'DESC' : 'ASC'
    const { rows } = await ctx.edb.query<InternalTransactionRow>(
        `SELECT ${INTERNAL_TRANSACTION_COLUMNS} FROM internal_transaction i
          WHERE i.id >= $1 AND i.id < $2 AND i.block_number = $3 AND i.transaction_index = $4 AND ${frameFilter(includeZero)}
          ORDER BY i.id ${dir} OFFSET $5 LIMIT $6`,
        [lo, hi, tx.block_number, tx.index, w.offset, w.limit]
    )
    return rows
}

async function internalByAddress(ctx: EtherscanContext, address: string | undefined, w: Window, includeZero: boolean) {
    const [lo, hi] = blockIdRange(w.from, w.to)
    const dir = w.desc ? 'DESC' : 'ASC'
    const where = `i.id >= $2 AND i.id < $3 AND i.block_number BETWEEN $4 AND $5 AND ${frameFilter(includeZero)}`
    const branches = address
        ? ['"from"', '"to"', 'created_contract'].map(
              (c) => `(SELECT i.id FROM internal_transaction i WHERE i.${c} = $1 AND ${where} ORDER BY i.id ${dir} LIMIT $6)`
          )
        : [`(SELECT i.id FROM internal_transaction i WHERE $1::text IS NULL AND ${where} ORDER BY i.id ${dir} LIMIT $6)`]
    const { rows } = await ctx.edb.query<InternalTransactionRow>(
        `SELECT ${INTERNAL_TRANSACTION_COLUMNS}
           FROM (SELECT id FROM (${branches.join(' UNION ')}) u ORDER BY id ${dir} OFFSET $7 LIMIT $8) page
           JOIN internal_transaction i ON i.id = page.id
          ORDER BY i.id ${dir}`,
        [address ?? null, lo, hi, w.from, w.to, w.depth, w.offset, w.limit]
    )
    return rows
}

function renderInternal(r: InternalTransactionRow) {
    const isCall = CALL_TYPES.includes(r.type)
    return {
        blockNumber: String(r.block_number),
        timeStamp: unix(r.timestamp),
        hash: r.transaction_hash,
        transactionHash: r.transaction_hash,
        from: r.from,
        to: r.to ?? '',
        value: r.value,
        contractAddress: r.created_contract ?? '',
        input: r.input ? hex(r.input) : '',
        type: isCall ? 'call' : r.type,
        callType: isCall ? r.type : '',
        gas: r.gas ?? '0',
        gasUsed: r.gas_used ?? '',
        index: String(r.index),
        traceId: r.trace_address.join('_'),
        isError: r.error ? '1' : '0',
        errCode: r.error ?? '',
    }
}

/** By address (it wins when both are given, as in Blockscout), by transaction, or every frame of a block range. */
async function txlistinternal(ctx: EtherscanContext, query: unknown) {
    const params = parseParams(InternalQuery, query)
    const w = windowOf(params)
    const includeZero = params.include_zero_value === 'true'
    const rows = params.address === undefined && params.txhash !== undefined
        ? await internalByTransaction(ctx, params.txhash, w, includeZero)
        : await internalByAddress(ctx, params.address, w, includeZero)
    if (rows.length === 0) throw nothingFound('No internal transactions found')
    return rows.map(renderInternal)
}

// ---------------------------------------------------------------------------------------------
// tokentx

const TokenTxQuery = z.object({
    address: addressParam(required('address'), INVALID_ADDRESS).optional(),
    contractaddress: addressParam(required('contractaddress'), 'Invalid contract address format').optional(),
    ...paging,
})

interface TokenTxRow extends TxFields {
    block_number: number
    block_hash: string
    timestamp: Date
    log_index: number
    token: string
    from: string
    to: string
    value: string | null
    name: string | null
    symbol: string | null
    decimals: number | null
}

/** ERC-20 transfers only (tokennfttx would list the ERC-721 ones), in (block, log index) order. */
async function tokentx(ctx: EtherscanContext, query: unknown) {
    const params = parseParams(TokenTxQuery, query)
    if (params.address === undefined && params.contractaddress === undefined) {
        throw new EtherscanError('Query parameter address or contractaddress is required')
    }
    const w = windowOf(params)
    const dir = w.desc ? 'DESC' : 'ASC'
    const order = `block_number ${dir}, log_index ${dir}`
    const where = `token_type = 'ERC-20' AND ($2::text IS NULL OR token = $2) AND block_number BETWEEN $3 AND $4`
    const branches = params.address
        ? ['"from"', '"to"'].map((c) => `(SELECT id, block_number, log_index FROM token_transfer WHERE ${c} = $1 AND ${where} ORDER BY ${order} LIMIT $5)`)
        : [`(SELECT id, block_number, log_index FROM token_transfer WHERE $1::text IS NULL AND token = $2 AND ${where} ORDER BY ${order} LIMIT $5)`]
    const [{ rows }, head] = await Promise.all([
        ctx.edb.query<TokenTxRow>(
            `SELECT tt.block_number, tt.block_hash, tt.timestamp, tt.log_index, tt.token, tt."from", tt."to", tt.value::text,
                    k.name, k.symbol, k.decimals, ${TX_FIELDS}
               FROM (SELECT id FROM (${branches.join(' UNION ')}) u ORDER BY ${order} OFFSET $6 LIMIT $7) page
               JOIN token_transfer tt ON tt.id = page.id
               JOIN transaction t ON t.id = tt.transaction_hash
               LEFT JOIN token k ON k.id = tt.token
              ORDER BY tt.block_number ${dir}, tt.log_index ${dir}`,
            [params.address ?? null, params.contractaddress ?? null, w.from, w.to, w.depth, w.offset, w.limit]
        ),
        ctx.head.get(),
    ])
    if (rows.length === 0) throw nothingFound('No token transfers found')
    return rows.map((r) => ({
        blockNumber: String(r.block_number),
        timeStamp: unix(r.timestamp),
        hash: r.tx_hash,
        nonce: String(r.nonce),
        blockHash: r.block_hash,
        from: r.from,
        contractAddress: r.token,
        to: r.to,
        value: r.value ?? '0',
        tokenName: r.name,
        tokenSymbol: r.symbol,
        tokenDecimal: r.decimals === null ? '' : String(r.decimals),
        transactionIndex: String(r.tx_index),
        gas: r.gas_limit,
        gasPrice: r.effective_gas_price,
        gasUsed: r.gas_used,
        cumulativeGasUsed: r.cumulative_gas_used,
        input: hex(r.input),
        confirmations: String(Math.max(head.number - r.block_number, 0)),
        logIndex: String(r.log_index),
        ...method(r.input),
    }))
}

// ---------------------------------------------------------------------------------------------
// tokenbalance

const TokenBalanceQuery = z.object({
    contractaddress: addressParam('Required query parameters missing: contractaddress', 'Invalid contractaddress format'),
    address: addressParam('Required query parameters missing: address', 'Invalid address format'),
})

/** The indexed balance; a holder or token the indexer never saw holds "0", as Blockscout answers. */
async function tokenbalance(ctx: EtherscanContext, query: unknown) {
    if (query && typeof query === 'object' && !('contractaddress' in query) && !('address' in query)) {
        throw new EtherscanError('Required query parameters missing: contractaddress, address')
    }
    const params = parseParams(TokenBalanceQuery, query)
    const { rows } = await ctx.edb.query<{ value: string }>(
        'SELECT value::text FROM token_balance WHERE holder = $1 AND token = $2',
        [params.address, params.contractaddress]
    )
    return rows[0]?.value ?? '0'
}

export const account: Module = { balance, balancemulti, txlist, txlistinternal, tokentx, tokenbalance }
