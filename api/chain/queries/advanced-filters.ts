import { batchTransferId, internalTransactionId, logId } from '../../../db/row-ids'
import { Db } from '../db'

/**
 * Blockscout's advanced filter (docs/chain-api.md#advanced-filter): transactions, token transfers and
 * internal transactions in one list, newest first, filtered. Each of the three sources is read on
 * its own as a keyset scan that stops after `limit + 1` rows, and the three are merged: a page costs
 * what the first does at any depth. A source reads, in this order of preference:
 * - with address sets to include: one index range per address (the side indexes of each table);
 * - a token transfer with tokens to include: one range per token (its (token, block, index) index);
 * - a transaction with methods: one range per method (`transaction_method`);
 * - otherwise the table's chain order (its primary key or (block_number, index)) backwards from the
 *   cursor, every other filter a condition on that walk, bounded by the statement timeout (503).
 * The list and the CSV export read pages through advancedFilterPage.
 */

export const TRANSACTION_KINDS = ['coin_transfer', 'contract_interaction', 'contract_creation'] as const
export type TransactionKind = (typeof TRANSACTION_KINDS)[number]

export interface AddressSet {
    include: readonly string[]
    exclude: readonly string[]
}

export interface AdvancedFilter {
    /** transaction and internal transaction kinds kept; null: every kind; []: none (their sources are not read) */
    kinds: readonly TransactionKind[] | null
    /** token standards kept; null: every standard; []: none */
    tokenTypes: readonly string[] | null
    /** 0x-prefixed 4-byte selectors, lowercase */
    methods: readonly string[] | null
    age: { from: Date | null; to: Date | null }
    from: AddressSet
    to: AddressSet
    relation: 'or' | 'and'
    /** token contracts; `native` (the coin: transactions and internal transactions) apart */
    tokens: AddressSet & { includeNative: boolean; excludeNative: boolean }
    /** whole units of the coin or of the token (its decimals), inclusive; plain decimals */
    amount: { from: string | null; to: string | null }
}

/** The position of the last item shown (Blockscout's next_page_params); exactly one of the three indexes or none (a transaction). */
export interface AdvancedFilterCursor {
    block_number: number
    transaction_index: number
    internal_transaction_index: number | null
    token_transfer_index: number | null
    token_transfer_batch_index: number | null
}

interface ItemBase {
    hash: string
    block_number: number
    transaction_index: number
    timestamp: Date
    /** the transaction's status: 1 success, 0 reverted */
    status: number
    from: string
    to: string | null
    created_contract: string | null
    /** the transaction's selector; a frame's own; null without one */
    method_id: string | null
    /** the contract whose code method_id calls: the transaction's `to` (a transfer's too), a frame's own `to` */
    callee: string | null
    fee: string
}

export type AdvancedFilterRow =
    | (ItemBase & { kind: 'transaction'; value: string })
    | (ItemBase & { kind: 'internal_transaction'; value: string; frame_index: number })
    | (ItemBase & {
        kind: 'token_transfer'; log_index: number; batch_index: number | null; token: string; token_type: string
        amount: string | null; token_id: string | null
    })

/** The order of the list, newest first: by transaction, then its own row, its token transfers (last first), its frames (last first). */
function sortKey(r: AdvancedFilterRow): number[] {
    const [rank, a, b] = r.kind === 'transaction' ? [2, 0, 0] : r.kind === 'token_transfer' ? [1, r.log_index, r.batch_index ?? -1] : [0, r.frame_index, 0]
    return [r.block_number, r.transaction_index, rank, a, b]
}

function newestFirst(x: AdvancedFilterRow, y: AdvancedFilterRow): number {
    const a = sortKey(x)
    const b = sortKey(y)
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return b[i] - a[i]
    return 0
}

/** The cursor of a row: what next_page_params holds of the last item shown. */
export function advancedFilterCursor(r: AdvancedFilterRow): AdvancedFilterCursor {
    return {
        block_number: r.block_number,
        transaction_index: r.transaction_index,
        internal_transaction_index: r.kind === 'internal_transaction' ? r.frame_index : null,
        token_transfer_index: r.kind === 'token_transfer' ? r.log_index : null,
        token_transfer_batch_index: r.kind === 'token_transfer' ? r.batch_index : null,
    }
}

/** The last block number a cursor or a range can name (a Postgres integer). */
const MAX_BLOCK = 2_147_483_647

/** Parameters of one statement, numbered as they are added. */
class Params {
    readonly values: unknown[] = []
    add(value: unknown): string {
        this.values.push(value)
        return `$${this.values.length}`
    }
}

