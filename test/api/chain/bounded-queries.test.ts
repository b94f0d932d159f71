import { expect } from 'chai'
import { Client } from 'pg'
import { getAddress } from 'viem'
import { Db } from '../../../api/chain/db'
import { ADDRESS_TRANSACTION_SORTS, addressTransactionKeys } from '../../../api/chain/queries/transactions'
import { erc1155Holders, tokenList } from '../../../api/chain/queries/tokens'
import { addressTransfers, instanceTransfers, tokenTransfers, tokenTransferWindow } from '../../../api/chain/queries/token-transfers'
import { MAX_BLOCK } from '../../../api/chain/etherscan/params'
import { addressNfts, collectionPreviews, tokenInstances } from '../../../api/chain/queries/token-instances'
import { AdvancedFilter, advancedFilterPage } from '../../../api/chain/queries/advanced-filters'
import { sections } from '../../../api/stats-service/lines'
import { TRUNC_UNIT } from '../../../api/stats-service/periods'
import { lastBefore, periodFigures, sumBefore } from '../../../api/stats-service/queries'
import { ApiProcess, startApi } from '../../support/api'
import { createTestDatabase } from '../../support/postgres'

/**
 * The chain data API's bounds (docs/chain-api.md, Bounds) on a database of hand-written rows: the
 * statement timeout (503, then the pool serves again), every accepted order backed by an index,
 * validations counted up to a cap, token-balances capped.
 */
