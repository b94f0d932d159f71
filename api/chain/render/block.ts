import type { z } from 'zod'
import { AddressParam, RenderAddress, rowAddresses } from './address'
import { decimal, isoTimestamp, percentage } from '../format'
import { BlockRow } from '../queries/blocks'
import type { Block, BlockDetails } from '../schemas'

/** The renderer of the miners of block rows, from their addressInfo columns. */
export function blockMiners(rows: readonly BlockRow[]): RenderAddress {
    return rowAddresses(rows, [['miner', 'miner']])
}

/**
 * Blockscout's Block. The list variant leaves the counts it does not preload null; the single view
 * fills them. This chain has no uncles, withdrawals or block rewards (post-merge EVM).
 */
export function renderBlock(row: BlockRow, miner: AddressParam, view: 'list' | 'single'): z.input<typeof Block> | z.input<typeof BlockDetails> {
    const gasUsed = BigInt(row.gas_used)
    const gasLimit = BigInt(row.gas_limit)
    const fees = BigInt(row.transaction_fees)
    const burnt = BigInt(row.burnt_fees)
    const target = gasLimit / 2n
    return {
        height: row.number,
        timestamp: isoTimestamp(row.timestamp),
        transactions_count: row.transaction_count,
        internal_transactions_count: view === 'single' ? 0 : null,
        miner,
        size: row.size,
        hash: row.id,
        parent_hash: row.parent_hash,
        difficulty: decimal(row.difficulty),
        total_difficulty: decimal(row.total_difficulty),
        gas_used: row.gas_used,
        gas_limit: row.gas_limit,
        nonce: row.nonce,
        base_fee_per_gas: decimal(row.base_fee_per_gas),
        burnt_fees: row.burnt_fees,
        priority_fee: String(fees - burnt),
        transaction_fees: row.transaction_fees,
        uncles_hashes: [],
        rewards: [],
        gas_target_percentage: target === 0n ? 0 : percentage(gasUsed - target, target) ?? 0,
        gas_used_percentage: percentage(gasUsed, gasLimit) ?? 0,
        burnt_fees_percentage: percentage(burnt, fees),
        type: 'block',
        withdrawals_count: view === 'single' ? 0 : null,
        is_pending_update: false,
        // Blockscout's view leaves these out (its frontend type declares them); the frontend's
        // block page shows them when present.
        ...(view === 'single' ? { extra_data: row.extra_data ?? null, state_root: row.state_root ?? null, ...blobFields(row) } : {}),
    }
}

/**
 * Blockscout's EIP-4844 extras of the single view (its Ethereum chain type). blob_gas_price is the
 * price its blob transactions paid (null when it holds none); burnt_blob_fees is all of it (EIP-4844
 * has no tip on blob gas), 0 without blob gas.
 */
function blobFields(row: BlockRow): Pick<z.input<typeof BlockDetails>, 'blob_transactions_count' | 'blob_gas_used' | 'excess_blob_gas' | 'blob_gas_price' | 'burnt_blob_fees'> {
    const used = row.blob_gas_used == null ? null : BigInt(row.blob_gas_used)
    const price = row.blob_gas_price == null ? null : BigInt(row.blob_gas_price)
    return {
        blob_transactions_count: row.blob_transaction_count ?? 0,
        blob_gas_used: decimal(row.blob_gas_used ?? null),
        excess_blob_gas: decimal(row.excess_blob_gas ?? null),
        blob_gas_price: decimal(row.blob_gas_price ?? null),
        burnt_blob_fees: used === null ? null : used === 0n ? '0' : price === null ? null : String(used * price),
    }
}
