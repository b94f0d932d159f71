import { Hex } from 'viem'
import type { z } from 'zod'
import { RenderAddress, rowAddresses, shownAddresses } from './address'
import { shownCallsKey, shownCallsState, shownTokenKey, shownTokenState } from '../queries/rendering-changes'
import { calledMethod, decodeInput, decodeRevertReason } from './decode'
import { checksum, decimal, hex, isoTimestamp } from '../format'
import type { StoredAuthorization } from '../../../common/evm/authorization'
import { TransactionRow } from '../queries/transactions'
import type { SignedAuthorization, TokenTransfer, Transaction, TransactionDetails } from '../schemas'

const ADDRESS_COLUMNS = [['from', 'from'], ['to', 'to'], ['created_contract', 'created_contract']] as const

/** The renderer of the addresses of transaction rows, from their addressInfo columns. */
export function transactionAddresses(rows: readonly TransactionRow[]): RenderAddress {
    return rowAddresses(rows, ADDRESS_COLUMNS)
}

/**
 * What a transaction's list item shows of other rows: its addresses, whether the contract it
 * created is a token (token_creation), and the implementation of the contract it calls, whose
 * verified ABI may name its method (the contract's own verification changes its name, which its
 * address's state already records).
 */
export function transactionShown(row: TransactionRow): [string, string][] {
    const shown = shownAddresses(row, ADDRESS_COLUMNS)
    if (row.created_contract !== null) shown.push([shownTokenKey(row.created_contract), shownTokenState(row.creates_token)])
    if (row.to !== null) shown.push([shownCallsKey(row.to), shownCallsState(row.to_implementation, row.to_implementation_name)])
    return shown
}

/**
 * Blockscout's Transaction. Lists leave token_transfers and token_transfers_overflow null; the
 * single view passes the first ten transfers in. Pending transactions are never shown: this API
 * serves what the indexer has ingested, which is mined.
 */
export function renderTransaction(
    row: TransactionRow,
    address: RenderAddress,
    head: number,
    single?: {
        tokenTransfers: z.input<typeof TokenTransfer>[]
        overflow: boolean
        /** the called contract's verified ABIs (a proxy's implementation's first), which decode the input before the ABIs known; `method` comes from the row's verified_signature, as in lists */
        inputAbis?: readonly (readonly unknown[])[]
        /** the verified ABIs of the contracts that may have raised a custom error, most likely first (queries/revert-reasons.ts) */
        revertAbis?: readonly (readonly unknown[])[]
    },
): z.input<typeof Transaction> | z.input<typeof TransactionDetails> {
    const to = address(row.to)
    const baseFee = row.base_fee_per_gas === null ? null : BigInt(row.base_fee_per_gas)
    const gasUsed = BigInt(row.gas_used)
    const effective = BigInt(row.effective_gas_price)
    const input = hex(row.input) as Hex
    const decoded = decodeInput(input, single?.inputAbis)
    const selector = row.method_id
    const method = selector ? calledMethod(selector, row.verified_signature) ?? (to?.is_contract ? selector : null) : null
    const types: string[] = []
    if (BigInt(row.value) > 0n) types.push('coin_transfer')
    if (row.to === null) types.push('contract_creation')
    else if (to?.is_contract) types.push('contract_call')
    if (row.token_transfer_count > 0) types.push('token_transfer')
    if (row.creates_token) types.push('token_creation')
    if (row.type === 3) types.push('blob_transaction')
    if (row.type === 4) types.push('set_code_transaction')
    const ok = row.status === 1
    // Blockscout's result is the top-level frame's error as traced; without call trees, the text of a revert.
    const result = ok ? 'success' : row.error ?? 'execution reverted'
    return {
        hash: row.id,
        result,
        status: ok ? 'ok' : 'error',
        block_number: row.block_number,
        timestamp: isoTimestamp(row.timestamp),
        from: address(row.from),
        to,
        created_contract: address(row.created_contract),
        confirmations: Math.max(head - row.block_number + 1, 0),
        confirmation_duration: [],
        value: row.value,
        fee: { type: 'actual', value: row.fee },
        gas_price: row.effective_gas_price,
        type: row.type,
        gas_used: row.gas_used,
        gas_limit: row.gas_limit,
        max_fee_per_gas: decimal(row.max_fee_per_gas),
        max_priority_fee_per_gas: decimal(row.max_priority_fee_per_gas),
        base_fee_per_gas: decimal(row.base_fee_per_gas),
        priority_fee: baseFee === null ? null : String((effective - baseFee) * gasUsed),
        transaction_burnt_fee: baseFee === null ? null : String(baseFee * gasUsed),
        nonce: row.nonce,
        position: row.index,
        revert_reason: revertReason(row, result, single?.revertAbis),
        raw_input: input,
        decoded_input: decoded,
        token_transfers: single ? single.tokenTransfers : null,
        token_transfers_overflow: single ? single.overflow : null,
        exchange_rate: null,
        historic_exchange_rate: null,
        method,
        transaction_types: types,
        transaction_tag: null,
        has_error_in_internal_transactions: row.has_error_in_internal_transactions,
        authorization_list: (row.authorization_list ?? []).map(renderAuthorization),
        is_pending_update: false,
        fhe_operations_count: 0,
        ...blobFields(row),
    }
}

/**
 * Blockscout's revert_reason: only when the result says the transaction reverted (not for out of
 * gas) and the indexer holds its revert data. Lists send the data undecoded (`single` undefined),
 * as Blockscout's do; the single view decodes Error, Panic and custom errors of `abis`.
 */
function revertReason(row: TransactionRow, result: string, abis: readonly (readonly unknown[])[] | undefined) {
    if (row.revert_data === null || !/reverted/i.test(result)) return null
    const data = hex(row.revert_data) as Hex
    return (abis && decodeRevertReason(data, abis)) || { raw: data }
}

/**
 * Blockscout's EIP-4844 fields (its Ethereum chain type), sent for blob transactions only, as it does.
 * burnt_blob_fee: the whole blob fee is burnt (EIP-4844 has no tip on blob gas).
 */
function blobFields(row: TransactionRow): Partial<z.input<typeof Transaction>> {
    if (row.type !== 3) return {}
    const used = row.blob_gas_used === null ? null : BigInt(row.blob_gas_used)
    const price = row.blob_gas_price === null ? null : BigInt(row.blob_gas_price)
    return {
        max_fee_per_blob_gas: decimal(row.max_fee_per_blob_gas),
        blob_versioned_hashes: row.blob_versioned_hashes ?? [],
        blob_gas_used: decimal(row.blob_gas_used),
        blob_gas_price: decimal(row.blob_gas_price),
        burnt_blob_fee: used === null || price === null ? null : String(used * price),
    }
}

/** A signature's r or s as its 32 bytes: the node sends them as quantities, without leading zeros (1 signature in 8 has one). */
function word(quantity: string): string {
    return `0x${quantity.slice(2).padStart(64, '0')}`
}

/**
 * Blockscout's SignedAuthorization: v is the signature's y parity. chain_id is a number, as Blockscout
 * sends it; a chain id past 2^53 (only an invalid authorization carries one) loses precision there.
 */
function renderAuthorization(auth: StoredAuthorization): z.input<typeof SignedAuthorization> {
    return {
        address_hash: checksum(auth.address),
        chain_id: Number(auth.chainId),
        nonce: auth.nonce,
        r: word(auth.r),
        s: word(auth.s),
        v: auth.yParity,
        authority: auth.authority === null ? null : checksum(auth.authority),
        status: auth.status,
    }
}
