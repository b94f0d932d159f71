import type { z } from 'zod'
import { addressParam } from './address'
import { isoTimestamp } from '../format'
import { ContractListRow } from '../queries/smart-contracts'
import type { SmartContractListItem } from '../schemas'

/**
 * SPDX identifiers → Blockscout's license_type enum (the licenses its verification form offers).
 * `-only`/`-or-later` variants are the same license there.
 */
const LICENSES: Record<string, string> = {
    'unlicense': 'unlicense',
    'mit': 'mit',
    'gpl-2.0': 'gnu_gpl_v2',
    'gpl-3.0': 'gnu_gpl_v3',
    'lgpl-2.1': 'gnu_lgpl_v2_1',
    'lgpl-3.0': 'gnu_lgpl_v3',
    'bsd-2-clause': 'bsd_2_clause',
    'bsd-3-clause': 'bsd_3_clause',
    'mpl-2.0': 'mpl_2_0',
    'osl-3.0': 'osl_3_0',
    'apache-2.0': 'apache_2_0',
    'agpl-3.0': 'gnu_agpl_v3',
    'busl-1.1': 'bsl_1_1',
}

/**
 * Blockscout's license_type of a declared SPDX identifier: `none` (its default) for no declaration,
 * UNLICENSED (not open source) or a license outside its enum.
 */
export function licenseType(spdx: string | null | undefined): string {
    if (!spdx) return 'none'
    const id = spdx.toLowerCase().replace(/-(only|or-later)$/, '')
    return LICENSES[id] ?? 'none'
}

/** How a contract's creation ended, as its address and smart-contract pages show it. */
export type CreationStatus = 'success' | 'failed' | 'selfdestructed'

/**
 * Blockscout's creation_status of a contract: failed when its creating transaction failed,
 * selfdestructed when it was created and its code is gone since (the indexer reads the code after
 * every selfdestruct frame: docs/indexer.md#self-destructed-contracts), success otherwise.
 */
export function creationStatus(row: { creation_status: number | null; self_destructed: boolean | null }): CreationStatus {
    if (row.creation_status === 0) return 'failed'
    return row.self_destructed ? 'selfdestructed' : 'success'
}

/** An item of Blockscout's verified-contracts list. Every verified contract here is compiled Solidity. */
export function renderContractListItem(row: ContractListRow): z.input<typeof SmartContractListItem> {
    return {
        address: addressParam(row.id, { isContract: true, name: row.name, isVerified: true }),
        compiler_version: row.compiler_version,
        optimization_enabled: row.optimization_enabled,
        transactions_count: row.transaction_count,
        language: 'solidity',
        verified_at: isoTimestamp(row.verified_at),
        // No price feed.
        market_cap: null,
        has_constructor_args: row.has_constructor_args,
        coin_balance: row.balance,
        license_type: licenseType(row.spdx),
        certified: false,
        reputation: 'ok',
    }
}
