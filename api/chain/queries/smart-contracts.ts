import { AbiParameter } from 'viem'
import { Db } from '../db'
import { FETCH_SIZE } from '../pagination'
import { ADDRESS_WITH_CREATION } from './addresses'

/** Reads of the indexer's `verified_contract` table and the contracts among addresses; see docs/chain-api.md. */

export interface ContractListRow {
    id: string
    name: string
    compiler_version: string
    optimization_enabled: boolean
    has_constructor_args: boolean
    verified_at: Date
    spdx: string | null
    balance: string
    transaction_count: number
}

/**
 * Columns of `verified_contract v` joined with its `address a`, as ContractListRow holds them. No
 * source is read: a submitter chooses a source's size, and a list scanning sources costs in
 * proportion (the licence is stored when the contract is verified, `v.spdx`).
 */
const CONTRACT_LIST_COLUMNS = `v.id, v.name, v.compiler_version, v.optimization_enabled,
    v.constructor_arguments IS NOT NULL AS has_constructor_args, v.verified_at,
    v.spdx, a.balance::text AS balance, a.transaction_count`

/** The verified-contracts list: a search, an order, and the cursor of that order. */
export interface ContractListQuery {
    /** matched anywhere in the name or the address */
    text?: string
    sort?: 'balance' | 'transactions_count'
    order?: 'asc' | 'desc'
    /** the cursor of the default order: the last contract's address */
    smart_contract_id?: string
    /** the cursor of a sorted list */
    hash?: string
    coin_balance?: bigint
    transactions_count?: number
}

const SORT_COLUMNS = { balance: 'a.balance', transactions_count: 'a.transaction_count' } as const

/** Whether the list is sorted as Blockscout sorts on request (both `sort` and `order` given). */
export function isSortedList(query: ContractListQuery): query is ContractListQuery & Required<Pick<ContractListQuery, 'sort' | 'order'>> {
    return !!(query.sort && query.order)
}

/**
 * ORDER BY and keyset condition (pushing its parameters) of the requested order: by the column,
 * then address ascending; else the most recently verified first, ties by address.
 */
function contractOrder(query: ContractListQuery, params: unknown[]): { orderBy: string; after: string } {
    if (isSortedList(query)) {
        const column = SORT_COLUMNS[query.sort]
        const dir = query.order === 'asc' ? 'ASC' : 'DESC'
        const value = query.sort === 'balance' ? query.coin_balance : query.transactions_count
        let after = 'TRUE'
        if (query.hash && value !== undefined) {
            params.push(String(value), query.hash)
            const [v, h] = [`$${params.length - 1}`, `$${params.length}`]
            after = `(${column} ${dir === 'ASC' ? '>' : '<'} ${v}::numeric OR (${column} = ${v}::numeric AND v.id > ${h}))`
        }
        return { orderBy: `${column} ${dir}, v.id ASC`, after }
    }
    let after = 'TRUE'
    if (query.smart_contract_id) {
        params.push(query.smart_contract_id)
        after = `(v.verified_at, v.id) < (SELECT c.verified_at, c.id FROM verified_contract c WHERE c.id = $${params.length})`
    }
    return { orderBy: 'v.verified_at DESC, v.id DESC', after }
}

