import { expect } from 'chai'
import { Pool } from 'pg'
import { toFunctionSelector } from 'viem'
import { abis } from '../../../abi'
import { applyMigrations } from '../../../db/migrate'
import { batchTransferId, internalTransactionId, logId } from '../../../db/row-ids'
import { AdvancedFilter, advancedFilterCursor, AdvancedFilterCursor, advancedFilterPage, AdvancedFilterRow } from '../../../api/chain/queries/advanced-filters'
import { createTestDatabase } from '../../support/postgres'
import { Stack } from '../../support/stack'
import * as Api from '../../../api/chain/schemas'
import { expect422, expectSameSequence, expectStatus, frontendQuery, shape, stack, v2 } from './helpers'

/**
 * GET /api/v2/advanced-filters against the seeded devnet: every list is walked to its end with a
 * small page (following next_page_params as the frontend does) and compared, item by item and in
 * order, with the same filter applied to the raw rows of transaction, internal_transaction and
 * token_transfer.
 */

interface Raw {
    key: string
    kind: 'transaction' | 'token_transfer' | 'internal_transaction'
    sort: number[]
    hash: string
    block_number: number
    timestamp: Date
    from: string
    to: string | null
    /** the coin moved (transactions, frames); the token amount (transfers, 1 for an ERC-721) */
    amount: bigint
    decimals: number
    method: string | null
    /** coin_transfer / contract_interaction / contract_creation, or the token standard */
    type: string
    token: string | null
}

interface Filter {
    types?: string[]
    methods?: string[]
    ageFrom?: Date
    ageTo?: Date
    fromIn?: string[]
    fromOut?: string[]
    toIn?: string[]
    toOut?: string[]
    relation?: 'or' | 'and'
    tokensIn?: string[]
    tokensOut?: string[]
    amountFrom?: bigint
    amountTo?: bigint
}

/** The filter's query string, as the frontend sends it. */
function query(f: Filter): Record<string, string | undefined> {
    const list = (v?: string[]) => v?.join(',')
    return {
        transaction_types: list(f.types),
        methods: list(f.methods),
        age_from: f.ageFrom?.toISOString(),
        age_to: f.ageTo?.toISOString(),
        from_address_hashes_to_include: list(f.fromIn),
        from_address_hashes_to_exclude: list(f.fromOut),
        to_address_hashes_to_include: list(f.toIn),
        to_address_hashes_to_exclude: list(f.toOut),
        address_relation: f.relation,
        token_contract_address_hashes_to_include: list(f.tokensIn),
        token_contract_address_hashes_to_exclude: list(f.tokensOut),
        amount_from: f.amountFrom?.toString(),
        amount_to: f.amountTo?.toString(),
    }
}

/** The filter applied to one raw row (docs/chain-api.md#advanced-filter). */
function matches(r: Raw, f: Filter): boolean {
    const coin = r.kind !== 'token_transfer'
    if (f.types) {
        // As Blockscout filters: a coin transfer is any item moving coin, whatever it calls; the item's `type` names what it calls.
        const types = f.types.map((t) => t.toLowerCase())
        const kept = coin
            ? (types.includes('coin_transfer') && r.amount > 0n) || types.includes(r.type) && r.type !== 'coin_transfer'
            : types.includes(r.type.toLowerCase())
        if (!kept) return false
    }
    if (f.methods && !f.methods.includes(r.method ?? '')) return false
    if (f.ageFrom && r.timestamp < f.ageFrom) return false
    if (f.ageTo && r.timestamp > f.ageTo) return false
    const side = (value: string | null, include?: string[], exclude?: string[]) => {
        if (include && include.length > 0) return value !== null && include.includes(value) && !(exclude ?? []).includes(value)
        if (exclude && exclude.length > 0) return !(value !== null && exclude.includes(value))
        return undefined
    }
    const from = side(r.from, f.fromIn, f.fromOut)
    // A creation (no `to`) is kept by a `to` exclusion and never by an inclusion.
    const to = side(r.to, f.toIn, f.toOut)
    if (from !== undefined && to !== undefined) {
        if (f.relation === 'and' ? !(from && to) : !(from || to)) return false
    } else if (from === false || to === false) return false
    const tokensIn = f.tokensIn ?? []
    const tokensOut = f.tokensOut ?? []
    if (coin) {
        if (tokensIn.length > 0 && !tokensIn.includes('native')) return false
        if (tokensOut.includes('native')) return false
    } else {
        const contracts = tokensIn.filter((t) => t !== 'native')
        if (tokensIn.length > 0 && contracts.length === 0) return false
        if (contracts.length > 0 && !contracts.includes(r.token!)) return false
        if (tokensOut.includes(r.token!)) return false
    }
    const unit = 10n ** BigInt(r.decimals)
    if (f.amountFrom !== undefined && r.amount < f.amountFrom * unit) return false
    if (f.amountTo !== undefined && r.amount > f.amountTo * unit) return false
    return true
}

