import { expect } from 'chai'
import { Pool } from 'pg'
import { AbiFunction, getAddress, toFunctionSelector, zeroAddress } from 'viem'
import { z } from 'zod'
import { TokenDetailRow } from '../../../api/chain/queries/tokens'
import { StoredTransactionRow } from '../../../api/chain/queries/transactions'
import { getStack, Stack } from '../../support/stack'
import * as S from './shapes'

/** The shared stack (started by the first suite that asks). */
export function stack(): Promise<Stack> {
    return getStack()
}

export interface ApiResponse {
    status: number
    headers: Headers
    text: string
    /** The parsed JSON body, or undefined when the body is not JSON. */
    body: any
}

/**
 * Query parameters the way the Blockscout frontend sends them (lib/api/buildUrl.ts): every key of
 * the object, `undefined` and '' skipped, anything else through String() — so a null cursor value
 * goes out as "null" and false as "false". The API must take its own next_page_params back.
 */
export function frontendQuery(query: Record<string, unknown> = {}): string {
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(query)) {
        if (value !== undefined && value !== '') params.append(key, String(value))
    }
    const text = params.toString()
    return text ? `?${text}` : ''
}

/** GET (or another method) on the explorer port; `path` starts with /api/v2, /api or /socket. */
export async function call(path: string, options: { query?: Record<string, unknown>; headers?: Record<string, string>; method?: string } = {}): Promise<ApiResponse> {
    const { explorerUrl } = await stack()
    return readResponse(await fetch(`${explorerUrl}${path}${frontendQuery(options.query)}`, { method: options.method ?? 'GET', headers: options.headers }))
}

/** An answer as the tests read it: its text, and its body parsed when it is JSON (undefined when it is not). */
export async function readResponse(res: Response): Promise<ApiResponse> {
    const text = await res.text()
    let body: unknown
    try {
        body = text ? JSON.parse(text) : undefined
    } catch {
        body = undefined
    }
    return { status: res.status, headers: res.headers, text, body }
}

/** GET /api/v2<path>. */
export function v2(path: string, query?: Record<string, unknown>, headers?: Record<string, string>): Promise<ApiResponse> {
    return call(`/api/v2${path}`, { query, headers })
}

function describeResponse(res: ApiResponse): string {
    return `HTTP ${res.status}: ${res.text.slice(0, 600)}`
}

/** Parses `value` with the schema; the failure message lists every issue with its path. */
export function shape<T extends z.ZodTypeAny>(schema: T, value: unknown, what: string): z.infer<T> {
    const parsed = schema.safeParse(value)
    if (!parsed.success) {
        const issues = parsed.error.issues.slice(0, 12).map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n')
        expect.fail(`${what} does not have the reference shape:\n${issues}\nvalue: ${JSON.stringify(value)?.slice(0, 800)}`)
    }
    return parsed.data
}

/** Expects a status and returns the response. */
export function expectStatus(res: ApiResponse, status: number, what: string): ApiResponse {
    expect(res.status, `${what}: ${describeResponse(res)}`).to.equal(status)
    return res
}

/** GET that must answer 200 with the shape; returns the parsed body. */
export async function getOk<T extends z.ZodTypeAny>(path: string, schema: T, query?: Record<string, unknown>, headers?: Record<string, string>): Promise<z.infer<T>> {
    const res = await v2(path, query, headers)
    expectStatus(res, 200, `GET /api/v2${path}${frontendQuery(query)}`)
    return shape(schema, res.body, `GET /api/v2${path}${frontendQuery(query)}`)
}

/** The answer to a malformed request: 422 with a message (either error body of the reference). */
export async function expect422(path: string, query?: Record<string, unknown>): Promise<void> {
    const res = await v2(path, query)
    const what = `GET /api/v2${path}${frontendQuery(query)}`
    expect(res.status, `${what} must be 422: ${describeResponse(res)}`).to.equal(422)
    shape(S.Unprocessable, res.body, `${what} (422 body)`)
}

export async function expect404(path: string, query?: Record<string, unknown>): Promise<void> {
    const res = await v2(path, query)
    const what = `GET /api/v2${path}${frontendQuery(query)}`
    expect(res.status, `${what} must be 404: ${describeResponse(res)}`).to.equal(404)
    expect(res.body, `${what} body`).to.deep.equal({ message: 'Not found' })
}

