import { z } from 'zod'
import { hex } from '../format'
import { coinBalances } from '../queries/addresses'
import { addressFrameWindow, CALL_TYPES, InternalTransactionRow, transactionFrameWindow } from '../queries/internal-transactions'
import { tokenBalance } from '../queries/tokens'
import { addressTransactionWindow, transactionPosition } from '../queries/transactions'
import { Window } from '../queries/window'
import { EtherscanContext } from './context'
import { EtherscanError, nothingFound, parseParams } from './envelope'
import { Module, ModuleQueries } from './module'
import { addressParam, hashParam, isAddress, paging, required, text, windowOf } from './params'
import { method, unix } from './rows'
import { tokenTransferActions, TokenTxQuery } from './token-transfers'

const INVALID_ADDRESS = 'Invalid address format'
const MAX_MULTI = 20

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

/** An address the indexer never saw has no coin: it holds 0, as on the chain until it is touched. */
async function balance(ctx: EtherscanContext, query: unknown) {
    const { address } = parseParams(BalanceQuery, query)
    const list = addressList(address)
    const known = await coinBalances(ctx.edb, list)
    if (list.length === 1) return known.get(list[0]) ?? '0'
    return list.map((a) => ({ account: a, balance: known.get(a) ?? '0', stale: false }))
}

async function balancemulti(ctx: EtherscanContext, query: unknown) {
    const { address } = parseParams(BalanceQuery, query)
    const list = addressList(address)
    const known = await coinBalances(ctx.edb, list)
    return list.map((a) => ({ account: a, balance: known.get(a) ?? '0', stale: false }))
}

// ---------------------------------------------------------------------------------------------
// txlist

const TxListQuery = z.object({
    address: addressParam(required('address'), INVALID_ADDRESS),
    filter_by: z.enum(['from', 'to'], { error: 'Invalid `filter_by` param' }).optional(),
    ...paging,
})

/** At most 3 x 10,000 index entries read however many transactions the address has (see addressTransactionWindow). */
async function txlist(ctx: EtherscanContext, query: unknown) {
    const params = parseParams(TxListQuery, query)
    const w = windowOf(params)
    const [rows, head] = await Promise.all([addressTransactionWindow(ctx.edb, params.address, params.filter_by, w), ctx.head.get()])
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
        ...method(r.input, r.verified_signature),
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

async function internalByTransaction(ctx: EtherscanContext, hash: string, w: Window, includeZero: boolean) {
    const tx = await transactionPosition(ctx.edb, hash)
    return tx ? transactionFrameWindow(ctx.edb, tx, w, includeZero) : []
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
        : await addressFrameWindow(ctx.edb, params.address, w, includeZero)
    if (rows.length === 0) throw nothingFound('No internal transactions found')
    return rows.map(renderInternal)
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
    return (await tokenBalance(ctx.edb, params.address, params.contractaddress)) ?? '0'
}

export const account: Module = { balance, balancemulti, txlist, txlistinternal, ...tokenTransferActions, tokenbalance }
export const accountQueries: ModuleQueries = [BalanceQuery, TxListQuery, InternalQuery, TokenTxQuery, TokenBalanceQuery]
