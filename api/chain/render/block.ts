import { AddressParam, addressInfo, RenderAddress, rowAddresses } from './address'
import { decimal, isoTimestamp, percentage } from '../format'

export interface BlockRow {
    id: string
    number: number
    parent_hash: string
    timestamp: Date
    miner: string
    gas_used: string
    gas_limit: string
    base_fee_per_gas: string | null
    size: number
    difficulty: string
    total_difficulty: string | null
    nonce: string
    transaction_count: number
    transaction_fees: string
    burnt_fees: string
    miner_contract: boolean | null
    miner_name: string | null
    /** Read for the single view only (BLOCK_SINGLE_COLUMNS). */
    extra_data?: string
    /** null for blocks indexed before the indexer kept it. */
    state_root?: string | null
}

/** What a list's keyset query returns of each block: its rendered item's identity and its position. */
export interface BlockKey {
    id: string
    number: number
}

export const BLOCK_KEY_COLUMNS = 'b.id, b.number'

export const BLOCK_COLUMNS = `b.id, b.number, b.parent_hash, b.timestamp, b.miner, b.gas_used, b.gas_limit, b.base_fee_per_gas,
    b.size, b.difficulty, b.total_difficulty, b.nonce, b.transaction_count, b.transaction_fees, b.burnt_fees,
    ${addressInfo('b.miner', 'miner')}`

/** The single view also shows the header fields no list needs. */
export const BLOCK_SINGLE_COLUMNS = `${BLOCK_COLUMNS}, b.extra_data, b.state_root`

/** The renderer of the miners of block rows, from their addressInfo columns. */
export function blockMiners(rows: readonly BlockRow[]): RenderAddress {
    return rowAddresses(rows, [['miner', 'miner']])
}

/**
 * Blockscout's Block. The list variant leaves the counts it does not preload null; the single view
 * fills them. This chain has no uncles, withdrawals or block rewards (post-merge EVM).
 */
export function renderBlock(row: BlockRow, miner: AddressParam, view: 'list' | 'single') {
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
