import { expect } from 'chai'
import { getAddress } from 'viem'
import { Stack } from '../../support/stack'
import {
    BLOCK_COLUMNS, expect404, expect422, expectBlock, expectEmptyPage, expectTransaction, getOk, iso, loadTruth, stack, TX_COLUMNS, unknownHash, v2,
} from './helpers'
import * as S from './shapes'

describe('chain API: /blocks', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    async function blockRow(number: number) {
        return (await s.db.query(`SELECT ${BLOCK_COLUMNS} FROM block WHERE number = $1`, [number])).rows[0]
    }

    it('/blocks/{number} equals eth_getBlockByNumber and the row, field by field (genesis, a seeded block, the 60-transaction block, the head)', async () => {
        const truth = await loadTruth(s.db)
        // A block of the seeded history with a few transactions (not the 60-transaction one).
        const seeded = (await s.db.query('SELECT number FROM block WHERE transaction_count BETWEEN 3 AND 20 ORDER BY number DESC LIMIT 1')).rows[0].number
        for (const number of [0, seeded, s.extras.bigBlock.number, truth.head]) {
            const what = `/blocks/${number}`
            const block = await getOk(`/blocks/${number}`, S.BlockSingle)
            const chain = await s.client.getBlock({ blockNumber: BigInt(number) })
            expect(block.height, `${what}.height`).to.equal(Number(chain.number))
            expect(block.hash, `${what}.hash`).to.equal(chain.hash)
            expect(block.parent_hash, `${what}.parent_hash`).to.equal(chain.parentHash)
            expect(block.miner.hash, `${what}.miner`).to.equal(getAddress(chain.miner))
            expect(block.gas_used, `${what}.gas_used`).to.equal(chain.gasUsed.toString())
            expect(block.gas_limit, `${what}.gas_limit`).to.equal(chain.gasLimit.toString())
            expect(block.base_fee_per_gas, `${what}.base_fee_per_gas`).to.equal(chain.baseFeePerGas?.toString() ?? null)
            expect(block.size, `${what}.size`).to.equal(Number(chain.size))
            expect(block.nonce, `${what}.nonce`).to.equal(chain.nonce)
            expect(block.difficulty, `${what}.difficulty`).to.equal(chain.difficulty.toString())
            expect(block.timestamp, `${what}.timestamp`).to.equal(iso(new Date(Number(chain.timestamp) * 1000)))
            expect(block.transactions_count, `${what}.transactions_count`).to.equal(chain.transactions.length)
            expectBlock(block, await blockRow(number), truth, what)
        }
    })

    it('/blocks/{x}: extra_data is the header\'s, state_root the stored one (null for a block indexed before it was kept)', async () => {
        const number = s.extras.bigBlock.number
        const chain = await s.client.getBlock({ blockNumber: BigInt(number) })
        const { rows: [saved] } = await s.db.query('SELECT extra_data, state_root FROM block WHERE number = $1', [number])
        try {
            await s.db.query('UPDATE block SET state_root = NULL WHERE number = $1', [number])
            const old = await getOk(`/blocks/${number}`, S.BlockSingle)
            expect(old.extra_data).to.equal(chain.extraData)
            expect(old.extra_data).to.equal(saved.extra_data)
            expect(old.state_root).to.equal(null)
            await s.db.query('UPDATE block SET state_root = $2 WHERE number = $1', [number, chain.stateRoot])
            const kept = await getOk(`/blocks/${s.extras.bigBlock.hash}`, S.BlockSingle)
            expect(kept.state_root).to.equal(chain.stateRoot)
            expect(kept.extra_data).to.equal(chain.extraData)
        } finally {
            await s.db.query('UPDATE block SET state_root = $2 WHERE number = $1', [number, saved.state_root])
        }
        // Lists do not carry them, as Blockscout's list items do not.
        const list = await v2('/blocks')
        expect(list.body.items[0]).to.not.have.property('extra_data')
        expect(list.body.items[0]).to.not.have.property('state_root')
    })

    it('/blocks/{hash} answers the same block as /blocks/{number}, in either hash case', async () => {
        const number = s.extras.bigBlock.number
        const byNumber = await getOk(`/blocks/${number}`, S.BlockSingle)
        const byHash = await getOk(`/blocks/${s.extras.bigBlock.hash}`, S.BlockSingle)
        expect(byHash).to.deep.equal(byNumber)
        const upper = `0x${s.extras.bigBlock.hash.slice(2).toUpperCase()}`
        expect((await getOk(`/blocks/${upper}`, S.BlockSingle)).hash).to.equal(s.extras.bigBlock.hash)
    })

    it('/blocks: the list variant, 50 newest first; type=block is the default, uncle and reorg are empty lists', async () => {
        const truth = await loadTruth(s.db)
        const page = await getOk('/blocks', S.page(S.BlockListItem))
        const rows = (await s.db.query(`SELECT ${BLOCK_COLUMNS} FROM block ORDER BY number DESC LIMIT 50`)).rows
        expect(page.items.map((b) => b.height)).to.deep.equal(rows.map((r) => r.number))
        page.items.forEach((b, i) => expectBlock(b, rows[i], truth, `/blocks[${i}]`))
        expect(page.next_page_params).to.deep.equal({ block_number: rows[49].number, items_count: 50 })
        const typed = await getOk('/blocks', S.page(S.BlockListItem), { type: 'block' })
        expect(typed.items.map((b) => b.hash)).to.deep.equal(page.items.map((b) => b.hash))
        await expectEmptyPage('/blocks', { type: 'uncle' })
        await expectEmptyPage('/blocks', { type: 'reorg' })
    })

    it('/blocks/{n}/transactions: type filters (token_transfer, coin_transfer, contract_call) select the matching transactions', async () => {
        const truth = await loadTruth(s.db)
        // A seeded block mixing swaps (token transfers), coin transfers and calls.
        const { rows: [pick] } = await s.db.query(`SELECT block_number FROM transaction GROUP BY block_number
            HAVING bool_or(token_transfer_count > 0) AND bool_or(token_transfer_count = 0) ORDER BY count(*) DESC, block_number LIMIT 1`)
        const n = pick.block_number
        const rows = (await s.db.query(`SELECT ${TX_COLUMNS} FROM transaction WHERE block_number = $1 ORDER BY index`, [n])).rows
        const all = await getOk(`/blocks/${n}/transactions`, S.page(S.TransactionListItem))
        expect(all.items.map((t) => t.hash)).to.deep.equal(rows.map((r) => r.id))
        all.items.forEach((t, i) => expectTransaction(t, rows[i], truth, `/blocks/${n}/transactions[${i}]`))
        const byType = async (type: string) => (await getOk(`/blocks/${n}/transactions`, S.page(S.TransactionListItem), { type })).items.map((t) => t.hash)
        expect(await byType('token_transfer'), 'type=token_transfer').to.deep.equal(rows.filter((r) => r.token_transfer_count > 0).map((r) => r.id))
        expect(await byType('coin_transfer'), 'type=coin_transfer').to.deep.equal(rows.filter((r) => BigInt(r.value) > 0n).map((r) => r.id))
        expect(await byType('contract_call'), 'type=contract_call').to.deep.equal(rows.filter((r) => r.to && truth.isContract.get(r.to)).map((r) => r.id))
        expect(await byType('token_transfer,coin_transfer'), 'type=token_transfer,coin_transfer')
            .to.deep.equal(rows.filter((r) => r.token_transfer_count > 0 || BigInt(r.value) > 0n).map((r) => r.id))
    })

    it('/blocks/{n}/transactions of a block without transactions is an empty list', async () => {
        await expectEmptyPage('/blocks/0/transactions')
    })

    it('unknown blocks are 404 {"message":"Not found"}: above the head, an unknown hash, and their transactions', async () => {
        const head = (await s.db.query('SELECT max(number) AS n FROM block')).rows[0].n
        await expect404(`/blocks/${head + 1000}`)
        await expect404(`/blocks/${unknownHash()}`)
        await expect404(`/blocks/${head + 1000}/transactions`)
        await expect404(`/blocks/${unknownHash()}/transactions`)
    })

    it('malformed block ids are 422: text, negative, fractional, short hash, 0x-number, overflow', async () => {
        for (const id of ['abc', '-1', '1.5', '0x1234', '0x12', '1e3', ' 12', `${'0x'}${'g'.repeat(64)}`, `0x${'a'.repeat(63)}`]) {
            await expect422(`/blocks/${encodeURIComponent(id)}`)
            await expect422(`/blocks/${encodeURIComponent(id)}/transactions`)
        }
        // [choice] A number too large for any block is well-formed: 404 (or 422 if rejected as out of range), never 500.
        for (const path of ['/blocks/99999999999999999999999', '/blocks/99999999999999999999999/transactions']) {
            const res = await v2(path)
            expect(res.status, `${path}: ${res.text}`).to.be.oneOf([404, 422])
        }
    })

    it('bad enums are 422: /blocks?type=, /blocks/{n}/transactions?type=', async () => {
        await expect422('/blocks', { type: 'bogus' })
        await expect422(`/blocks/${s.extras.bigBlock.number}/transactions`, { type: 'bogus' })
    })

    it('/main-page/blocks: a bare array of the 4 newest blocks, list variant', async () => {
        const truth = await loadTruth(s.db)
        const res = await v2('/main-page/blocks')
        expect(res.status, res.text).to.equal(200)
        expect(Array.isArray(res.body), 'a bare array').to.equal(true)
        const items = res.body.map((b: unknown, i: number) => getShape(b, i))
        const rows = (await s.db.query(`SELECT ${BLOCK_COLUMNS} FROM block ORDER BY number DESC LIMIT 4`)).rows
        expect(items.map((b: S.BlockListItem) => b.height)).to.deep.equal(rows.map((r) => r.number))
        items.forEach((b: S.BlockListItem, i: number) => expectBlock(b, rows[i], truth, `/main-page/blocks[${i}]`))

        function getShape(b: unknown, i: number): S.BlockListItem {
            const parsed = S.BlockListItem.safeParse(b)
            if (!parsed.success) expect.fail(`/main-page/blocks[${i}]: ${parsed.error.message}`)
            return parsed.data
        }
    })
})
