import { Db } from '../db'
import { FETCH_SIZE } from '../pagination'

/** Reads of the indexer's `address` table (balances, counters, contract flags); see docs/chain-api.md. */

/**
 * SQL columns `<as>_contract` and `<as>_name` that carry what the AddressParam of `column` needs,
 * for list queries that render addresses without a second round trip to the database (on a small
 * machine the round trip, not the lookup, is the cost). `<as>_contract` is null for an address the
 * indexer has not seen.
 */
export function addressInfo(column: string, as: string): string {
    return `(SELECT a.is_contract FROM address a WHERE a.id = ${column}) AS ${as}_contract,
            (SELECT v.name FROM verified_contract v WHERE v.id = ${column}) AS ${as}_name`
}

/** `address a` $1 with its creation transaction `c` and its verification `v` (either may be missing). */
export const ADDRESS_WITH_CREATION = `FROM address a
           LEFT JOIN transaction c ON c.id = a.creation_transaction
           LEFT JOIN verified_contract v ON v.id = a.id
          WHERE a.id = $1`

export interface AddressRow {
    id: string
    balance: string
    balance_block: number
    is_contract: boolean
    transaction_count: number
    token_transfer_count: number
    gas_used: string
    log_count: number
    creator: string | null
    creation_transaction: string | null
    verified_name: string | null
    creation_status: number | null
    /** whether the contract's code is gone since a SELFDESTRUCT (null: never seen destroyed nor created) */
    self_destructed: boolean | null
    /** EIP-7702: the address an EOA's code delegates to, and that contract's verified name */
    delegated_to: string | null
    delegated_to_name: string | null
}

export async function addressById(db: Db, hash: string): Promise<AddressRow | undefined> {
    const { rows } = await db.query<AddressRow>(
        `SELECT a.id, a.balance, a.balance_block, a.is_contract, a.transaction_count, a.token_transfer_count, a.gas_used,
                a.log_count, a.creator, a.creation_transaction, v.name AS verified_name, c.status AS creation_status,
                a.self_destructed, a.delegated_to, (SELECT d.name FROM verified_contract d WHERE d.id = a.delegated_to) AS delegated_to_name
           ${ADDRESS_WITH_CREATION}`,
        [hash]
    )
    return rows[0]
}

/** Whether the address holds any token and whether it mined any block. */
export async function addressFlags(db: Db, hash: string): Promise<{ has_tokens: boolean; has_validated_blocks: boolean }> {
    const { rows } = await db.query<{ has_tokens: boolean; has_validated_blocks: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM token_balance WHERE holder = $1 AND value > 0) AS has_tokens,
                EXISTS (SELECT 1 FROM block WHERE miner = $1) AS has_validated_blocks`,
        [hash]
    )
    return rows[0]
}

/** Token balances held and blocks mined, each counted up to 51 (the tabs show "50+"). */
export async function addressTabCounts(db: Db, hash: string): Promise<{ balances: number; validations: number }> {
    const { rows } = await db.query<{ balances: number; validations: number }>(
        `SELECT (SELECT count(*) FROM (SELECT 1 FROM token_balance WHERE holder = $1 AND value > 0 LIMIT 51) x)::int AS balances,
                (SELECT count(*) FROM (SELECT 1 FROM block WHERE miner = $1 LIMIT 51) y)::int AS validations`,
        [hash]
    )
    return rows[0]
}

export interface TopAccountRow {
    id: string
    balance: string
    transaction_count: number
    is_contract: boolean
    verified_name: string | null
}

/**
 * Every address holding coin, by balance descending, then address ascending. `balance <= $1`
 * bounds the scan of the (balance DESC, id) index at the cursor; the rest of the condition only
 * drops the cursor's ties already shown.
 */
export async function topAccounts(db: Db, after?: { balance: bigint; hash: string }): Promise<TopAccountRow[]> {
    const params: unknown[] = []
    let cursor = ''
    if (after) {
        params.push(String(after.balance), after.hash)
        cursor = 'AND a.balance <= $1::numeric AND (a.balance < $1::numeric OR a.id > $2)'
    }
    const { rows } = await db.query<TopAccountRow>(
        `SELECT a.id, a.balance::text AS balance, a.transaction_count, a.is_contract, v.name AS verified_name
           FROM address a LEFT JOIN verified_contract v ON v.id = a.id
          WHERE a.balance > 0 ${cursor}
          ORDER BY a.balance DESC, a.id ASC LIMIT ${FETCH_SIZE}`,
        params
    )
    return rows
}

/** The indexed balances of the addresses the indexer knows, by address. */
export async function coinBalances(db: Db, addresses: string[]): Promise<Map<string, string>> {
    const { rows } = await db.query<{ id: string; balance: string }>(
        'SELECT id, balance::text FROM address WHERE id = ANY($1::text[])',
        [addresses]
    )
    return new Map(rows.map((r) => [r.id, r.balance]))
}

export interface BalanceUpdateRow {
    id: string
    balance: string
    balance_block: number
}

/** The addresses among `ids` whose balance last changed in blocks from..to. */
export async function balanceUpdates(db: Db, ids: string[], from: number, to: number): Promise<BalanceUpdateRow[]> {
    const { rows } = await db.query<BalanceUpdateRow>(
        'SELECT id, balance, balance_block FROM address WHERE id = ANY($1::text[]) AND balance_block BETWEEN $2 AND $3',
        [ids, from, to]
    )
    return rows
}