/** The blocks an age range covers (block timestamps only grow): null bounds are open; `empty` when no block is in it. */
async function blockRange(db: Db, age: AdvancedFilter['age']): Promise<{ lo: number | null; hi: number | null; empty: boolean }> {
    const [lo, hi] = await Promise.all([
        age.from && db.query<{ number: number }>('SELECT number FROM block WHERE timestamp >= $1 ORDER BY timestamp, number LIMIT 1', [age.from]),
        age.to && db.query<{ number: number }>('SELECT number FROM block WHERE timestamp <= $1 ORDER BY timestamp DESC, number DESC LIMIT 1', [age.to]),
    ])
    const loNumber = lo ? lo.rows[0]?.number ?? null : null
    const hiNumber = hi ? hi.rows[0]?.number ?? null : null
    const empty = (lo !== null && loNumber === null) || (hi !== null && hiNumber === null) || (loNumber !== null && hiNumber !== null && loNumber > hiNumber)
    return { lo: loNumber, hi: hiNumber, empty }
}

/** What every source shares: the filter, the block range, the cursor and the page size. */
interface Scan {
    filter: AdvancedFilter
    /** the first and last block of the age range, the chain's ends without one */
    lo: number
    hi: number
    cursor: AdvancedFilterCursor | null
    limit: number
}

/*
 * Every filter is a condition whose parameters are null (or a flag false) when the filter is not
 * given, so a source's statement text varies only with how it reads (its access path and the
 * cursor's kind): the API prepares each text once per connection (db.ts), and a text per
 * combination of filters would be thousands.
 */

/** One side's condition: its addresses to include (less those excluded), else not those excluded; true when the side is not filtered. */
function sideCondition(p: Params, column: string, set: AddressSet): string {
    const include = set.include.length > 0 ? set.include.filter((a) => !set.exclude.includes(a)) : null
    const exclude = set.include.length === 0 && set.exclude.length > 0 ? set.exclude : null
    const [i, e] = [p.add(include), p.add(exclude)]
    // A creation has no `to`: excluding recipients keeps it.
    return `(${i}::text[] IS NULL OR ${column} = ANY(${i}::text[])) AND (${e}::text[] IS NULL OR ${column} IS NULL OR ${column} <> ALL(${e}::text[]))`
}

const given = (set: AddressSet) => set.include.length > 0 || set.exclude.length > 0

/**
 * The from/to condition under address_relation, on the rows a scan finds. Rows found by an address
 * probe (addressProbes) already hold their side's condition, which is left out, so that the planner
 * estimates each probe's range by the address alone: a probe of one side leaves the other's (`and`),
 * a probe of both sides (`or`) nothing.
 */
function addressCondition(p: Params, f: AdvancedFilter, fromColumn: string, toColumn: string, probed: readonly ('from' | 'to')[]): string {
    const from = probed.includes('from') ? 'TRUE' : `(${sideCondition(p, fromColumn, f.from)})`
    const to = probed.includes('to') ? 'TRUE' : `(${sideCondition(p, toColumn, f.to)})`
    if (probed.length > 0) return `${from} AND ${to}`
    const either = f.relation === 'or' && given(f.from) && given(f.to)
    return `(CASE WHEN ${p.add(either)}::boolean THEN ${from} OR ${to} ELSE ${from} AND ${to} END)`
}

/**
 * The index ranges an address filter reads, each a (column, addresses) pair whose rows are unioned:
 * the side(s) with addresses to include that every matching row must have. None when a matching
 * row may be anywhere (an exclusion alone, or `or` with an exclusion).
 */
function addressProbes(f: AdvancedFilter): { side: 'from' | 'to'; addresses: readonly string[] }[] {
    const include = (set: AddressSet) => set.include.filter((a) => !set.exclude.includes(a))
    const fromIn = f.from.include.length > 0
    const toIn = f.to.include.length > 0
    if (given(f.from) && given(f.to) && f.relation === 'or') {
        return fromIn && toIn ? [{ side: 'from', addresses: include(f.from) }, { side: 'to', addresses: include(f.to) }] : []
    }
    if (fromIn) return [{ side: 'from', addresses: include(f.from) }]
    if (toIn) return [{ side: 'to', addresses: include(f.to) }]
    return []
}

/** The amount bounds on `column` in base units: whole units times 10 ^ `decimals`, exact (numeric). */
function amountCondition(p: Params, f: AdvancedFilter, column: string, decimals: string): string {
    const [from, to] = [p.add(f.amount.from), p.add(f.amount.to)]
    return `(${from}::numeric IS NULL OR ${column} >= ${from}::numeric * 10::numeric ^ ${decimals})
        AND (${to}::numeric IS NULL OR ${column} <= ${to}::numeric * 10::numeric ^ ${decimals})`
}