export async function expectEmptyPage(path: string, query?: Record<string, unknown>): Promise<void> {
    const res = await v2(path, query)
    const what = `GET /api/v2${path}${frontendQuery(query)}`
    expectStatus(res, 200, what)
    expect(res.body, what).to.deep.equal({ items: [], next_page_params: null })
}

export interface WalkResult<T> {
    items: T[]
    pages: number
    cursors: Record<string, unknown>[]
    /** pages whose next_page_params.items_count was not the number of items on the page */
    itemsCountMismatches: string[]
}

/**
 * Follows next_page_params to the end, sending every key back as the frontend does, on top of the
 * request's own filters. Checks on the way: every page has the shape, every page but the last has
 * 50 items, every cursor has the reference's keys, the last page ends with null. Whether
 * `items_count` is the page's item count (when the route has one) is recorded in
 * `itemsCountMismatches`, so one test can check it apart from the walk itself.
 */
export async function walk<T extends z.ZodTypeAny>(path: string, item: T, options: {
    query?: Record<string, unknown>
    /** keys next_page_params must hold */
    keys: string[]
    /** whether next_page_params carries items_count (all lists but token transfers) */
    itemsCount?: boolean
    /** called after each page, e.g. to make a block arrive mid-walk */
    afterPage?: (page: number) => Promise<void>
    maxPages?: number
    /** the page's schema, when the list has top-level fields besides items and next_page_params */
    page?: ReturnType<typeof S.page>
    /** after the first page, send next_page_params alone (without options.query): the cursor must carry the filters */
    cursorOnly?: boolean
}): Promise<WalkResult<z.infer<T>>> {
    const items: z.infer<T>[] = []
    const cursors: Record<string, unknown>[] = []
    const itemsCountMismatches: string[] = []
    let cursor: Record<string, unknown> = {}
    const schema = options.page ?? S.page(item)
    for (let pageNo = 1; ; pageNo++) {
        if (pageNo > (options.maxPages ?? 400)) expect.fail(`${path}: more than ${options.maxPages ?? 400} pages, the walk does not end`)
        const query = options.cursorOnly && pageNo > 1 ? cursor : { ...options.query, ...cursor }
        const res = await v2(path, query)
        const what = `GET /api/v2${path}${frontendQuery(query)} (page ${pageNo})`
        expectStatus(res, 200, what)
        const body = shape(schema, res.body, what)
        items.push(...(body.items as z.infer<T>[]))
        await options.afterPage?.(pageNo)
        if (body.next_page_params === null) return { items, pages: pageNo, cursors, itemsCountMismatches }
        expect(body.items.length, `${what}: a page followed by another holds 50 items`).to.equal(50)
        for (const key of options.keys) {
            expect(body.next_page_params, `${what}: next_page_params`).to.have.property(key)
        }
        if (options.itemsCount && body.next_page_params.items_count !== body.items.length) {
            itemsCountMismatches.push(`${what}: items_count ${JSON.stringify(body.next_page_params.items_count)}, ${body.items.length} items on the page`)
        }
        cursors.push(body.next_page_params)
        cursor = body.next_page_params
    }
}

/** Asserts the sequence has no duplicates, then that it equals the expected one, in order. */
export function expectSameSequence(actual: string[], expected: string[], what: string): void {
    const seen = new Set<string>()
    const duplicates = actual.filter((k) => (seen.has(k) ? true : (seen.add(k), false)))
    expect(duplicates, `${what}: duplicates`).to.deep.equal([])
    const missing = expected.filter((k) => !seen.has(k))
    expect(missing.slice(0, 10), `${what}: missing (gaps), ${missing.length} in all`).to.deep.equal([])
    const extra = actual.filter((k) => !expected.includes(k))
    expect(extra.slice(0, 10), `${what}: items not in the database`).to.deep.equal([])
    const first = actual.findIndex((k, i) => k !== expected[i])
    if (first >= 0) {
        expect.fail(`${what}: order differs from position ${first} of ${expected.length}: got ${JSON.stringify(actual.slice(first, first + 5))}, expected ${JSON.stringify(expected.slice(first, first + 5))}`)
    }
}

// ---------------------------------------------------------------------------------------------
// Expected values from the database

export const ZERO_ADDRESS = zeroAddress

export function iso(value: Date | string | null): string | null {
    if (value === null) return null
    const date = value instanceof Date ? value : new Date(value)
    return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')
}

export function hex(bytes: Buffer | null): string {
    return bytes ? `0x${bytes.toString('hex')}` : '0x'
}

export function checksum(address: string): string {
    return getAddress(address)
}