function byPosition(a: Raw, b: Raw): number {
    for (let i = 0; i < a.sort.length; i++) if (a.sort[i] !== b.sort[i]) return b.sort[i] - a.sort[i]
    return 0
}

const Page = Api.AdvancedFilterPage

/** An item's identity in the list: which row it is. */
function itemKey(item: any): string {
    if (item.internal_transaction_index !== null) return `internal_transaction:${item.hash}:${item.internal_transaction_index}`
    if (item.token_transfer_index !== null) return `token_transfer:${item.hash}:${item.token_transfer_index}:${item.token_transfer_batch_index ?? ''}`
    return `transaction:${item.hash}`
}

describe('chain API: advanced filter', function () {
    this.timeout(600_000)
    let s: Stack
    let rows: Raw[]

    before(async () => {
        s = await stack()
        const contract = new Set((await s.db.query(`SELECT id FROM address WHERE is_contract`)).rows.map((r) => r.id as string))
        const coinType = (to: string | null) => (to === null ? 'contract_creation' : contract.has(to) ? 'contract_interaction' : 'coin_transfer')
        const txs = (await s.db.query(`SELECT id, block_number, index, timestamp, "from", "to", value::text, method_id FROM transaction`)).rows
        const frames = (await s.db.query(`
            SELECT transaction_hash, block_number, transaction_index, index, timestamp, "from", "to", value::text,
                   CASE WHEN octet_length(input) >= 4 THEN '0x' || encode(substring(input FROM 1 FOR 4), 'hex') END AS method
              FROM internal_transaction WHERE NOT (index = 0 AND type IN ('call', 'delegatecall', 'staticcall', 'callcode'))`)).rows
        const transfers = (await s.db.query(`
            SELECT tt.transaction_hash, tt.block_number, t.index AS transaction_index, tt.log_index, tt.batch_index, tt.timestamp, tt."from", tt."to",
                   COALESCE(tt.value, 1)::text AS amount, COALESCE(k.decimals, 0) AS decimals, t.method_id, tt.token_type, tt.token
              FROM token_transfer tt JOIN transaction t ON t.id = tt.transaction_hash LEFT JOIN token k ON k.id = tt.token`)).rows
        rows = [
            ...txs.map((t): Raw => ({
                key: `transaction:${t.id}`, kind: 'transaction', sort: [t.block_number, t.index, 2, 0, 0], hash: t.id, block_number: t.block_number,
                timestamp: t.timestamp, from: t.from, to: t.to, amount: BigInt(t.value), decimals: 18, method: t.method_id, type: coinType(t.to), token: null,
            })),
            ...frames.map((i): Raw => ({
                key: `internal_transaction:${i.transaction_hash}:${i.index}`, kind: 'internal_transaction', sort: [i.block_number, i.transaction_index, 0, i.index, 0],
                hash: i.transaction_hash, block_number: i.block_number, timestamp: i.timestamp, from: i.from, to: i.to, amount: BigInt(i.value), decimals: 18,
                method: i.method, type: coinType(i.to), token: null,
            })),
            ...transfers.map((tt): Raw => ({
                key: `token_transfer:${tt.transaction_hash}:${tt.log_index}:${tt.batch_index ?? ''}`, kind: 'token_transfer',
                sort: [tt.block_number, tt.transaction_index, 1, tt.log_index, tt.batch_index ?? -1], hash: tt.transaction_hash, block_number: tt.block_number,
                timestamp: tt.timestamp, from: tt.from, to: tt.to, amount: BigInt(tt.amount), decimals: tt.decimals, method: tt.method_id, type: tt.token_type, token: tt.token,
            })),
        ].sort(byPosition)
        expect(new Set(rows.map((r) => r.kind)), 'the devnet holds every kind of item').to.have.length(3)
    })

    /** Walks the filtered list to its end with pages of `limit`; checks every page's shape and cursor. */
    async function walkAll(params: Record<string, string | undefined>, limit: number, cursorOnly = false, afterPage?: (page: number) => Promise<void>): Promise<any[]> {
        const items: any[] = []
        let cursor: Record<string, unknown> = {}
        for (let page = 1; ; page++) {
            expect(page, 'the walk ends').to.be.below(2000)
            const q = cursorOnly && page > 1 ? cursor : { ...params, limit: String(limit), ...cursor }
            const res = await v2('/advanced-filters', q)
            const what = `GET /api/v2/advanced-filters${frontendQuery(q)}`
            expectStatus(res, 200, what)
            const body = shape(Page, res.body, what)
            items.push(...body.items)
            await afterPage?.(page)
            if (body.next_page_params === null) return items
            expect(body.items, `${what}: a page followed by another is full`).to.have.length(limit)
            expect(body.next_page_params).to.include.keys('block_number', 'transaction_index', 'internal_transaction_index', 'token_transfer_index', 'token_transfer_batch_index', 'items_count')
            cursor = body.next_page_params
        }
    }

    async function expectFilter(f: Filter, what: string, options: { limit?: number; min?: number } = {}): Promise<any[]> {
        const expected = rows.filter((r) => matches(r, f)).map((r) => r.key)
        expect(expected.length, `${what}: rows the filter keeps`).to.be.at.least(options.min ?? 1)
        const items = await walkAll(query(f), options.limit ?? 50)
        expectSameSequence(items.map(itemKey), expected, what)
        return items
    }

    const lower = (a: string) => a.toLowerCase()
    const busiest = (column: 'from' | 'to') => {
        const counts = new Map<string, number>()
        for (const r of rows) {
            const a = r[column]
            if (a) counts.set(a, (counts.get(a) ?? 0) + 1)
        }
        return [...counts].sort((a, b) => b[1] - a[1]).map(([a]) => a)
    }

    it('without a filter lists every transaction, token transfer and listed internal transaction, newest first, in pages with no gaps or repeats', async () => {
        const items = await expectFilter({}, 'everything', { limit: 50, min: 100 })
        const raw = new Map(rows.map((r) => [r.key, r]))
        const mislabelled = items.filter((i) => i.type !== raw.get(itemKey(i))!.type).map(itemKey)
        expect(mislabelled, 'each item\'s type: its token standard, else what its `to` is').to.deep.equal([])
        const tx = items.find((i) => i.internal_transaction_index === null && i.token_transfer_index === null)
        const row = (await s.db.query(`SELECT fee::text, value::text, status FROM transaction WHERE id = $1`, [tx.hash])).rows[0]
        expect(tx.value).to.equal(row.value)
        expect(tx.status).to.equal(row.status === 1 ? 'ok' : 'error')
        const transfer = items.find((i) => i.token_transfer_index !== null)
        expect(transfer.token, 'a transfer shows its token').to.not.equal(null)
        expect(transfer.value).to.equal(null)
    })

    it('a small page walks the same list, and next_page_params alone carries the filter', async () => {
        const token = lower(s.tokens.STABLE)
        await expectFilter({ tokensIn: [token] }, 'STABLE transfers in pages of 7', { limit: 7, min: 8 })
        const expected = rows.filter((r) => matches(r, { tokensIn: [token] })).map((r) => r.key)
        const items = await walkAll(query({ tokensIn: [token] }), 7, true)
        expectSameSequence(items.map(itemKey), expected, 'following next_page_params alone')
    })

    it('each type alone: coin transfers, contract interactions, contract creations, ERC-20, ERC-721, ERC-1155; ERC-404 answers none', async () => {
        for (const type of ['COIN_TRANSFER', 'contract_interaction', 'CONTRACT_CREATION', 'ERC-20', 'ERC-721', 'ERC-1155']) {
            // The seeded stack mints no ERC-1155 (the devnet's zoo does): that list is checked empty like the database's.
            const items = await expectFilter({ types: [type] }, `type ${type}`, { min: type === 'ERC-1155' ? 0 : 1 })
            if (type === 'COIN_TRANSFER') expect(items.every((i) => BigInt(i.value) > 0n), 'every coin transfer moves coin').to.equal(true)
            else if (items.length > 0) expect(new Set(items.map((i) => i.type.toLowerCase())), type).to.deep.equal(new Set([type.toLowerCase()]))
        }
        const none = await walkAll({ transaction_types: 'ERC-404' }, 50)
        expect(none).to.deep.equal([])
        await expectFilter({ types: ['coin_transfer', 'ERC-721'] }, 'coin transfers and ERC-721 transfers')
    })

    it('methods: a transaction\'s selector, a frame\'s own, and the transfers of a transaction with that method', async () => {
        const transfer = toFunctionSelector('transfer(address,uint256)')
        const items = await expectFilter({ methods: [transfer] }, 'transfer()')
        expect(new Set(items.map((i) => i.method))).to.deep.equal(new Set(['transfer']))
        const swap = rows.find((r) => r.kind === 'transaction' && r.method && r.method !== transfer)!.method!
        await expectFilter({ methods: [transfer, swap] }, 'two methods')
        const page = shape(Page, (await v2('/advanced-filters', { methods: transfer, limit: '1' })).body, 'search_params')
        expect(page.search_params.methods).to.deep.equal({ [transfer]: 'transfer' })
        // methods_names picks the common list's selectors, as the frontend sends them with `methods`.
        const named = shape(Page, (await v2('/advanced-filters', { methods_names: 'transfer', limit: '5' })).body, 'methods_names')
        expect(named.items.map(itemKey)).to.deep.equal(rows.filter((r) => matches(r, { methods: [transfer] })).slice(0, 5).map((r) => r.key))
    })

    it('age: the items of a time range, its bounds inclusive', async () => {
        const times = [...new Set(rows.map((r) => r.timestamp.getTime()))].sort((a, b) => a - b)
        const ageFrom = new Date(times[Math.floor(times.length / 3)])
        const ageTo = new Date(times[Math.floor((2 * times.length) / 3)])
        await expectFilter({ ageFrom, ageTo }, 'a third of the history')
        await expectFilter({ ageFrom }, 'since')
        await expectFilter({ ageTo }, 'until')
        expect(await walkAll({ age_from: new Date(times.at(-1)! + 3_600_000).toISOString() }, 50), 'after the head').to.deep.equal([])
    })

    it('addresses: from and to, each included and excluded, and both sides under and / or', async () => {
        const [sender, sender2] = busiest('from')
        const [recipient] = busiest('to')
        await expectFilter({ fromIn: [sender] }, 'from included')
        await expectFilter({ fromIn: [sender, sender2] }, 'two senders')
        await expectFilter({ toIn: [recipient] }, 'to included')
        await expectFilter({ fromOut: [sender] }, 'from excluded', { min: 50 })
        await expectFilter({ toOut: [recipient] }, 'to excluded', { min: 50 })
        await expectFilter({ fromIn: [sender], toIn: [recipient], relation: 'and' }, 'from and to')
        await expectFilter({ fromIn: [sender], toIn: [recipient], relation: 'or' }, 'from or to')
        await expectFilter({ fromIn: [sender], toIn: [recipient] }, 'or by default')
        await expectFilter({ fromIn: [sender], toOut: [recipient], relation: 'and' }, 'from, and not to')
        await expectFilter({ fromOut: [sender], toIn: [recipient], relation: 'or' }, 'not from, or to')
        // Any case is accepted; the list is of stored (lowercase) addresses.
        const checksummed = await walkAll({ from_address_hashes_to_include: sender.toUpperCase().replace('0X', '0x') }, 50)
        expectSameSequence(checksummed.map(itemKey), rows.filter((r) => matches(r, { fromIn: [sender] })).map((r) => r.key), 'an upper-case address')
    })

    it('tokens: included, excluded, the native coin spelled `native`, and search_params names them', async () => {
        const stable = lower(s.tokens.STABLE)
        const gold = lower(s.tokens.GOLD)
        await expectFilter({ tokensIn: [stable, gold] }, 'two tokens')
        await expectFilter({ tokensIn: ['native'] }, 'the coin alone')
        await expectFilter({ tokensIn: ['native', gold] }, 'the coin and GOLD')
        await expectFilter({ tokensOut: [stable] }, 'all but STABLE', { min: 50 })
        await expectFilter({ tokensOut: ['native'] }, 'all but the coin')
        const page = shape(Page, (await v2('/advanced-filters', { token_contract_address_hashes_to_include: `native,${s.tokens.GOLD}`, token_contract_address_hashes_to_exclude: s.tokens.STABLE, limit: '1' })).body, 'search_params')
        expect(Object.keys(page.search_params.tokens).sort()).to.deep.equal([gold, stable].sort())
        expect(page.search_params.tokens[gold].symbol).to.equal('GOLD')
    })

    it('amount: whole units of the coin and of each token, bounds inclusive', async () => {
        await expectFilter({ amountFrom: 1n }, 'at least 1')
        await expectFilter({ amountFrom: 1n, amountTo: 100n }, '1 to 100')
        await expectFilter({ amountTo: 0n }, 'nothing moved')
        const fractional = await walkAll({ amount_from: '0.5', transaction_types: 'coin_transfer' }, 50)
        expect(fractional.every((i) => BigInt(i.value) >= 5n * 10n ** 17n)).to.equal(true)
        expect(fractional.length).to.be.greaterThan(0)
    })

    it('filters combined: a type with a token and an age, an address with a method, an address with an amount', async () => {
        const times = [...new Set(rows.map((r) => r.timestamp.getTime()))].sort((a, b) => a - b)
        const ageFrom = new Date(times[Math.floor(times.length / 4)])
        const [sender] = busiest('from')
        await expectFilter({ types: ['ERC-20'], tokensIn: [lower(s.tokens.STABLE)], ageFrom }, 'ERC-20 of STABLE since', { limit: 9 })
        const method = rows.find((r) => r.from === sender && r.method)!.method!
        await expectFilter({ fromIn: [sender], methods: [method] }, 'a sender\'s calls of a method')
        await expectFilter({ fromIn: [sender], amountFrom: 1n, types: ['coin_transfer', 'ERC-20'] }, 'a sender\'s transfers of at least 1')
    })

    it('methods: the common list without q; by selector or name with it', async () => {
        const all = await v2('/advanced-filters/methods')
        expectStatus(all, 200, 'methods')
        expect(all.body).to.have.length(23)
        expect(all.body[0]).to.deep.equal({ method_id: '0xa9059cbb', name: 'transfer' })
        expect((await v2('/advanced-filters/methods', { q: 'Transfer' })).body).to.deep.equal([{ method_id: '0xa9059cbb', name: 'transfer' }])
        expect((await v2('/advanced-filters/methods', { q: '0x095ea7b3' })).body).to.deep.equal([{ method_id: '0x095ea7b3', name: 'approve' }])
        const fn = (abis.AmmRouter as readonly any[]).find((i) => i.type === 'function' && i.name === 'swapExactTokensForTokens')
        expect((await v2('/advanced-filters/methods', { q: 'swapExactTokensForTokens' })).body).to.deep.equal([{ method_id: toFunctionSelector(fn), name: 'swapExactTokensForTokens' }])
        expect((await v2('/advanced-filters/methods', { q: '0xdeadbeef' })).body).to.deep.equal([{ method_id: '0xdeadbeef', name: '' }])
        expect((await v2('/advanced-filters/methods', { q: 'noSuchMethodAnywhere' })).body).to.deep.equal([])
    })

    it('bad input answers 422 naming the parameter', async () => {
        const bad: Record<string, string>[] = [
            { transaction_types: 'ERC-99' },
            { methods: '0xa9059c' },
            { from_address_hashes_to_include: '0x1234' },
            { to_address_hashes_to_exclude: `${s.tokens.GOLD},nope` },
            { token_contract_address_hashes_to_include: 'natives' },
            { address_relation: 'xor' },
            { amount_from: '-1' },
            { amount_from: '1e18' },
            { amount_from: '5', amount_to: '1' },
            { age_from: 'yesterday' },
            { age_from: '2026-11-02T00:00:00Z', age_to: '2026-11-01T00:00:00Z' },
            { block_number: '10' },
            { block_number: '10', transaction_index: 'x' },
            { block_number: '10', transaction_index: '1', token_transfer_index: '3', internal_transaction_index: '2' },
            { limit: '0' },
            { from_address_hashes_to_include: Array.from({ length: 21 }, (_, i) => `0x${String(i).padStart(40, '0')}`).join(',') },
        ]
        for (const q of bad) await expect422('/advanced-filters', q)
        await expect422('/advanced-filters/methods', { q: 'x'.repeat(300) })
    })

    // Last: it sends transactions, which the rows read before the tests do not hold.
    it('a walk stays the same while new blocks arrive above it', async () => {
        const payer = s.account(1)
        const f: Filter = { fromIn: [lower(payer.address)] }
        const expected = rows.filter((r) => matches(r, f)).map((r) => r.key)
        expect(expected.length, 'the payer\'s items fill several pages').to.be.greaterThan(14)
        const items = await walkAll(query(f), 7, false, async (page) => {
            if (page <= 2) await s.send(payer, { to: s.account(2).address, value: 1n, gas: 21_000n })
        })
        expectSameSequence(items.map(itemKey), expected, 'walked while blocks arrive')
    })
})