describe('chain API: bounded queries', function () {
    this.timeout(120_000)
    const TIMEOUT_MS = 1500
    const miner = '0x' + '11'.repeat(20)
    const smallMiner = '0x' + '22'.repeat(20)
    const holder = '0x' + '33'.repeat(20)
    const tokens = [1, 2, 3, 4].map((i) => '0x' + String(i).repeat(2).repeat(20).replace(/^../, 'aa'))
    let databaseUrl: string
    let api: ApiProcess | undefined
    let db: Client

    before(async () => {
        databaseUrl = await createTestDatabase('bounded')
        // The api applies the migrations; one connection each, so recovery is shown on the connection a cancel hit.
        api = await startApi({
            databaseUrl,
            contracts: { wnative: `0x${'a1'.repeat(20)}`, stable: `0x${'a2'.repeat(20)}`, factory: `0x${'a3'.repeat(20)}`, router: `0x${'a4'.repeat(20)}` },
            env: {
                CHAIN_API_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS),
                ETHERSCAN_API_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS),
                CHAIN_API_DB_POOL_SIZE: '1',
                CHAIN_API_VALIDATIONS_COUNT_CAP: '3',
                CHAIN_API_TOKEN_BALANCES_MAX: '2',
            },
        })
        db = new Client({ connectionString: databaseUrl })
        await db.connect()
        for (let n = 1; n <= 7; n++) {
            await db.query(
                `INSERT INTO block (id, number, parent_hash, timestamp, miner, gas_used, gas_limit, size, difficulty, nonce, extra_data,
                                    transaction_count, transaction_fees, burnt_fees)
                 VALUES ($1, $2, '0x', now(), $3, 0, 0, 0, 0, '0x', '0x', 0, 0, 0)`,
                ['0x' + n.toString(16).padStart(64, '0'), n, n <= 5 ? miner : smallMiner]
            )
        }
        await db.query(
            `INSERT INTO address (id, balance, balance_block, is_contract, transaction_count, token_transfer_count, gas_used, log_count, first_block, last_block)
             VALUES ($1, 0, 1, false, 7, 2, 21000, 0, 1, 5)`,
            [miner]
        )
        for (const [i, token] of tokens.entries()) {
            await db.query(
                `INSERT INTO token (id, type, name, symbol, decimals, total_supply, holder_count, transfer_count, first_block)
                 VALUES ($1, 'ERC-20', $2, $2, 18, 1000, 1, 1, 1)`,
                [token, `T${i}`]
            )
            await db.query('INSERT INTO token_balance (id, token, holder, value) VALUES ($1, $2, $3, $4)', [`${token}-${holder}`, token, holder, 100 * (i + 1)])
        }
    })

    after(async () => {
        await db?.end()
        await api?.stop()
    })

    const get = async (path: string) => {
        const res = await fetch(`${api!.explorerUrl}${path}`)
        return { status: res.status, body: await res.json() as any }
    }

    it('a statement held past CHAIN_API_STATEMENT_TIMEOUT_MS answers 503 on every surface, and the next request is served', async () => {
        const locker = new Client({ connectionString: databaseUrl })
        await locker.connect()
        try {
            // The api's reads wait for this lock until Postgres cancels them at the timeout.
            await locker.query('BEGIN')
            await locker.query('LOCK TABLE address, block, token, pair, transaction, daily_chain_activity IN ACCESS EXCLUSIVE MODE')
            const v2 = await get(`/api/v2/addresses/${miner}/counters`)
            expect(v2.status, JSON.stringify(v2.body)).to.equal(503)
            expect(v2.body).to.deep.equal({ message: `The query took longer than ${TIMEOUT_MS} ms and was cancelled; try again later or narrow the request` })
            // The advanced filter's scans, whichever filter: a walk through many rows ends the same way.
            const filter = await get(`/api/v2/advanced-filters?methods=0xa9059cbb&amount_from=1`)
            expect(filter.status, JSON.stringify(filter.body)).to.equal(503)
            expect(filter.body).to.deep.equal(v2.body)
            const etherscan = await get(`/api?module=account&action=balance&address=${miner}`)
            expect(etherscan.status, JSON.stringify(etherscan.body)).to.equal(503)
            expect(etherscan.body).to.deep.equal({ status: '0', message: 'Query Timeout occured. Please select a smaller result dataset', result: null })
            const defi = await get('/api/defi/pools')
            expect(defi.status, JSON.stringify(defi.body)).to.equal(503)
            expect(defi.body.error.code).to.equal('query_timeout')
            const stats = await get('/api/v1/lines/newTxns')
            expect(stats.status, JSON.stringify(stats.body)).to.equal(503)
            expect(stats.body.code, 'the stats service\'s UNAVAILABLE').to.equal(14)
        } finally {
            await locker.query('ROLLBACK')
            await locker.end()
        }
        expect((await get(`/api/v2/addresses/${miner}/counters`)).status).to.equal(200)
        expect((await get(`/api?module=account&action=balance&address=${miner}`)).body.status).to.equal('1')
        expect((await get('/api/defi/pools')).status).to.equal(200)
        expect((await get('/api/v2/advanced-filters?methods=0xa9059cbb&amount_from=1')).status).to.equal(200)
        expect((await get('/api/v1/lines/newTxns')).status).to.equal(200)
    })

    it('every stats line reads its days by the per-day tables\' primary keys, at every resolution', async () => {
        for (const line of sections({ symbol: 'STABLE', decimals: 6 }).flatMap((x) => x.charts)) {
            for (const resolution of line.resolutions) {
                const source = line.sourceAt?.[resolution] ?? line.source
                const tables = source.split(' FROM ').length - 1
                const what = `${line.id} at ${resolution}`
                for (const [step, run] of [
                    ['periods', (d: Db) => periodFigures(d, source, TRUNC_UNIT[resolution], '2026-01-01', '2026-03-01')],
                    // The explained statement answers no rows, which sumBefore's reading of its one row does not expect.
                    ['before', (d: Db) => (line.aggregate === 'last' ? lastBefore(d, source, '2026-01-01') : sumBefore(d, source, '2026-01-01').catch(() => '0'))],
                ] as const) {
                    const used = await indexesUsed(run)
                    expect(used.length, `${what} (${step}): ${used.join(', ')}`).to.equal(tables)
                    for (const name of used) expect(name, `${what} (${step})`).to.match(/^PK_/)
                }
            }
        }
    })

    it('/addresses/{h}/counters counts mined blocks up to CHAIN_API_VALIDATIONS_COUNT_CAP and reads the rest from the address row', async () => {
        const capped = await get(`/api/v2/addresses/${miner}/counters`)
        expect(capped.body).to.deep.equal({ transactions_count: '7', token_transfers_count: '2', gas_usage_count: '21000', validations_count: '3' })
        const exact = await get(`/api/v2/addresses/${smallMiner}/counters`)
        expect(exact.body).to.deep.equal({ transactions_count: '0', token_transfers_count: '0', gas_usage_count: '0', validations_count: '2' })
    })

    it('/addresses/{h}/token-balances answers the CHAIN_API_TOKEN_BALANCES_MAX largest balances; /tokens pages through all', async () => {
        const capped = await get(`/api/v2/addresses/${holder}/token-balances`)
        expect(capped.status).to.equal(200)
        expect(capped.body.map((b: any) => [b.token.address_hash, b.value])).to.deep.equal([[getAddress(tokens[3]), '400'], [getAddress(tokens[2]), '300']])
        const all = await get(`/api/v2/addresses/${holder}/tokens`)
        expect(all.body.items).to.have.length(4)
    })

    it('an order the API does not back with an index is refused with 422', async () => {
        const res = await get(`/api/v2/addresses/${miner}/transactions?sort=gas_price&order=desc`)
        expect(res.status).to.equal(422)
        expect(res.body.errors[0].source).to.deep.equal({ pointer: '/sort' })
    })

    /** The indexes in the plans Postgres makes for the API's statements; with onlyIndexes, every alternative to an index made unattractive. */
    async function indexesUsed(run: (db: Db) => Promise<unknown>, onlyIndexes = true): Promise<string[]> {
        const client = new Client({ connectionString: databaseUrl })
        await client.connect()
        try {
            if (onlyIndexes) await client.query('SET enable_seqscan = off; SET enable_bitmapscan = off')
            const names: string[] = []
            const explaining: Db = {
                query: async (text, values) => {
                    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values)
                    JSON.stringify(rows[0]['QUERY PLAN'], (key, value) => {
                        if (key === 'Index Name') names.push(value)
                        return value
                    })
                    return { rows: [] } as any
                },
            }
            await run(explaining)
            return names
        } finally {
            await client.end()
        }
    }

    it('every order of an address\'s transactions reads each side from an index in that order', async () => {
        const bySide: Record<string, Record<string, string>> = {
            block_number: { from: 'IDX_607f7872f250772aff26dd13e2', to: 'IDX_5304217e644fc66558b720bd2c' },
            value: { from: 'transaction_from_by_value', to: 'transaction_to_by_value' },
            fee: { from: 'transaction_from_by_fee', to: 'transaction_to_by_fee' },
        }
        for (const sort of ADDRESS_TRANSACTION_SORTS) {
            expect(bySide, `an index for sort=${sort}`).to.have.property(sort)
            for (const order of ['asc', 'desc'] as const) {
                for (const cursor of [{}, { block_number: 3, index: 1, value: 10n, fee: 10n }]) {
                    const used = await indexesUsed((d) => addressTransactionKeys(d, miner, { sort, order, ...cursor }))
                    expect(used, `sort=${sort}&order=${order} ${JSON.stringify(cursor, (_, v) => typeof v === 'bigint' ? String(v) : v)}`)
                        .to.include.members([bySide[sort].from, bySide[sort].to])
                }
            }
        }
    })

    it('an address busy long ago and quiet since reads its side\'s index, not every newer transaction', async () => {
        // 4,000 transactions of `busy` (both sides), then 16,000 newer ones of others: the primary key walked backwards
        // from the head, filtered by address, would read 16,000 rows before the first of busy's.
        const busy = '0x' + '44'.repeat(20)
        const other = (n: string) => `'0x' || lpad(to_hex(${n}), 40, '0')`
        await db.query(
            `INSERT INTO transaction (id, block_number, block_hash, timestamp, index, "from", "to", value, nonce, gas_limit, gas_used,
                                      effective_gas_price, fee, status, input, log_count, token_transfer_count)
             SELECT 'busy-' || n, 1000 + n, '0x', now(), 0, CASE WHEN n <= 4000 THEN $1 ELSE ${other('n')} END,
                    CASE WHEN n <= 4000 THEN $1 ELSE ${other('n + 100000')} END, 0, 0, 21000, 21000, 0, 0, 1, '\\x', 0, 0
             FROM generate_series(1, 20000) n`,
            [busy]
        )
        await db.query('ANALYZE transaction')
        try {
            for (const cursor of [{}, { block_number: 20000, index: 0 }]) {
                const used = await indexesUsed((d) => addressTransactionKeys(d, busy, cursor), false)
                expect(used, JSON.stringify(cursor)).to.include.members(['IDX_607f7872f250772aff26dd13e2', 'IDX_5304217e644fc66558b720bd2c'])
                // The primary key only to fetch the page's rows by position (the outer join), never to find them.
                expect(used.filter((name) => name === 'IDX_1cbb39872f017e9d1168ebb44e'), JSON.stringify(cursor)).to.have.length.at.most(1)
            }
        } finally {
            await db.query(`DELETE FROM transaction WHERE id LIKE 'busy-%'`)
        }
    })

    it('the token list in either order of holder count reads its index', async () => {
        expect(await indexesUsed((d) => tokenList(d, { asc: false, pageSize: 50 }))).to.deep.equal(['token_list_desc'])
        expect(await indexesUsed((d) => tokenList(d, { asc: true, pageSize: 50 }))).to.deep.equal(['token_list_asc'])
    })

    it('token-transfer lists read their indexes from any cursor, one inside an ERC-1155 batch included; NFT lists read theirs', async () => {
        for (const cursor of [{}, { block_number: 3, index: 1 }, { block_number: 3, index: 1, index_in_batch: 2 }]) {
            const what = JSON.stringify(cursor)
            expect(await indexesUsed((d) => addressTransfers(d, holder, cursor)), what).to.include.members(['IDX_e87966ce19d9ff9f5e2098ce4a', 'IDX_a4a0e452ac5a3574ab3cff1d0e'])
            expect(await indexesUsed((d) => tokenTransfers(d, tokens[0], cursor)), what).to.include('IDX_8d13ccbb6ce9531749bb708a28')
            expect(await indexesUsed((d) => instanceTransfers(d, tokens[0], 1n, cursor)), what).to.include('token_transfer_instance')
        }
        for (const type of ['ERC-721', 'ERC-1155']) {
            expect(await indexesUsed((d) => tokenInstances(d, { id: tokens[0], type }, { before: 10n, holder })), type).to.have.length(1)
        }
        expect(await indexesUsed((d) => tokenInstances(d, { id: tokens[0], type: 'ERC-721' }, {}))).to.deep.equal(['IDX_4269e0d34295c77b56da8d0fab'])
        for (const after of [undefined, { value: 5n, holder, tokenId: 3n }]) {
            expect(await indexesUsed((d) => erc1155Holders(d, tokens[0], after)), 'ERC-1155 holders').to.deep.equal(['nft_balance_token_holders'])
        }
        expect(await indexesUsed((d) => addressNfts(d, holder, { types: ['ERC-721', 'ERC-1155'] })))
            .to.include.members(['IDX_6ba744146e54d3cd705e47418b', 'IDX_d354d32af7a959e67a27635f2e'])
        const collections = [{ id: tokens[0], type: 'ERC-721' }, { id: tokens[0], type: 'ERC-1155' }]
        expect(await indexesUsed((d) => collectionPreviews(d, holder, collections, 9)), 'collection previews')
            .to.include.members(['IDX_6ba744146e54d3cd705e47418b', 'IDX_d354d32af7a959e67a27635f2e'])
    })

    it('the Etherscan-style token lists (tokentx, tokennfttx, token1155tx) read each side\'s index by address, the token\'s without one', async () => {
        // 20,000 transfers of 20 senders, 30 recipients and 50 tokens, a tenth ERC-721 and a tenth ERC-1155 batches, so that Postgres plans as on a chain.
        const other = (n: string) => `'0x' || lpad(to_hex(${n}), 40, '0')`
        const type = `CASE WHEN n % 10 = 0 THEN 'ERC-721' WHEN n % 10 = 1 THEN 'ERC-1155' ELSE 'ERC-20' END`
        await db.query(
            `INSERT INTO token_transfer (id, block_number, block_hash, timestamp, log_index, transaction_hash, token, token_type, "from", "to", value, token_id, batch_index)
             SELECT lpad((1000 + n / 3)::text, 10, '0') || '-000000-' || lpad((n % 3)::text, 6, '0'), 1000 + n / 3, '0x', now(), 0, 'es-' || n,
                    ${other('200000 + n % 50')}, ${type}, ${other('n % 20')}, ${other('100000 + n % 30')}, n, n, n % 3
             FROM generate_series(1, 20000) n`)
        await db.query('ANALYZE token_transfer')
        const [sender, token] = ['0x' + (7).toString(16).padStart(40, '0'), '0x' + (200001).toString(16).padStart(40, '0')]
        try {
            for (const standard of ['ERC-20', 'ERC-721', 'ERC-1155'] as const) {
                for (const desc of [true, false]) {
                    for (const w of [{ offset: 0, limit: 10_000, depth: 10_000 }, { offset: 40, limit: 20, depth: 60 }]) {
                        const window = { ...w, desc, from: 0, to: MAX_BLOCK }
                        const what = `${standard} ${JSON.stringify(window)}`
                        expect(await indexesUsed((d) => tokenTransferWindow(d, standard, sender, undefined, window), false), `by address: ${what}`)
                            .to.include.members(['IDX_e87966ce19d9ff9f5e2098ce4a', 'IDX_a4a0e452ac5a3574ab3cff1d0e'])
                        // Both given: each side's index, or the token's when Postgres finds the token's rows fewer; either is an index range.
                        const both = await indexesUsed((d) => tokenTransferWindow(d, standard, sender, token, window), false)
                        const sides = ['IDX_e87966ce19d9ff9f5e2098ce4a', 'IDX_a4a0e452ac5a3574ab3cff1d0e'].every((name) => both.includes(name))
                        expect(sides || both.includes('IDX_8d13ccbb6ce9531749bb708a28'), `by address and token: ${what}: ${both.join(', ')}`).to.equal(true)
                        expect(await indexesUsed((d) => tokenTransferWindow(d, standard, undefined, token, window), false), `by token: ${what}`)
                            .to.include('IDX_8d13ccbb6ce9531749bb708a28')
                    }
                }
            }
        } finally {
            await db.query(`DELETE FROM token_transfer WHERE transaction_hash LIKE 'es-%'`)
        }
    })

    it('the advanced filter reads an index range per address, token or method, and walks chain order by an index without them', async () => {
        const none: AdvancedFilter = {
            kinds: null, tokenTypes: null, methods: null, age: { from: null, to: null }, from: { include: [], exclude: [] }, to: { include: [], exclude: [] },
            relation: 'or', tokens: { include: [], exclude: [], includeNative: false, excludeNative: false }, amount: { from: null, to: null },
        }
        const cursors = [null, { block_number: 15000, transaction_index: 1, internal_transaction_index: null, token_transfer_index: 4, token_transfer_batch_index: 2 },
            { block_number: 15000, transaction_index: 1, internal_transaction_index: 5, token_transfer_index: null, token_transfer_batch_index: null }]
        // Addresses of the rows inserted below: each is on both sides of some rows.
        const [a, b] = [7, 100007].map((n) => '0x' + n.toString(16).padStart(40, '0'))
        const cases: [string, Partial<AdvancedFilter>, string[]][] = [
            ['no filter', {}, ['IDX_1cbb39872f017e9d1168ebb44e', 'PK_a260e6e5fee2f818eb8808f9964', 'PK_77384b7f5874553f012eba9da41']],
            ['from', { from: { include: [a, b], exclude: [] } }, ['IDX_607f7872f250772aff26dd13e2', 'internal_transaction_from', 'IDX_e87966ce19d9ff9f5e2098ce4a']],
            ['to', { to: { include: [b], exclude: [] } }, ['IDX_5304217e644fc66558b720bd2c', 'internal_transaction_to', 'IDX_a4a0e452ac5a3574ab3cff1d0e']],
            ['from or to', { from: { include: [a], exclude: [] }, to: { include: [b], exclude: [] } },
                ['IDX_607f7872f250772aff26dd13e2', 'IDX_5304217e644fc66558b720bd2c', 'internal_transaction_from', 'internal_transaction_to']],
            ['tokens', { tokens: { include: ['0x' + (200001).toString(16).padStart(40, '0')], exclude: [], includeNative: false, excludeNative: false } },
                ['IDX_8d13ccbb6ce9531749bb708a28']],
            ['methods', { methods: ['0x00000007', '0x00000008'] }, ['transaction_method']],
            ['an age and an amount', { age: { from: new Date(0), to: new Date() }, amount: { from: '1', to: '2' } },
                ['IDX_1cbb39872f017e9d1168ebb44e', 'PK_a260e6e5fee2f818eb8808f9964', 'PK_77384b7f5874553f012eba9da41']],
        ]
        // EXPLAIN returns no rows: the age's blocks are made up, so that the sources are explained too.
        const withBlocks = (d: Db): Db => ({
            query: async (text, values) => {
                const result = await d.query(text, values)
                return text.startsWith('SELECT number FROM block') ? { ...result, rows: [{ number: 5 }] } : result
            },
        })
        expect(await indexesUsed((d) => advancedFilterPage(withBlocks(d), { ...none, age: { from: new Date(0), to: null } }, null, 50)))
            .to.include('IDX_5c67cbcf4960c1a39e5fe25e87')
        // 20,000 rows of each kind, so that Postgres plans as it would on a chain (an empty table makes any index as cheap as another).
        const other = (n: string) => `'0x' || lpad(to_hex(${n}), 40, '0')`
        await db.query(
            `INSERT INTO transaction (id, block_number, block_hash, timestamp, index, "from", "to", value, nonce, gas_limit, gas_used,
                                      effective_gas_price, fee, status, input, method_id, log_count, token_transfer_count)
             SELECT 'af-' || n, 1000 + n, '0x', now(), 0, ${other('n % 20')}, ${other('100000 + n % 30')}, n, 0, 21000, 21000, 1, 21000, 1, '\\x',
                    '0x' || lpad(to_hex(n % 10), 8, '0'), 1, 1
             FROM generate_series(1, 20000) n`)
        await db.query(
            `INSERT INTO internal_transaction (id, block_number, block_hash, timestamp, transaction_hash, transaction_index, index, trace_address, type,
                                               "from", "to", value)
             SELECT lpad((1000 + n)::text, 10, '0') || '-000000-000001', 1000 + n, '0x', now(), 'af-' || n, 0, 1, '{0}', 'call',
                    ${other('100000 + n % 30')}, ${other('n % 20')}, n
             FROM generate_series(1, 20000) n`)
        await db.query(
            `INSERT INTO token_transfer (id, block_number, block_hash, timestamp, log_index, transaction_hash, token, token_type, "from", "to", value)
             SELECT lpad((1000 + n)::text, 10, '0') || '-000000', 1000 + n, '0x', now(), 0, 'af-' || n, ${other('200000 + n % 50')}, 'ERC-20',
                    ${other('n % 20')}, ${other('100000 + n % 30')}, n
             FROM generate_series(1, 20000) n`)
        await db.query('ANALYZE transaction; ANALYZE internal_transaction; ANALYZE token_transfer')
        try {
            for (const [what, filter, indexes] of cases) {
                for (const cursor of cursors) {
                    const used = await indexesUsed((d) => advancedFilterPage(withBlocks(d), { ...none, ...filter }, cursor, 50), false)
                    expect(used, `${what} ${JSON.stringify(cursor)}`).to.include.members(indexes)
                }
            }
        } finally {
            await db.query(`DELETE FROM transaction WHERE id LIKE 'af-%'`)
            await db.query(`DELETE FROM internal_transaction WHERE transaction_hash LIKE 'af-%'`)
            await db.query(`DELETE FROM token_transfer WHERE transaction_hash LIKE 'af-%'`)
        }
    })
})
