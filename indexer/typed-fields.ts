import * as sdkMapping from '@subsquid/evm-processor/lib/ds-rpc/mapping'
import type { StoredAuthorization } from '../common/evm/authorization'

/**
 * The fields of typed transactions (EIP-2930, EIP-4844, EIP-7702) and of Cancun headers that
 * Subsquid's RPC mapping (@subsquid/evm-processor 1.27.3) drops: its validator keeps only the fields
 * it knows, and knows no access list, blob field or blob header. Its authorization list it does
 * know, but as safe integers: an authorization signed with nonce 2^64 - 1 (valid to include, only
 * not applied) would fail the block's validation and stop the indexer, so that is read raw here too.
 * docs/indexer.md#transaction-types
 */

/** An authorization as stored: its authority and status are filled in by authorities.ts. */
export type Authorization = StoredAuthorization

export interface TypedTransactionFields {
    /** null for a legacy transaction without EIP-155 replay protection */
    chainId: bigint | null
    accessList: { address: string; storageKeys: string[] }[] | null
    maxFeePerBlobGas: bigint | null
    blobVersionedHashes: string[] | null
    blobGasUsed: bigint | null
    blobGasPrice: bigint | null
    authorizationList: Authorization[] | null
}

export interface BlobHeaderFields {
    blobGasUsed: bigint | null
    excessBlobGas: bigint | null
}

const NO_FIELDS: TypedTransactionFields = {
    chainId: null, accessList: null, maxFeePerBlobGas: null, blobVersionedHashes: null,
    blobGasUsed: null, blobGasPrice: null, authorizationList: null,
}

// Keyed by the SDK's own transaction and header objects, which reach the handlers unchanged.
const transactionFields = new WeakMap<object, TypedTransactionFields>()
const headerFields = new WeakMap<object, BlobHeaderFields>()

export function typedFieldsOf(tx: object): TypedTransactionFields {
    return transactionFields.get(tx) ?? NO_FIELDS
}

export function blobFieldsOf(header: object): BlobHeaderFields {
    return headerFields.get(header) ?? { blobGasUsed: null, excessBlobGas: null }
}

type Raw = Record<string, any>

const quantity = (value: unknown): bigint | null => (typeof value === 'string' || typeof value === 'number' ? BigInt(value) : null)
const lower = (value: unknown): string => String(value).toLowerCase()

/** The fields of one node transaction (and its receipt), as the tables keep them. */
export function typedFields(tx: Raw, receipt: Raw | undefined): TypedTransactionFields {
    const type = Number(tx.type ?? 0)
    return {
        chainId: quantity(tx.chainId) ?? legacyChainId(quantity(tx.v)),
        accessList: Array.isArray(tx.accessList)
            ? tx.accessList.map((e: Raw) => ({ address: lower(e.address), storageKeys: (e.storageKeys ?? []).map(lower) }))
            : type === 0 ? null : [],
        maxFeePerBlobGas: quantity(tx.maxFeePerBlobGas),
        blobVersionedHashes: Array.isArray(tx.blobVersionedHashes) ? tx.blobVersionedHashes.map(lower) : null,
        blobGasUsed: type === 3 ? quantity(receipt?.blobGasUsed) : null,
        blobGasPrice: type === 3 ? quantity(receipt?.blobGasPrice) : null,
        authorizationList: Array.isArray(tx.authorizationList)
            ? tx.authorizationList.map((a: Raw) => ({
                chainId: BigInt(a.chainId).toString(),
                address: lower(a.address),
                nonce: BigInt(a.nonce).toString(),
                yParity: Number(a.yParity ?? a.v),
                r: lower(a.r),
                s: lower(a.s),
                authority: null,
                status: null,
            }))
            : null,
    }
}

/** EIP-155: v = chain id × 2 + 35 or 36; 27 and 28 sign for every chain. */
function legacyChainId(v: bigint | null): bigint | null {
    return v !== null && v >= 35n ? (v - 35n) / 2n : null
}

let installed = false

/**
 * Wraps the SDK's mapBlock, which its data source calls (through the module's exports) for every
 * block it hands over, cold and hot, so the raw block's extra fields are kept beside the mapped one.
 * Idempotent. A unit test holds the SDK's client to calling it that way.
 */
export function captureTypedFields(): void {
    if (installed) return
    installed = true
    const mapping = sdkMapping as { mapBlock: (raw: Raw, req: unknown) => any }
    const mapBlock = mapping.mapBlock
    mapping.mapBlock = (raw: Raw, req: unknown) => {
        const block = mapBlock(raw, req)
        const source = raw.block as Raw
        headerFields.set(block.header, { blobGasUsed: quantity(source.blobGasUsed), excessBlobGas: quantity(source.excessBlobGas) })
        const receipts = new Map<string, Raw>((raw.receipts as Raw[] | undefined ?? []).map((r) => [r.transactionHash, r]))
        const rawTxs = (source.transactions as (Raw | string)[]).filter((t): t is Raw => typeof t === 'object')
        const byHash = new Map(rawTxs.map((t) => [t.hash, t]))
        for (const tx of block.transactions) {
            const rawTx = byHash.get(tx.hash)
            if (rawTx) transactionFields.set(tx, typedFields(rawTx, receipts.get(tx.hash)))
        }
        return block
    }
}