/**
 * The order inside one transaction and the cursor at every position, on hand-written rows (the
 * seeded stack has no ERC-1155 batch): advancedFilterPage walked with pages of 1, 2 and 3.
 */
describe('chain API: advanced filter pages inside a transaction (own database)', function () {
    this.timeout(120_000)
    let pool: Pool
    const a = '0x' + 'a1'.repeat(20)
    const b = '0x' + 'b2'.repeat(20)
    const none: AdvancedFilter = {
        kinds: null, tokenTypes: null, methods: null, age: { from: null, to: null }, from: { include: [], exclude: [] }, to: { include: [], exclude: [] },
        relation: 'or', tokens: { include: [], exclude: [], includeNative: false, excludeNative: false }, amount: { from: null, to: null },
    }

    before(async () => {
        const databaseUrl = await createTestDatabase('advfilter')
        await applyMigrations(databaseUrl)
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
        const tx = (id: string, block: number, index: number) => pool.query(
            `INSERT INTO transaction (id, block_number, block_hash, timestamp, index, "from", "to", value, nonce, gas_limit, gas_used,
                                      effective_gas_price, fee, status, input, log_count, token_transfer_count)
             VALUES ($1, $2, '0x', now(), $3, $4, $5, 1, 0, 21000, 21000, 1, 21000, 1, '\\x', 0, 0)`, [id, block, index, a, b])
        const transfer = (id: string, hash: string, block: number, log: number, type: string, batch: number | null) => pool.query(
            `INSERT INTO token_transfer (id, block_number, block_hash, timestamp, log_index, transaction_hash, token, token_type, "from", "to", value, token_id, batch_index)
             VALUES ($1, $2, '0x', now(), $3, $4, $5, $6, $7, $8, 1, $9, $10)`, [id, block, log, hash, b, type, a, b, type === 'ERC-20' ? null : 7, batch])
        const frame = (hash: string, block: number, txIndex: number, index: number, type: string) => pool.query(
            `INSERT INTO internal_transaction (id, block_number, block_hash, timestamp, transaction_hash, transaction_index, index, trace_address, type, "from", "to", value)
             VALUES ($1, $2, '0x', now(), $3, $4, $5, '{}', $6, $7, $8, 0)`, [internalTransactionId(block, txIndex, index), block, hash, txIndex, index, type, a, type === 'create' ? null : b])
        await tx('C', 9, 0)
        await tx('A', 10, 0)
        await transfer(logId(10, 0), 'A', 10, 0, 'ERC-20', null)
        await frame('A', 10, 0, 0, 'call')
        await frame('A', 10, 0, 1, 'call')
        await tx('B', 10, 1)
        await transfer(logId(10, 2), 'B', 10, 2, 'ERC-20', null)
        for (const k of [0, 1, 2]) await transfer(batchTransferId(10, 3, k), 'B', 10, 3, 'ERC-1155', k)
        await frame('B', 10, 1, 0, 'call')
        await frame('B', 10, 1, 1, 'call')
        await frame('B', 10, 1, 2, 'create')
    })

    after(async () => {
        await pool?.end()
    })

    const key = (r: AdvancedFilterRow) => r.kind === 'transaction' ? `${r.hash}`
        : r.kind === 'token_transfer' ? `${r.hash} tt ${r.log_index}${r.batch_index === null ? '' : `.${r.batch_index}`}` : `${r.hash} it ${r.frame_index}`

    async function walk(filter: AdvancedFilter, limit: number): Promise<string[]> {
        const db = { query: (text: string, values?: unknown[]) => pool.query(text, values) }
        const keys: string[] = []
        let cursor: AdvancedFilterCursor | null = null
        for (let page = 0; page < 50; page++) {
            const { rows, more } = await advancedFilterPage(db, filter, cursor, limit)
            keys.push(...rows.map(key))
            if (!more) return keys
            cursor = advancedFilterCursor(rows.at(-1)!)
        }
        expect.fail('the walk does not end')
    }

    it('lists a transaction, then its transfers (an ERC-1155 batch last position first), then its frames, at any page size', async () => {
        const expected = ['B', 'B tt 3.2', 'B tt 3.1', 'B tt 3.0', 'B tt 2', 'B it 2', 'B it 1', 'A', 'A tt 0', 'A it 1', 'C']
        for (const limit of [1, 2, 3, 50]) expect(await walk(none, limit), `pages of ${limit}`).to.deep.equal(expected)
        expect(await walk({ ...none, tokenTypes: ['ERC-1155'], kinds: [] }, 1), 'a batch alone').to.deep.equal(['B tt 3.2', 'B tt 3.1', 'B tt 3.0'])
        expect(await walk({ ...none, kinds: ['contract_creation'], tokenTypes: [] }, 1), 'creations').to.deep.equal(['B it 2'])
    })
})