/** What the database knows about addresses, contracts and tokens at a moment. */
export interface Truth {
    head: number
    isContract: Map<string, boolean>
    verified: Map<string, { name: string; abi: any[] }>
    selectors: Map<string, Map<string, AbiFunction>>
    tokens: Map<string, TokenDetailRow>
}

export async function loadTruth(db: Pool): Promise<Truth> {
    const head = (await db.query('SELECT max(number) AS n FROM block')).rows[0].n as number
    const addresses = await db.query('SELECT id, is_contract FROM address')
    const verified = await db.query('SELECT id, name, abi FROM verified_contract')
    const tokens = await db.query('SELECT id, type, name, symbol, decimals, total_supply::text, holder_count, transfer_count FROM token')
    const selectors = new Map<string, Map<string, AbiFunction>>()
    for (const row of verified.rows) {
        const map = new Map<string, AbiFunction>()
        for (const item of row.abi as any[]) {
            if (item.type === 'function') map.set(toFunctionSelector(item as AbiFunction), item as AbiFunction)
        }
        selectors.set(row.id, map)
    }
    return {
        head,
        isContract: new Map(addresses.rows.map((r) => [r.id, r.is_contract])),
        verified: new Map(verified.rows.map((r) => [r.id, { name: r.name, abi: r.abi }])),
        selectors,
        tokens: new Map(tokens.rows.map((r) => [r.id, r as TokenDetailRow])),
    }
}

export const TX_COLUMNS = `id, block_number, block_hash, timestamp, index, "from", "to", created_contract, value::text, nonce, type,
    gas_limit::text, gas_price::text, max_fee_per_gas::text, max_priority_fee_per_gas::text, gas_used::text,
    effective_gas_price::text, fee::text, status, input, method_id, token_transfer_count`

/**
 * Blockscout's `method`: the decoded function name when the ABI of `to` is known (our verified
 * contracts), else the 0x-selector when `to` is a contract and the input has one, else null
 * (coin transfers to accounts, contract creations).
 */
export function expectedMethod(row: StoredTransactionRow, truth: Truth): string | null {
    if (!row.to) return null
    const input = hex(row.input)
    if (input.length < 10) return null
    const selector = input.slice(0, 10)
    const fn = truth.selectors.get(row.to)?.get(selector)
    if (fn) return fn.name
    return truth.isContract.get(row.to) ? selector : null
}

/**
 * A token transfer's `method`: Blockscout renders it with skip_sc_check = true
 * (TokenTransferView: Transaction.method_name(tx, decoded, true)), so it is the decoded name when
 * the ABI of `to` is known, else the input's 0x-selector whenever the input has 4 bytes, even for a
 * contract creation, else null.
 */
export function expectedTransferMethod(row: StoredTransactionRow, truth: Truth): string | null {
    const input = hex(row.input)
    if (input.length < 10) return null
    const fn = row.to ? truth.selectors.get(row.to)?.get(input.slice(0, 10)) : undefined
    return fn ? fn.name : input.slice(0, 10)
}

export function expectAddressParam(param: S.AddressParam | null, lower: string | null, truth: Truth, what: string): void {
    if (lower === null) {
        expect(param, what).to.equal(null)
        return
    }
    expect(param, what).to.not.equal(null)
    expect(param!.hash, `${what}.hash`).to.equal(checksum(lower))
    expect(param!.is_contract, `${what}.is_contract`).to.equal(truth.isContract.get(lower) ?? false)
    const verified = truth.verified.get(lower)
    if (verified) {
        expect(param!.is_verified, `${what}.is_verified`).to.equal(true)
        // [choice] AddressParam.name is "primary or latest address name (or contract name)": a
        // verified contract of ours is named after its contract.
        expect(param!.name, `${what}.name`).to.equal(verified.name)
    } else if (truth.isContract.has(lower)) {
        expect(param!.is_verified, `${what}.is_verified (known, unverified)`).to.equal(false)
    }
}