/** Escapes LIKE wildcards so a user's `%` or `_` matches itself; matches anywhere, as Blockscout's search does. */
function likeAnywhere(text: string): string {
    return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/**
 * A page of the verified contracts. They are those deployed from this project's artifacts (at
 * most some thousands), so the orders need no index of their own.
 */
export async function verifiedContractList(db: Db, query: ContractListQuery): Promise<ContractListRow[]> {
    const params: unknown[] = []
    let search = 'TRUE'
    if (query.text) {
        params.push(likeAnywhere(query.text))
        search = `(v.name ILIKE $${params.length} OR v.id ILIKE $${params.length})`
    }
    const order = contractOrder(query, params)
    const { rows } = await db.query<ContractListRow>(
        `SELECT ${CONTRACT_LIST_COLUMNS}
           FROM verified_contract v JOIN address a ON a.id = v.id
          WHERE ${search} AND ${order.after}
          ORDER BY ${order.orderBy} LIMIT ${FETCH_SIZE}`,
        params
    )
    return rows
}

export interface ContractCountsRow {
    contracts: string
    new_contracts: string
    verified: string
    new_verified: string
}

/** Contracts and verified contracts, all and of the last 24 hours. Reads every address row. */
export async function contractCounts(db: Db): Promise<ContractCountsRow> {
    const { rows } = await db.query<ContractCountsRow>(
        `SELECT (SELECT count(*) FROM address WHERE is_contract)::text AS contracts,
                (SELECT count(*) FROM address a JOIN transaction t ON t.id = a.creation_transaction
                  WHERE a.is_contract AND t.timestamp > now() - interval '24 hours')::text AS new_contracts,
                (SELECT count(*) FROM verified_contract)::text AS verified,
                (SELECT count(*) FROM verified_contract WHERE verified_at > now() - interval '24 hours')::text AS new_verified`
    )
    return rows[0]
}

export interface ContractRow {
    is_contract: boolean
    creation_input: Buffer | null
    creation_status: number | null
    /** whether the contract's code is gone since a SELFDESTRUCT */
    self_destructed: boolean | null
    name: string | null
    source_name: string | null
    compiler_version: string | null
    evm_version: string | null
    optimization_enabled: boolean | null
    optimization_runs: number | null
    sources: Record<string, string> | null
    abi: { type: string; inputs?: AbiParameter[] }[] | null
    constructor_arguments: string | null
    verified_at: Date | null
    /** null for the indexer's own verifications, which are always full */
    match_type: 'full' | 'partial' | null
    compiler_settings: Record<string, unknown> | null
    spdx: string | null
}

/** An address as a contract: its creation and, when verified, its verification. */
export async function contractByAddress(db: Db, hash: string): Promise<ContractRow | undefined> {
    const { rows } = await db.query<ContractRow>(
        `SELECT a.is_contract, c.input AS creation_input, c.status AS creation_status, a.self_destructed, v.name, v.source_name,
                v.compiler_version, v.evm_version, v.optimization_enabled, v.optimization_runs, v.sources, v.abi,
                v.constructor_arguments, v.verified_at, v.match_type, v.compiler_settings, v.spdx
           ${ADDRESS_WITH_CREATION}`,
        [hash]
    )
    return rows[0]
}

export interface VerifiedRow {
    name: string
    source_name: string
    compiler_version: string
    evm_version: string
    optimization_enabled: boolean
    optimization_runs: number | null
    sources: Record<string, string>
    abi: unknown[]
    constructor_arguments: string | null
    /** the standard JSON input's settings; null on rows from before they were kept */
    compiler_settings: Record<string, unknown> | null
    match_type: 'full' | 'partial' | null
    spdx: string | null
}

export async function verifiedContract(db: Db, address: string): Promise<VerifiedRow | undefined> {
    const { rows } = await db.query<VerifiedRow>(
        `SELECT name, source_name, compiler_version, evm_version, optimization_enabled, optimization_runs, sources, abi,
                constructor_arguments, compiler_settings, match_type, spdx
           FROM verified_contract WHERE id = $1`,
        [address]
    )
    return rows[0]
}

/**
 * The verified ABIs a call to `address` is decoded with, in the order they are tried: its
 * implementation's when it is a detected proxy, then its own (docs/chain-api.md#decoded-calls).
 * One statement, whichever of them exist.
 */
export async function callAbis(db: Db, address: string): Promise<unknown[][]> {
    const { rows: [row] } = await db.query<{ implementation: unknown[] | null; own: unknown[] | null }>(
        `SELECT (SELECT i.abi FROM proxy_contract p JOIN verified_contract i ON i.id = p.implementation WHERE p.id = $1) AS implementation,
                (SELECT v.abi FROM verified_contract v WHERE v.id = $1) AS own`,
        [address]
    )
    return [row.implementation, row.own].filter((abi): abi is unknown[] => abi !== null)
}