/** Blockscout's kinds of a transaction or a frame, on its value and `to` column. */
function kindCondition(p: Params, f: AdvancedFilter, value: string, to: string): string {
    const all = f.kinds === null || TRANSACTION_KINDS.every((k) => f.kinds!.includes(k))
    const kept = (k: TransactionKind) => p.add(all || f.kinds!.includes(k))
    return `(${p.add(all)}::boolean OR (${kept('coin_transfer')}::boolean AND ${value} > 0)
        OR (${kept('contract_creation')}::boolean AND ${to} IS NULL)
        OR (${kept('contract_interaction')}::boolean AND EXISTS (SELECT 1 FROM address a WHERE a.id = ${to} AND a.is_contract)))`
}

function ageCondition(p: Params, f: AdvancedFilter, column: string): string {
    const [from, to] = [p.add(f.age.from), p.add(f.age.to)]
    return `(${from}::timestamptz IS NULL OR ${column} >= ${from}::timestamptz) AND (${to}::timestamptz IS NULL OR ${column} <= ${to}::timestamptz)`
}

/** `column = ANY(values)`, true when `values` is null. */
function anyOf(p: Params, column: string, values: readonly string[] | null): string {
    const v = p.add(values)
    return `(${v}::text[] IS NULL OR ${column} = ANY(${v}::text[]))`
}

/**
 * A source's statement: the scan with `where` either walking chain order (`walkOrder`) or, per
 * probe, one LATERAL index range per value (`probeBranch` writes its condition and order on `k.v`),
 * unioned, then the page in chain order.
 */
function sourceStatement(options: {
    columns: string
    from: string
    where: string[]
    walkOrder: string
    probes: { values: string; branch: (v: string) => { where: string; order: string } }[]
    order: string
    limit: number
}): string {
    const where = options.where.length > 0 ? options.where.join(' AND ') : 'TRUE'
    if (options.probes.length === 0) {
        return `SELECT ${options.columns} FROM ${options.from} WHERE ${where} ORDER BY ${options.walkOrder} LIMIT ${options.limit}`
    }
    const branches = options.probes.map(({ values, branch }) => {
        const b = branch('k.v')
        return `SELECT x.* FROM unnest(${values}::text[]) AS k(v) CROSS JOIN LATERAL (
              SELECT ${options.columns} FROM ${options.from} WHERE ${b.where} AND ${where} ORDER BY ${b.order} LIMIT ${options.limit}) x`
    })
    return `SELECT * FROM (${branches.join(' UNION ')}) u ORDER BY ${options.order} LIMIT ${options.limit}`
}

/** `column = v` as a range, so that the planner reads the (column, ...) index in its order (see onSideIndex in transactions.ts). */
const onIndex = (column: string, v: string) => `${column} >= ${v} AND ${column} <= ${v}`

const TRANSACTION_ROW = `'transaction' AS kind, t.id AS hash, t.block_number, t.index AS transaction_index, t.timestamp, t.status,
    t."from", t."to", t.created_contract, t.method_id, t."to" AS callee, t.fee::text AS fee, t.value::text AS value`

async function transactionRows(db: Db, s: Scan): Promise<AdvancedFilterRow[]> {
    const p = new Params()
    const f = s.filter
    const where = [`t.block_number >= ${p.add(s.lo)}`, `t.block_number <= ${p.add(s.hi)}`]
    // Every item of a transaction comes after the transaction itself: the next page starts before it.
    if (s.cursor) where.push(`(t.block_number, t.index) < (${p.add(s.cursor.block_number)}, ${p.add(s.cursor.transaction_index)})`)
    where.push(ageCondition(p, f, 't.timestamp'), kindCondition(p, f, 't.value', 't."to"'), amountCondition(p, f, 't.value', '18'))
    const byAddress = addressProbes(f)
    where.push(addressCondition(p, f, 't."from"', 't."to"', byAddress.map((b) => b.side)))
    const byMethod = byAddress.length === 0 && f.methods !== null
    // A method probe finds only the methods asked for.
    if (!byMethod) where.push(anyOf(p, 't.method_id', f.methods))
    const probes = byAddress.map(({ side, addresses }) => ({
        values: p.add(addresses),
        branch: (v: string) => ({ where: onIndex(`t."${side}"`, v), order: `t."${side}" DESC, t.block_number DESC, t.index DESC` }),
    }))
    if (byMethod) {
        probes.push({
            values: p.add(f.methods),
            branch: (v: string) => ({ where: onIndex('t.method_id', v), order: 't.method_id DESC, t.block_number DESC, t.index DESC' }),
        })
    }
    const { rows } = await db.query<AdvancedFilterRow>(sourceStatement({
        columns: TRANSACTION_ROW,
        from: 'transaction t',
        where,
        walkOrder: 't.block_number DESC, t.index DESC',
        probes,
        order: 'block_number DESC, transaction_index DESC',
        limit: s.limit,
    }), p.values)
    return rows
}