/** The field-by-field match of a Transaction (either variant) with its row. */
export function expectTransaction(item: S.TransactionListItem | S.TransactionSingle, row: StoredTransactionRow, truth: Truth, what: string, options: { confirmations?: boolean } = {}): void {
    expect(item.hash, `${what}.hash`).to.equal(row.id)
    expect(item.block_number, `${what}.block_number`).to.equal(row.block_number)
    expect(item.position, `${what}.position`).to.equal(row.index)
    expect(item.timestamp, `${what}.timestamp`).to.equal(iso(row.timestamp))
    expectAddressParam(item.from, row.from, truth, `${what}.from`)
    expectAddressParam(item.to, row.to, truth, `${what}.to`)
    expectAddressParam(item.created_contract, row.created_contract, truth, `${what}.created_contract`)
    expect(item.value, `${what}.value`).to.equal(row.value)
    expect(item.fee, `${what}.fee`).to.deep.equal({ type: 'actual', value: row.fee })
    expect(item.gas_used, `${what}.gas_used`).to.equal(row.gas_used)
    expect(item.gas_limit, `${what}.gas_limit`).to.equal(row.gas_limit)
    expect(item.nonce, `${what}.nonce`).to.equal(row.nonce)
    expect(item.type, `${what}.type`).to.equal(row.type)
    expect(item.max_fee_per_gas, `${what}.max_fee_per_gas`).to.equal(row.max_fee_per_gas)
    expect(item.max_priority_fee_per_gas, `${what}.max_priority_fee_per_gas`).to.equal(row.max_priority_fee_per_gas)
    expect(item.status, `${what}.status`).to.equal(row.status === 1 ? 'ok' : 'error')
    if (row.status === 1) expect(item.result, `${what}.result`).to.equal('success')
    else expect(item.result, `${what}.result (reverted)`).to.not.be.oneOf(['success', 'pending'])
    expect(item.raw_input, `${what}.raw_input`).to.equal(hex(row.input))
    expect(item.method, `${what}.method`).to.equal(expectedMethod(row, truth))
    if (options.confirmations !== false) {
        // Blockscout: max(1 + head - block_number, 1).
        expect(item.confirmations, `${what}.confirmations`).to.equal(Math.max(1 + truth.head - row.block_number, 1))
    }
    const types = new Set<string>()
    if (row.token_transfer_count > 0) types.add('token_transfer')
    if (row.to === null) types.add('contract_creation')
    if (row.created_contract && truth.tokens.has(row.created_contract)) types.add('token_creation')
    if (row.to !== null && truth.isContract.get(row.to)) types.add('contract_call')
    if (BigInt(row.value) > 0n) types.add('coin_transfer')
    expect([...item.transaction_types].sort(), `${what}.transaction_types`).to.deep.equal([...types].sort())
}

export const BLOCK_COLUMNS = `id, number, parent_hash, timestamp, miner, gas_used::text, gas_limit::text, base_fee_per_gas::text,
    size, difficulty::text, total_difficulty::text, nonce, transaction_count, transaction_fees::text, burnt_fees::text`

export function expectBlock(item: S.BlockListItem | S.BlockSingle, row: any, truth: Truth, what: string): void {
    expect(item.height, `${what}.height`).to.equal(row.number)
    expect(item.hash, `${what}.hash`).to.equal(row.id)
    expect(item.parent_hash, `${what}.parent_hash`).to.equal(row.parent_hash)
    expect(item.timestamp, `${what}.timestamp`).to.equal(iso(row.timestamp))
    expectAddressParam(item.miner, row.miner, truth, `${what}.miner`)
    expect(item.transactions_count, `${what}.transactions_count`).to.equal(row.transaction_count)
    expect(item.size, `${what}.size`).to.equal(row.size)
    expect(item.gas_used, `${what}.gas_used`).to.equal(row.gas_used)
    expect(item.gas_limit, `${what}.gas_limit`).to.equal(row.gas_limit)
    expect(item.base_fee_per_gas, `${what}.base_fee_per_gas`).to.equal(row.base_fee_per_gas)
    expect(item.nonce, `${what}.nonce`).to.equal(row.nonce)
    expect(item.difficulty, `${what}.difficulty`).to.equal(row.difficulty)
    expect(item.transaction_fees, `${what}.transaction_fees`).to.equal(row.transaction_fees)
    expect(item.burnt_fees, `${what}.burnt_fees`).to.equal(row.burnt_fees)
    expect(item.type, `${what}.type`).to.equal('block')
    expect(item.uncles_hashes, `${what}.uncles_hashes`).to.deep.equal([])
    const used = Number(row.gas_used)
    const limit = Number(row.gas_limit)
    expect(item.gas_used_percentage, `${what}.gas_used_percentage`).to.be.closeTo((used / limit) * 100, 0.01)
    // Blockscout: target = limit / 2 (EIP-1559 elasticity), percentage = (used - target) / target * 100.
    expect(item.gas_target_percentage, `${what}.gas_target_percentage`).to.be.closeTo(((used - limit / 2) / (limit / 2)) * 100, 0.01)
}

