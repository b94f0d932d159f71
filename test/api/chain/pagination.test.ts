import { expect } from 'chai'
import { getAddress } from 'viem'
import { Stack } from '../../support/stack'
import { StoredTransactionRow } from '../../../api/chain/queries/transactions'
import {
    BLOCK_COLUMNS, checksum, expect422, expectBlock, expectLog, expectSameSequence, expectToken, expectTokenTransfer,
    expectTransaction, LOG_COLUMNS, loadTruth, stack, Truth, TT_COLUMNS, TX_COLUMNS, v2, walk, ZERO_ADDRESS,
} from './helpers'
import * as S from './shapes'

/**
 * Every paginated list walked to its end, following next_page_params the way the frontend does,
 * and compared with the database in order: no gaps, no duplicates, every item field by field.
 * Orders are Blockscout's (backend Chain/TokenBalance/Token modules, read through the search tool):
 * - /blocks: height desc; /transactions, address transactions/logs/token transfers, token
 *   transfers: (block_number, index) desc;
 * - /blocks/{x}/transactions, /transactions/{h}/logs, /transactions/{h}/token-transfers: index asc;
 * - /tokens/{h}/holders: value desc, address_hash desc (burn address and zero balances excluded);
 * - /tokens: circulating_market_cap desc nulls last, fiat_value desc nulls last, holder_count desc,
 *   name asc (nulls last), contract_address_hash asc — here no market data, so the last three.
 */