/** Log indexes and frame indexes above this do not fit their ids' six digits (db/row-ids.ts). */
const LAST = 999_999

const TRANSFER_ROW = `'token_transfer' AS kind, tt.transaction_hash AS hash, tt.block_number, t.index AS transaction_index, tt.timestamp,
    t.status, tt."from", tt."to", NULL::text AS created_contract, t.method_id, t."to" AS callee, t.fee::text AS fee, tt.log_index, tt.batch_index,
    tt.token, tt.token_type, tt.value::text AS amount, tt.token_id::text AS token_id`

async function transferRows(db: Db, s: Scan): Promise<AdvancedFilterRow[]> {
    const p = new Params()
    const f = s.filter
    const c = s.cursor
    // The primary key (zero-padded block and log index) bounds the walk; the cursor's conditions below are exact.
    const where = [`tt.id >= ${p.add(logId(s.lo, 0))}`, `tt.id < ${p.add(logId(s.hi + 1, 0))}`]
    if (c) {
        if (c.token_transfer_index !== null) {
            const l = Math.min(c.token_transfer_index, LAST)
            const before = c.token_transfer_batch_index === null ? logId(c.block_number, l) : batchTransferId(c.block_number, l, c.token_transfer_batch_index)
            const [b, i, k] = [p.add(c.block_number), p.add(c.token_transfer_index), p.add(c.token_transfer_batch_index ?? -1)]
            where.push(`tt.id < ${p.add(before)}`, `(tt.block_number, tt.log_index) <= (${b}, ${i})`,
                `NOT (tt.block_number = ${b} AND tt.log_index = ${i} AND COALESCE(tt.batch_index, -1) >= ${k})`)
        } else {
            // After a transaction its own transfers follow; after one of its frames, the transfers of the transactions before it.
            const b = p.add(c.block_number)
            const op = c.internal_transaction_index === null ? '<=' : '<'
            where.push(`tt.id < ${p.add(logId(c.block_number + 1, 0))}`, `tt.block_number <= ${b}`,
                `(tt.block_number < ${b} OR t.index ${op} ${p.add(c.transaction_index)})`)
        }
    }
    const tokensIn = f.tokens.include.length > 0 ? f.tokens.include.filter((a) => !f.tokens.exclude.includes(a)) : null
    const byAddress = addressProbes(f)
    const byToken = byAddress.length === 0 && tokensIn !== null
    const tokensOut = p.add(f.tokens.exclude.length > 0 ? f.tokens.exclude : null)
    where.push(`(${tokensOut}::text[] IS NULL OR tt.token <> ALL(${tokensOut}::text[]))`)
    where.push(
        ageCondition(p, f, 'tt.timestamp'),
        anyOf(p, 'tt.token_type', f.tokenTypes),
        anyOf(p, 't.method_id', f.methods),
        // An ERC-721 transfer moves one token.
        amountCondition(p, f, 'COALESCE(tt.value, 1)', '(SELECT COALESCE(k.decimals, 0) FROM token k WHERE k.id = tt.token)'),
        addressCondition(p, f, 'tt."from"', 'tt."to"', byAddress.map((b) => b.side)),
    )
    // A token probe finds only the tokens included.
    if (!byToken) where.push(anyOf(p, 'tt.token', tokensIn))
    const order = (lead: string) => `${lead}tt.block_number DESC, tt.log_index DESC, tt.batch_index DESC`
    const probes = byAddress.map(({ side, addresses }) => ({
        values: p.add(addresses),
        branch: (v: string) => ({ where: onIndex(`tt."${side}"`, v), order: order(`tt."${side}" DESC, `) }),
    }))
    if (byToken) {
        probes.push({ values: p.add(tokensIn), branch: (v: string) => ({ where: onIndex('tt.token', v), order: order('tt.token DESC, ') }) })
    }
    const { rows } = await db.query<AdvancedFilterRow>(sourceStatement({
        columns: TRANSFER_ROW,
        from: 'token_transfer tt JOIN transaction t ON t.id = tt.transaction_hash',
        where,
        walkOrder: 'tt.id DESC',
        probes,
        order: 'block_number DESC, log_index DESC, batch_index DESC',
        limit: s.limit,
    }), p.values)
    return rows
}

