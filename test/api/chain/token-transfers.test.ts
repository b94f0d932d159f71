import { expect } from 'chai'
import { Stack } from '../../support/stack'
import { StoredTransactionRow } from '../../../api/chain/queries/transactions'
import {
    expect422, expectSameSequence, expectTokenTransfer, getOk, loadTruth, stack, Truth, TT_COLUMNS, TX_COLUMNS, v2,
    walk,
} from './helpers'
import * as S from './shapes'

/**
 * GET /token-transfers: every token transfer of the chain, newest first ((block, log index)
 * descending, as Blockscout's TokenTransfer.fetch orders them), in the item shape of the other
 * token-transfer lists, with the `type` filter and Blockscout's {block_number, index} cursor.
 */
describe('chain API: /token-transfers', function () {
    this.timeout(600_000)
    let s: Stack
    let truth: Truth

    before(async () => {
        s = await stack()
    })
    beforeEach(async () => {
        truth = await loadTruth(s.db)
    })

    async function transferRows(types: string[] | null) {
        return (await s.db.query(`SELECT ${TT_COLUMNS} FROM token_transfer t WHERE $1::text[] IS NULL OR t.token_type = ANY($1)
            ORDER BY t.block_number DESC, t.log_index DESC`, [types])).rows
    }
    async function txById(ids: string[]): Promise<Map<string, StoredTransactionRow>> {
        const rows = (await s.db.query(`SELECT ${TX_COLUMNS} FROM transaction WHERE id = ANY($1)`, [ids])).rows
        return new Map(rows.map((r) => [r.id, r]))
    }
    const key = (t: { block_number: number; log_index: number }) => `${t.block_number}:${t.log_index}`

    it('every transfer, walked to the end, each field equal to its row; the cursor is {block_number, index}', async () => {
        const rows = await transferRows(null)
        expect(rows.length).to.be.greaterThan(100)
        const txs = await txById([...new Set(rows.map((r) => r.transaction_hash))])
        const { items, cursors, pages } = await walk('/token-transfers', S.TokenTransfer, { keys: ['block_number', 'index'] })
        expect(pages).to.equal(Math.ceil(rows.length / 50))
        expectSameSequence(items.map(key), rows.map(key), '/token-transfers')
        items.forEach((item, i) => expectTokenTransfer(item, rows[i], txs.get(rows[i].transaction_hash)!, truth, `/token-transfers[${i}]`))
        // As the other token-transfer lists: no items_count.
        expect(cursors[0]).to.deep.equal({ block_number: items[49].block_number, index: items[49].log_index })
        expect([...new Set(items.map((t) => t.token_type))]).to.include.members(['ERC-20', 'ERC-721'])
    })

    it('type=ERC-721: only the NFT transfers (the DemoNft mint)', async () => {
        const rows = await transferRows(['ERC-721'])
        expect(rows.length).to.be.greaterThan(0)
        const txs = await txById([...new Set(rows.map((r) => r.transaction_hash))])
        const page = await getOk('/token-transfers', S.page(S.TokenTransfer), { type: 'ERC-721' })
        expectSameSequence(page.items.map(key), rows.map(key), '/token-transfers?type=ERC-721')
        page.items.forEach((item, i) => expectTokenTransfer(item, rows[i], txs.get(rows[i].transaction_hash)!, truth, `ERC-721[${i}]`))
        expect(page.items.map((t) => t.transaction_hash)).to.include(s.extras.nft.mintTransaction)
        await getOk('/token-transfers', S.EmptyPage, { type: 'ERC-1155' })
    })

    it('type=ERC-20,ERC-721 walked by the cursor alone: the cursor carries the type', async () => {
        const rows = await transferRows(['ERC-20', 'ERC-721'])
        const { items, cursors } = await walk('/token-transfers', S.TokenTransfer, {
            query: { type: 'ERC-20,ERC-721' }, keys: ['block_number', 'index', 'type'], cursorOnly: true,
        })
        expect(cursors[0].type).to.equal('ERC-20,ERC-721')
        expectSameSequence(items.map(key), rows.map(key), '/token-transfers?type=ERC-20,ERC-721')
    })

    it('limit: pages of that size, the limit carried to the next page', async () => {
        const rows = await transferRows(null)
        const first = await getOk('/token-transfers', S.page(S.TokenTransfer), { limit: '10' })
        expect(first.items.map(key)).to.deep.equal(rows.slice(0, 10).map(key))
        expect(first.next_page_params).to.deep.equal({ limit: '10', block_number: rows[9].block_number, index: rows[9].log_index })
        const second = await getOk('/token-transfers', S.page(S.TokenTransfer), first.next_page_params!)
        expect(second.items.map(key)).to.deep.equal(rows.slice(10, 20).map(key))
    })

    it('a cursor inside a block resumes after that log; a cursor at block 0 is an empty page', async () => {
        const rows = await transferRows(null)
        const at = rows.findIndex((r, i) => i > 0 && r.block_number === rows[i - 1].block_number)
        expect(at, 'a block with two transfers').to.be.greaterThan(0)
        const page = await getOk('/token-transfers', S.page(S.TokenTransfer), { block_number: rows[at - 1].block_number, index: rows[at - 1].log_index })
        expect(page.items.map(key)).to.deep.equal(rows.slice(at, at + 50).map(key))
        await getOk('/token-transfers', S.EmptyPage, { block_number: '0', index: '0' })
        // An index beyond any log's: the whole block is before the cursor.
        const whole = await getOk('/token-transfers', S.page(S.TokenTransfer), { block_number: rows[0].block_number, index: '2000000000' })
        expect(whole.items[0] && key(whole.items[0])).to.equal(key(rows[0]))
    })

    it('malformed parameters are 422', async () => {
        await expect422('/token-transfers', { type: 'ERC-999' })
        await expect422('/token-transfers', { type: 'ERC-20,junk' })
        await expect422('/token-transfers', { block_number: 'abc', index: '1' })
        await expect422('/token-transfers', { block_number: '10', index: '-1' })
        await expect422('/token-transfers', { limit: '0' })
        await expect422('/token-transfers', { limit: '51' })
        await expect422('/token-transfers', { limit: 'ten' })
        // An unknown path below it is still Blockscout's 400.
        const res = await v2('/token-transfers/whatever')
        expect(res.status).to.equal(400)
    })
})
