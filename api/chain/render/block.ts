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
        ...(view === 'single' ? { extra_data: row.extra_data ?? null, state_root: row.state_root ?? null } : {}),
    }
}