/** The frames Blockscout lists: every one but a transaction's own top-level call (the transaction itself). */
const LISTED = `NOT (i.index = 0 AND i.type IN ('call', 'delegatecall', 'staticcall', 'callcode'))`

const FRAME_ROW = `'internal_transaction' AS kind, i.transaction_hash AS hash, i.block_number, i.transaction_index, i.index AS frame_index,
    i.timestamp, t.status, i."from", i."to", i.created_contract, i.value::text AS value,
    CASE WHEN octet_length(i.input) >= 4 THEN '0x' || encode(substring(i.input FROM 1 FOR 4), 'hex') END AS method_id, i."to" AS callee,
    (COALESCE(i.gas_used, 0) * t.effective_gas_price)::text AS fee`

async function frameRows(db: Db, s: Scan): Promise<AdvancedFilterRow[]> {
    const p = new Params()
    const f = s.filter
    const c = s.cursor
    const where = [LISTED, `i.id >= ${p.add(internalTransactionId(s.lo, 0, 0))}`, `i.id < ${p.add(internalTransactionId(s.hi + 1, 0, 0))}`]
    if (c) {
        // After a transaction or one of its token transfers, its frames follow.
        const before = c.internal_transaction_index !== null
            ? internalTransactionId(c.block_number, Math.min(c.transaction_index, LAST), Math.min(c.internal_transaction_index, LAST))
            : c.transaction_index >= LAST ? internalTransactionId(c.block_number + 1, 0, 0) : internalTransactionId(c.block_number, c.transaction_index + 1, 0)
        where.push(`i.id < ${p.add(before)}`)
    }
    const byAddress = addressProbes(f)
    where.push(
        ageCondition(p, f, 'i.timestamp'),
        kindCondition(p, f, 'i.value', 'i."to"'),
        anyOf(p, `'0x' || encode(substring(i.input FROM 1 FOR 4), 'hex')`, f.methods),
        amountCondition(p, f, 'i.value', '18'),
        addressCondition(p, f, 'i."from"', 'i."to"', byAddress.map((b) => b.side)),
    )
    // The partial (side, id) indexes hold exactly the listed frames.
    const probes = byAddress.map(({ side, addresses }) => ({
        values: p.add(addresses),
        branch: (v: string) => ({ where: onIndex(`i."${side}"`, v), order: `i."${side}" DESC, i.id DESC` }),
    }))
    const { rows } = await db.query<AdvancedFilterRow>(sourceStatement({
        columns: `i.id, ${FRAME_ROW}`,
        from: 'internal_transaction i JOIN transaction t ON t.id = i.transaction_hash',
        where,
        walkOrder: 'i.id DESC',
        probes,
        order: 'id DESC',
        limit: s.limit,
    }), p.values)
    return rows.map(({ id: _id, ...row }: AdvancedFilterRow & { id?: string }) => row as AdvancedFilterRow)
}

/** Which sources a filter reads, as Blockscout decides it: the coin's (transactions and frames) and the tokens'. */
export function advancedFilterSources(f: AdvancedFilter): { coin: boolean; tokens: boolean } {
    const coinKinds = f.kinds === null || f.kinds.length > 0
    const coinToken = f.tokens.include.length === 0 || f.tokens.includeNative
    const tokenTypes = f.tokenTypes === null || f.tokenTypes.length > 0
    const tokenContracts = !f.tokens.includeNative || f.tokens.include.length > 0
    return { coin: coinKinds && coinToken && !f.tokens.excludeNative, tokens: tokenTypes && tokenContracts }
}

/**
 * A page of the filtered list after `cursor` (null: from the newest): up to `limit` rows in the
 * list's order and whether more follow. The sources run one after another on the request's
 * connection; each reads at most limit + 1 rows.
 */
export async function advancedFilterPage(
    db: Db, filter: AdvancedFilter, cursor: AdvancedFilterCursor | null, limit: number,
): Promise<{ rows: AdvancedFilterRow[]; more: boolean }> {
    const range = await blockRange(db, filter.age)
    if (range.empty) return { rows: [], more: false }
    const scan: Scan = { filter, lo: range.lo ?? 0, hi: range.hi ?? MAX_BLOCK, cursor, limit: limit + 1 }
    const sources = advancedFilterSources(filter)
    const found: AdvancedFilterRow[] = []
    if (sources.coin) found.push(...await transactionRows(db, scan), ...await frameRows(db, scan))
    if (sources.tokens) found.push(...await transferRows(db, scan))
    found.sort(newestFirst)
    return { rows: found.slice(0, limit), more: found.length > limit }
}
