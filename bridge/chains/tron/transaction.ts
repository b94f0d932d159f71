import { createHash } from 'crypto'
import { utils } from 'tronweb'
import { base58Address, hexAddress, sameAccount } from './address'

/** TRON transfers as the engine stores them (the broadcast JSON, sent as the same bytes every time), checked before signing: docs/bridge/networks.md#tron */

export const TRC20_TRANSFER_SELECTOR = 'a9059cbb'

export interface TronTransaction {
    visible: boolean
    txID: string
    raw_data: {
        contract: { parameter: { value: Record<string, any>; type_url: string }; type: string; Permission_id?: number }[]
        ref_block_bytes: string
        ref_block_hash: string
        expiration: number
        timestamp?: number
        fee_limit?: number
        data?: string
    }
    raw_data_hex: string
    signature?: string[]
}

export interface StoredTransfer {
    tx: TronTransaction & { signature: string[] }
    txID: string
    /** base58 sender */
    owner: string
    /** ms; java-tron refuses the transaction once the head block's time reaches it */
    expiration: bigint
}

export type TransferIntent =
    | { kind: 'trx'; owner: string; to: string; amount: bigint }
    | { kind: 'trc20'; owner: string; contract: string; to: string; amount: bigint; feeLimit: bigint }

export function txIdOf(rawDataHex: string): string {
    return createHash('sha256').update(Buffer.from(rawDataHex, 'hex')).digest('hex')
}

/** The data of transfer(to, amount). */
export function trc20TransferData(to: string, amount: bigint): string {
    return TRC20_TRANSFER_SELECTOR + hexAddress(to).slice(2).padStart(64, '0') + amount.toString(16).padStart(64, '0')
}

function fail(message: string): never {
    throw new Error(`TRON: refusing to sign: ${message}`)
}

/** Throws unless `tx` is exactly the intended transfer, self-consistent, and unsigned. */
export function checkBuilt(tx: TronTransaction, intent: TransferIntent): void {
    if (!tx || typeof tx.txID !== 'string' || typeof tx.raw_data_hex !== 'string' || !tx.raw_data) fail('the node returned no transaction')
    if (tx.signature && tx.signature.length > 0) fail('the transaction is already signed')
    if (!/^([0-9a-f]{2})+$/i.test(tx.raw_data_hex) || txIdOf(tx.raw_data_hex) !== tx.txID.toLowerCase()) fail('txID is not sha256(raw_data_hex)')
    if (!utils.transaction.txCheck(tx)) fail('raw_data and raw_data_hex disagree')
    const contracts = tx.raw_data.contract
    if (!Array.isArray(contracts) || contracts.length !== 1) fail('not a single-contract transaction')
    if (tx.raw_data.data) fail('unexpected memo')
    const { type, parameter, Permission_id } = contracts[0]
    if (Permission_id) fail('not signed by the owner permission')
    const value = parameter?.value ?? {}
    if (!sameAccount(String(value.owner_address), intent.owner)) fail('owner_address is not the sender')
    if (intent.kind === 'trx') {
        if (type !== 'TransferContract') fail(`${type} is not a TRX transfer`)
        if (!sameAccount(String(value.to_address), intent.to)) fail('to_address is not the recipient')
        if (typeof value.amount !== 'number' || BigInt(value.amount) !== intent.amount) fail('amount differs')
        return
    }
    if (type !== 'TriggerSmartContract') fail(`${type} is not a contract call`)
    if (!sameAccount(String(value.contract_address), intent.contract)) fail('contract_address is not the token')
    if (value.call_value || value.call_token_value || value.token_id) fail('the call carries TRX or a TRC-10 token')
    if (String(value.data).toLowerCase() !== trc20TransferData(intent.to, intent.amount)) fail('the call is not transfer(recipient, amount)')
    if (tx.raw_data.fee_limit === undefined || BigInt(tx.raw_data.fee_limit) !== intent.feeLimit) fail('fee_limit differs')
}

export function encodeStored(tx: TronTransaction, signature: string): string {
    return JSON.stringify({ visible: tx.visible, txID: tx.txID, raw_data: tx.raw_data, raw_data_hex: tx.raw_data_hex, signature: [signature] })
}

export function decodeStored(raw: string): StoredTransfer {
    let tx: StoredTransfer['tx']
    try {
        tx = JSON.parse(raw)
    } catch {
        throw new Error('not a stored TRON transfer (not JSON)')
    }
    if (!tx || typeof tx !== 'object' || typeof tx.txID !== 'string' || typeof tx.raw_data_hex !== 'string' || !tx.raw_data) {
        throw new Error('not a stored TRON transfer')
    }
    if (!Array.isArray(tx.signature) || tx.signature.length !== 1 || !/^[0-9a-f]{130}$/i.test(tx.signature[0])) {
        throw new Error('stored TRON transfer is not signed')
    }
    if (!/^([0-9a-f]{2})+$/i.test(tx.raw_data_hex) || txIdOf(tx.raw_data_hex) !== tx.txID.toLowerCase()) throw new Error('stored TRON transfer: txID is not sha256(raw_data_hex)')
    const owner = tx.raw_data.contract?.[0]?.parameter?.value?.owner_address
    if (typeof owner !== 'string') throw new Error('stored TRON transfer has no owner')
    return { tx, txID: tx.txID.toLowerCase(), owner: base58Address(owner), expiration: BigInt(tx.raw_data.expiration) }
}