export function expectToken(item: S.Token, row: TokenDetailRow, what: string): void {
    expect(item.address_hash, `${what}.address_hash`).to.equal(checksum(row.id))
    expect(item.type, `${what}.type`).to.equal(row.type)
    expect(item.name, `${what}.name`).to.equal(row.name)
    expect(item.symbol, `${what}.symbol`).to.equal(row.symbol)
    expect(item.decimals, `${what}.decimals`).to.equal(row.decimals === null ? null : String(row.decimals))
    expect(item.total_supply, `${what}.total_supply`).to.equal(row.total_supply)
    expect(item.holders_count, `${what}.holders_count`).to.equal(String(row.holder_count))
}

export const TT_COLUMNS = `t.id, t.block_number, t.block_hash, t.timestamp, t.log_index, t.transaction_hash, t.token, t.token_type,
    t."from", t."to", t.value::text, t.token_id::text`

export function expectTokenTransfer(item: S.TokenTransfer, row: any, tx: StoredTransactionRow, truth: Truth, what: string): void {
    expect(item.transaction_hash, `${what}.transaction_hash`).to.equal(row.transaction_hash)
    expect(item.block_hash, `${what}.block_hash`).to.equal(row.block_hash)
    expect(item.block_number, `${what}.block_number`).to.equal(row.block_number)
    expect(item.log_index, `${what}.log_index`).to.equal(row.log_index)
    expect(item.timestamp, `${what}.timestamp`).to.equal(iso(row.timestamp))
    expectAddressParam(item.from, row.from, truth, `${what}.from`)
    expectAddressParam(item.to, row.to, truth, `${what}.to`)
    const token = truth.tokens.get(row.token)!
    expectToken(item.token, token, `${what}.token`)
    expect(item.token_type, `${what}.token_type`).to.equal(row.token_type)
    const type = row.from === ZERO_ADDRESS && row.to === ZERO_ADDRESS ? 'token_spawning'
        : row.from === ZERO_ADDRESS ? 'token_minting' : row.to === ZERO_ADDRESS ? 'token_burning' : 'token_transfer'
    expect(item.type, `${what}.type`).to.equal(type)
    if (row.token_type === 'ERC-721') {
        expect(item.total, `${what}.total`).to.not.equal(null)
        expect((item.total as any).token_id, `${what}.total.token_id`).to.equal(row.token_id)
    } else {
        expect(item.total, `${what}.total`).to.deep.equal({ value: row.value, decimals: token.decimals === null ? null : String(token.decimals) })
    }
    expect(item.method, `${what}.method (of the parent transaction)`).to.equal(expectedTransferMethod(tx, truth))
}

export const LOG_COLUMNS = `l.id, l.block_number, l.block_hash, l.index, l.transaction_hash, l.address, l.topic0, l.topic1, l.topic2,
    l.topic3, l.data, b.timestamp AS block_timestamp, tx."to" AS tx_to`

export function expectLog(item: S.Log, row: any, truth: Truth, what: string): void {
    expect(item.transaction_hash, `${what}.transaction_hash`).to.equal(row.transaction_hash)
    expect(item.block_hash, `${what}.block_hash`).to.equal(row.block_hash)
    expect(item.block_number, `${what}.block_number`).to.equal(row.block_number)
    expect(item.index, `${what}.index`).to.equal(row.index)
    expect(item.block_timestamp, `${what}.block_timestamp`).to.equal(iso(row.block_timestamp))
    expect(item.topics, `${what}.topics`).to.deep.equal([row.topic0, row.topic1, row.topic2, row.topic3])
    expect(item.data, `${what}.data`).to.equal(hex(row.data))
    expectAddressParam(item.address, row.address, truth, `${what}.address`)
    // smart_contract is the parent transaction's `to`, as Blockscout renders it.
    expectAddressParam(item.smart_contract, row.tx_to, truth, `${what}.smart_contract`)
}

/** A well-formed address no one has used. */
export function unknownAddress(): string {
    const bytes = Array.from({ length: 20 }, () => Math.floor(Math.random() * 256).toString(16).padStart(2, '0')).join('')
    return getAddress(`0x${bytes}`)
}

export function unknownHash(): string {
    return `0x${Array.from({ length: 32 }, () => Math.floor(Math.random() * 256).toString(16).padStart(2, '0')).join('')}`
}