describe('chain API: pagination walks', function () {
    this.timeout(600_000)
    let s: Stack
    let truth: Truth

    before(async () => {
        s = await stack()
    })
    beforeEach(async () => {
        truth = await loadTruth(s.db)
    })

    async function txRows(where: string, params: unknown[], order: string): Promise<StoredTransactionRow[]> {
        return (await s.db.query(`SELECT ${TX_COLUMNS} FROM transaction WHERE ${where} ORDER BY ${order}`, params)).rows
    }

    function checkTransactions(items: S.TransactionListItem[], rows: StoredTransactionRow[], what: string) {
        expectSameSequence(items.map((t) => t.hash), rows.map((r) => r.id), what)
        items.forEach((item, i) => expectTransaction(item, rows[i], truth, `${what}[${i}]`))
    }

    it('/blocks: every block, height descending, each equal to its row', async () => {
        const rows = (await s.db.query(`SELECT ${BLOCK_COLUMNS} FROM block ORDER BY number DESC`)).rows
        expect(rows.length).to.be.greaterThan(150)
        const { items, pages, cursors } = await walk('/blocks', S.BlockListItem, { keys: ['block_number', 'items_count'], itemsCount: true })
        expect(pages).to.be.greaterThan(2)
        expectSameSequence(items.map((b) => b.hash), rows.map((r) => r.id), '/blocks')
        items.forEach((item, i) => expectBlock(item, rows[i], truth, `/blocks[${i}]`))
        // The cursor is the last block of the page, as an integer.
        expect(cursors[0].block_number).to.equal(items[49].height)
    })

    it('/transactions: every validated transaction, (block, index) descending', async () => {
        const rows = await txRows('true', [], 'block_number DESC, index DESC')
        expect(rows.length).to.be.greaterThan(200)
        const { items, cursors } = await walk('/transactions', S.TransactionListItem, { keys: ['block_number', 'index', 'items_count'], itemsCount: true })
        checkTransactions(items, rows, '/transactions')
        expect(cursors[0]).to.include({ block_number: items[49].block_number, index: items[49].position })
    })

    it('/transactions?filter=validated is the default list; filter=pending is empty (nothing pending on an automining devnet)', async () => {
        const first = await v2('/transactions')
        const validated = await v2('/transactions', { filter: 'validated' })
        expect(validated.status).to.equal(200)
        expect(validated.body.items.map((t: any) => t.hash)).to.deep.equal(first.body.items.map((t: any) => t.hash))
        const pending = await v2('/transactions', { filter: 'pending' })
        expect(pending.status, pending.text).to.equal(200)
        expect(pending.body).to.deep.equal({ items: [], next_page_params: null })
    })

    it('/blocks/{n}/transactions: a block of 60 transactions over two pages, index ascending (by number and by hash)', async () => {
        const { number, hash } = s.extras.bigBlock
        const rows = await txRows('block_number = $1', [number], 'index ASC')
        expect(rows).to.have.length(60)
        for (const id of [String(number), hash]) {
            const { items, pages, cursors } = await walk(`/blocks/${id}/transactions`, S.TransactionListItem, { keys: ['block_number', 'index', 'items_count'], itemsCount: true })
            expect(pages, id).to.equal(2)
            checkTransactions(items, rows, `/blocks/${id}/transactions`)
            expect(cursors[0]).to.include({ block_number: number, index: 49 })
        }
    })

    it('/addresses/{h}/transactions: all, filter=from and filter=to of a busy trader; a 62-transaction sender', async () => {
        const trader = s.account(10).address.toLowerCase()
        const keys = ['block_number', 'index', 'inserted_at', 'hash', 'value', 'fee', 'items_count']
        const order = 'block_number DESC, index DESC'
        const cases: [string, Record<string, string>, string, unknown[]][] = [
            [trader, {}, `"from" = $1 OR "to" = $1 OR created_contract = $1`, [trader]],
            [trader, { filter: 'from' }, `"from" = $1`, [trader]],
            [trader, { filter: 'to' }, `"to" = $1 OR created_contract = $1`, [trader]],
            [s.account(1).address.toLowerCase(), {}, `"from" = $1 OR "to" = $1 OR created_contract = $1`, [s.account(1).address.toLowerCase()]],
        ]
        for (const [address, query, where, params] of cases) {
            const rows = await txRows(where, params, order)
            expect(rows.length, `${address} ${JSON.stringify(query)} rows`).to.be.greaterThan(0)
            for (const form of [address, checksum(address)]) {
                const what = `/addresses/${form}/transactions ${JSON.stringify(query)}`
                const { items } = await walk(`/addresses/${form}/transactions`, S.TransactionListItem, { query, keys, itemsCount: true })
                checkTransactions(items, rows, what)
            }
        }
        const payerRows = await txRows(`"from" = $1`, [s.account(1).address.toLowerCase()], order)
        expect(payerRows.length, 'the payer sent more than 50 transactions').to.be.greaterThan(50)
    })

    it('/addresses/{h}/logs: every log STABLE emitted, (block, index) descending', async () => {
        const stable = s.tokens.STABLE.toLowerCase()
        const rows = (await s.db.query(`SELECT ${LOG_COLUMNS} FROM log l JOIN block b ON b.number = l.block_number
            JOIN transaction tx ON tx.id = l.transaction_hash WHERE l.address = $1 ORDER BY l.block_number DESC, l.index DESC`, [stable])).rows
        expect(rows.length).to.be.greaterThan(100)
        const { items } = await walk(`/addresses/${s.tokens.STABLE}/logs`, S.Log, { keys: ['block_number', 'index', 'items_count'], itemsCount: true })
        expectSameSequence(items.map((l) => `${l.block_number}:${l.index}`), rows.map((r) => `${r.block_number}:${r.index}`), '/addresses/STABLE/logs')
        items.forEach((item, i) => expectLog(item, rows[i], truth, `/addresses/STABLE/logs[${i}]`))
    })

    async function transferRows(where: string, params: unknown[], order: string) {
        return (await s.db.query(`SELECT ${TT_COLUMNS} FROM token_transfer t WHERE ${where} ORDER BY ${order}`, params)).rows
    }
    async function txById(ids: string[]): Promise<Map<string, StoredTransactionRow>> {
        const rows = await txRows('id = ANY($1)', [ids], 'id')
        return new Map(rows.map((r) => [r.id, r]))
    }

    it('/addresses/{h}/token-transfers: every transfer from or to the deployer, (block, log index) descending', async () => {
        const deployer = s.account(0).address.toLowerCase()
        const rows = await transferRows(`t."from" = $1 OR t."to" = $1`, [deployer], 't.block_number DESC, t.log_index DESC')
        expect(rows.length).to.be.greaterThan(100)
        const txs = await txById([...new Set(rows.map((r) => r.transaction_hash))])
        const { items, cursors } = await walk(`/addresses/${checksum(deployer)}/token-transfers`, S.TokenTransfer, { keys: ['block_number', 'index'] })
        expectSameSequence(items.map((t) => `${t.block_number}:${t.log_index}`), rows.map((r) => `${r.block_number}:${r.log_index}`), '/addresses/deployer/token-transfers')
        // Blockscout's token-transfer cursor (token_transfers_next_page_params): no items_count.
        for (const cursor of cursors) expect(Object.keys(cursor).sort()).to.deep.equal(['block_number', 'index'])
        items.forEach((item, i) => expectTokenTransfer(item, rows[i], txs.get(rows[i].transaction_hash)!, truth, `/addresses/deployer/token-transfers[${i}]`))
    })

    it('/tokens: every token, holders descending then name then address, across the null-name token', async () => {
        const rows = (await s.db.query(`SELECT id, type, name, symbol, decimals, total_supply::text, holder_count, transfer_count FROM token
            ORDER BY holder_count DESC, name ASC NULLS LAST, id ASC`)).rows
        expect(rows.length).to.be.greaterThan(50)
        const { items, cursors } = await walk('/tokens', S.Token, {
            keys: ['contract_address_hash', 'market_cap', 'holders_count', 'name', 'is_name_null', 'fiat_value', 'items_count'], itemsCount: true,
        })
        expectSameSequence(items.map((t) => t.address_hash), rows.map((r) => checksum(r.id)), '/tokens')
        items.forEach((item, i) => expectToken(item, rows[i], `/tokens[${i}]`))
        // holders_count is a number (or null) in the cursor, names strings, is_name_null a bool.
        expect(cursors[0].holders_count).to.equal(rows[49].holder_count)
        expect(cursors[0].is_name_null).to.equal(rows[49].name === null)
        expect(cursors[0].contract_address_hash).to.be.oneOf([rows[49].id, checksum(rows[49].id)])
    })

    it('/tokens/{h}/holders: every STABLE holder (more than 50, many with equal balances), value then address descending', async () => {
        const stable = s.tokens.STABLE.toLowerCase()
        const rows = (await s.db.query(`SELECT b.holder, b.value::text AS value FROM token_balance b WHERE b.token = $1 AND b.value > 0 AND b.holder <> $2
            ORDER BY b.value DESC, b.holder DESC`, [stable, ZERO_ADDRESS])).rows
        expect(rows.length).to.be.greaterThan(60)
        const { items, cursors } = await walk(`/tokens/${s.tokens.STABLE}/holders`, S.Holder, { keys: ['address_hash', 'value', 'items_count'], itemsCount: true })
        expectSameSequence(items.map((h) => h.address.hash), rows.map((r) => checksum(r.holder)), '/tokens/STABLE/holders')
        items.forEach((item, i) => {
            expect(item.value, `holders[${i}].value`).to.equal(rows[i].value)
            expect(item.token_id, `holders[${i}].token_id`).to.equal(null)
        })
        expect(cursors[0].value).to.equal(rows[49].value)
    })

    it('/tokens/{h}/transfers: every STABLE transfer, (block, log index) descending', async () => {
        const stable = s.tokens.STABLE.toLowerCase()
        const rows = await transferRows('t.token = $1', [stable], 't.block_number DESC, t.log_index DESC')
        expect(rows.length).to.be.greaterThan(100)
        const txs = await txById([...new Set(rows.map((r) => r.transaction_hash))])
        const { items, cursors } = await walk(`/tokens/${s.tokens.STABLE}/transfers`, S.TokenTransfer, { keys: ['block_number', 'index'] })
        expectSameSequence(items.map((t) => `${t.block_number}:${t.log_index}`), rows.map((r) => `${r.block_number}:${r.log_index}`), '/tokens/STABLE/transfers')
        items.forEach((item, i) => expectTokenTransfer(item, rows[i], txs.get(rows[i].transaction_hash)!, truth, `/tokens/STABLE/transfers[${i}]`))
        expect(cursors[0]).to.deep.equal({ block_number: items[49].block_number, index: items[49].log_index })
    })

    it('/transactions/{h}/logs and /token-transfers: a transaction with 60 of each, index ascending', async () => {
        const hash = s.extras.disperse.transactionHash
        const logRows = (await s.db.query(`SELECT ${LOG_COLUMNS} FROM log l JOIN block b ON b.number = l.block_number
            JOIN transaction tx ON tx.id = l.transaction_hash WHERE l.transaction_hash = $1 ORDER BY l.index ASC`, [hash])).rows
        expect(logRows).to.have.length(60)
        const logs = await walk(`/transactions/${hash}/logs`, S.Log, { keys: ['block_number', 'index', 'items_count'], itemsCount: true })
        expect(logs.pages).to.equal(2)
        expectSameSequence(logs.items.map((l) => String(l.index)), logRows.map((r) => String(r.index)), '/transactions/{h}/logs')
        logs.items.forEach((item, i) => expectLog(item, logRows[i], truth, `/transactions/{h}/logs[${i}]`))

        const ttRows = await transferRows('t.transaction_hash = $1', [hash], 't.log_index ASC')
        expect(ttRows).to.have.length(60)
        const tx = (await txById([hash])).get(hash)!
        const transfers = await walk(`/transactions/${hash}/token-transfers`, S.TokenTransfer, { keys: ['block_number', 'index'] })
        expect(transfers.pages).to.equal(2)
        expectSameSequence(transfers.items.map((t) => String(t.log_index)), ttRows.map((r) => String(r.log_index)), '/transactions/{h}/token-transfers')
        transfers.items.forEach((item, i) => expectTokenTransfer(item, ttRows[i], tx, truth, `/transactions/{h}/token-transfers[${i}]`))
        expect(transfers.items.every((t) => t.method === 'disperseToken')).to.equal(true)
    })

    /**
     * [choice] The reference says items_count is "the number of items returned so far", and also that the
     * accepted range is 1..50: a running total would fail that validation from page 3 on. Current
     * Blockscout (BlockScoutWeb.Chain.next_page_params/5, increment_items_count? = false by
     * default) puts the page's own item count there, so that is what is checked: an integer, 50 on
     * a full page, which the server takes back on the next request.
     */
    it('next_page_params.items_count is the page\'s item count (an integer in 1..50), on every list that has it', async () => {
        const mismatches: string[] = []
        const lists: [string, any, string[], Record<string, unknown>?][] = [
            ['/blocks', S.BlockListItem, ['block_number', 'items_count']],
            ['/transactions', S.TransactionListItem, ['block_number', 'index', 'items_count']],
            [`/blocks/${s.extras.bigBlock.number}/transactions`, S.TransactionListItem, ['block_number', 'index', 'items_count']],
            [`/addresses/${s.account(1).address}/transactions`, S.TransactionListItem, ['block_number', 'index', 'items_count']],
            [`/addresses/${s.tokens.STABLE}/logs`, S.Log, ['block_number', 'index', 'items_count']],
            ['/tokens', S.Token, ['items_count']],
            [`/tokens/${s.tokens.STABLE}/holders`, S.Holder, ['items_count']],
            [`/transactions/${s.extras.disperse.transactionHash}/logs`, S.Log, ['items_count']],
        ]
        for (const [path, item, keys, query] of lists) {
            const result = await walk(path, item, { keys, itemsCount: true, query })
            expect(result.pages, `${path} has several pages`).to.be.greaterThan(1)
            mismatches.push(...result.itemsCountMismatches)
        }
        expect(mismatches, mismatches.join('\n')).to.deep.equal([])
    })

    it('a walk stays consistent while new blocks arrive: /blocks, /transactions, /addresses/{h}/transactions', async () => {
        const payer = s.account(1)
        const recipient = s.account(2).address
        const sendOne = async () => {
            await s.send(payer, { to: recipient, value: 1n, gas: 21_000n })
        }
        const blocks = (await s.db.query('SELECT id FROM block ORDER BY number DESC')).rows.map((r) => r.id)
        const walkedBlocks = await walk('/blocks', S.BlockListItem, { keys: ['block_number', 'items_count'], itemsCount: true, afterPage: async (p) => { if (p <= 2) await sendOne() } })
        expectSameSequence(walkedBlocks.items.map((b) => b.hash), blocks, '/blocks walked while blocks arrive')

        const txs = (await txRows('true', [], 'block_number DESC, index DESC')).map((r) => r.id)
        const walkedTxs = await walk('/transactions', S.TransactionListItem, { keys: ['block_number', 'index', 'items_count'], itemsCount: true, afterPage: async (p) => { if (p <= 2) await sendOne() } })
        expectSameSequence(walkedTxs.items.map((t) => t.hash), txs, '/transactions walked while blocks arrive')

        const mine = payer.address.toLowerCase()
        const payerTxs = (await txRows(`"from" = $1 OR "to" = $1 OR created_contract = $1`, [mine], 'block_number DESC, index DESC')).map((r) => r.id)
        const walkedPayer = await walk(`/addresses/${payer.address}/transactions`, S.TransactionListItem, {
            keys: ['block_number', 'index', 'inserted_at', 'hash', 'value', 'fee', 'items_count'], itemsCount: true, afterPage: async (p) => { if (p === 1) await sendOne() },
        })
        expectSameSequence(walkedPayer.items.map((t) => t.hash), payerTxs, '/addresses/{payer}/transactions walked while the payer sends')
    })

    it('/addresses/{h}/tokens?type=ERC-20 and ERC-721: the holder\'s balances, and the NFT with its token instance', async () => {
        const holder = s.account(3).address
        const rows = (await s.db.query(`SELECT b.token, b.value::text FROM token_balance b JOIN token t ON t.id = b.token
            WHERE b.holder = $1 AND b.value > 0 AND t.type = 'ERC-20'`, [holder.toLowerCase()])).rows
        expect(rows.length).to.be.greaterThan(1)
        const { items } = await walk(`/addresses/${holder}/tokens`, S.AddressTokenItem, { query: { type: 'ERC-20' }, keys: ['value', 'items_count'], itemsCount: true })
        const got = items.map((i) => `${i.token.address_hash}:${i.value}`).sort()
        expect(got).to.deep.equal(rows.map((r) => `${checksum(r.token)}:${r.value}`).sort())
        expect(items.every((i) => i.token.type === 'ERC-20' && i.token_id === null)).to.equal(true)

        const nfts = await walk(`/addresses/${holder}/tokens`, S.AddressTokenItem, { query: { type: 'ERC-721' }, keys: ['items_count'] })
        const nft = nfts.items.find((i) => i.token.address_hash === getAddress(s.extras.nft.address))
        expect(nft, 'the DemoNft balance').to.not.equal(undefined)
        expect(nft!.value).to.equal('1')
        expect(nft!.token.type).to.equal('ERC-721')
    })

    it('/search?q= over more than one page: every matching token once, by name (equal holders)', async () => {
        const rows = (await s.db.query(`SELECT id, name FROM token WHERE name LIKE 'Filler Token %' ORDER BY name`)).rows
        expect(rows).to.have.length(55)
        // The cursor is a flat map whose keys are sent back verbatim; its keys are not checked.
        const { items, pages } = await walk('/search', S.SearchItem, { query: { q: 'filler' }, keys: [] })
        expect(pages).to.equal(2)
        const tokens = items.filter((i): i is Extract<S.SearchItem, { type: 'token' }> => i.type === 'token')
        expect(tokens.length, 'only the filler tokens match').to.equal(items.length)
        expectSameSequence(tokens.map((t) => t.address_hash), rows.map((r) => checksum(r.id)), '/search?q=filler')
    })

    /**
     * [choice] next_page_params carries the request's own filters as sent (Blockscout drops some of
     * them, the frontend re-adds its own), so a client that follows next_page_params alone stays in
     * the filtered list. Each list is walked twice, with its filters on every page and with the
     * cursor alone after the first: the same items, and every cursor holds the filters.
     */
    it('next_page_params carries the request\'s filters: a walk by the cursor alone is the filtered walk', async () => {
        const payer = s.account(1).address
        const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
        const lists: [string, any, Record<string, string>, (item: any) => string][] = [
            ['/blocks', S.BlockListItem, { type: 'block' }, (b) => b.hash],
            ['/transactions', S.TransactionListItem, { filter: 'validated' }, (t) => t.hash],
            [`/blocks/${s.extras.bigBlock.number}/transactions`, S.TransactionListItem, { type: 'coin_transfer,token_transfer,contract_call,contract_creation' }, (t) => t.hash],
            [`/addresses/${payer}/transactions`, S.TransactionListItem, { filter: 'from', sort: 'block_number', order: 'desc' }, (t) => t.hash],
            [`/addresses/${s.account(0).address}/token-transfers`, S.TokenTransfer, { type: 'ERC-20', filter: 'from' }, (t) => `${t.block_number}:${t.log_index}`],
            [`/addresses/${s.tokens.STABLE}/logs`, S.Log, { topic: TRANSFER_TOPIC }, (l) => `${l.block_number}:${l.index}`],
            ['/tokens', S.Token, { type: 'ERC-20', sort: 'holders_count', order: 'desc' }, (t) => t.address_hash],
            ['/tokens', S.Token, { q: 'filler' }, (t) => t.address_hash],
            [`/transactions/${s.extras.disperse.transactionHash}/token-transfers`, S.TokenTransfer, { type: 'ERC-20' }, (t) => String(t.log_index)],
        ]
        for (const [path, item, query, id] of lists) {
            const what = `${path}?${new URLSearchParams(query)}`
            const filtered = await walk(path, item, { query, keys: Object.keys(query) })
            expect(filtered.pages, `${what} has several pages`).to.be.greaterThan(1)
            for (const cursor of filtered.cursors) {
                for (const [key, value] of Object.entries(query)) expect(cursor[key], `${what}: next_page_params.${key}`).to.equal(value)
            }
            const byCursor = await walk(path, item, { query, keys: Object.keys(query), cursorOnly: true })
            expectSameSequence(byCursor.items.map(id), filtered.items.map(id), `${what} followed by the cursor alone`)
        }
    })

    it('/addresses/{h}/logs: the cursor is Blockscout\'s log cursor, {block_number, index, items_count}, and resumes inside a block', async () => {
        const stable = s.tokens.STABLE.toLowerCase()
        const rows = (await s.db.query(`SELECT block_number, index FROM log WHERE address = $1 ORDER BY block_number DESC, index DESC`, [stable])).rows
        // The disperse transaction's 60 STABLE logs share one block: some page boundary falls inside it.
        const { items, cursors } = await walk(`/addresses/${s.tokens.STABLE}/logs`, S.Log, { keys: ['block_number', 'index', 'items_count'], itemsCount: true })
        for (const cursor of cursors) expect(Object.keys(cursor).sort()).to.deep.equal(['block_number', 'index', 'items_count'])
        const inside = cursors.filter((c) => rows.some((r) => r.block_number === c.block_number && r.index < (c.index as number)))
        expect(inside.length, 'a cursor inside a block with more logs after it').to.be.greaterThan(0)
        expectSameSequence(items.map((l) => `${l.block_number}:${l.index}`), rows.map((r) => `${r.block_number}:${r.index}`), '/addresses/STABLE/logs')
    })

    describe('malformed pagination parameters answer 422', () => {
        const address = () => s.account(10).address
        const cases: [string, () => string, Record<string, string>][] = [
            ['non-integer block_number', () => '/blocks', { block_number: 'abc', items_count: '50' }],
            ['fractional block_number', () => '/blocks', { block_number: '1.5', items_count: '50' }],
            ['negative block_number', () => '/transactions', { block_number: '-3', index: '0', items_count: '50' }],
            ['items_count 0', () => '/blocks', { block_number: '10', items_count: '0' }],
            ['items_count 51', () => '/transactions', { block_number: '10', index: '0', items_count: '51' }],
            ['items_count garbage', () => '/blocks', { block_number: '10', items_count: 'many' }],
            ['garbage index', () => '/transactions', { block_number: '10', index: 'first', items_count: '50' }],
            ['garbage index (block transactions)', () => `/blocks/${s.extras.bigBlock.number}/transactions`, { block_number: '10', index: 'x', items_count: '50' }],
            ['garbage index (address transactions)', () => `/addresses/${address()}/transactions`, { block_number: '10', index: '[]', items_count: '50' }],
            ['garbage index (address logs)', () => `/addresses/${address()}/logs`, { block_number: '10', index: 'x', items_count: '50' }],
            ['garbage index (address token transfers)', () => `/addresses/${address()}/token-transfers`, { block_number: '10', index: 'x' }],
            ['garbage value (holders)', () => `/tokens/${s.tokens.STABLE}/holders`, { address_hash: '0x000000000000000000000000000000000000dEaD', value: 'lots', items_count: '50' }],
            ['garbage address_hash (holders)', () => `/tokens/${s.tokens.STABLE}/holders`, { address_hash: '0x12', value: '5', items_count: '50' }],
            ['garbage index (token transfers)', () => `/tokens/${s.tokens.STABLE}/transfers`, { block_number: '10', index: 'x' }],
            ['garbage index (tx logs)', () => `/transactions/${s.extras.disperse.transactionHash}/logs`, { block_number: '10', index: 'x', items_count: '50' }],
            ['garbage holders_count (tokens)', () => '/tokens', { contract_address_hash: '0x000000000000000000000000000000000000dEaD', holders_count: 'some', name: 'a', is_name_null: 'false', items_count: '50' }],
        ]
        for (const [name, path, query] of cases) {
            it(name, async () => {
                await expect422(path(), query)
            })
        }
    })
})
