import { expect } from 'chai'
import { expectError, ExplorerStack, startExplorerStack, verifiedAccount } from './harness'

const A = '0x' + 'Ab'.repeat(20)
const B = '0x' + '0c'.repeat(20)

describe('explorer services API: watchlist', function () {
    let stack: ExplorerStack

    before(async function () {
        stack = await startExplorerStack()
        // What the indexer writes for an address it has seen: the balance in anative and the block of it.
        await stack.db.query(
            `INSERT INTO address (id, balance, balance_block, is_contract, transaction_count, token_transfer_count, gas_used, log_count, first_block, last_block)
             VALUES ($1, $2, 42, false, 1, 0, 0, 0, 1, 42)`,
            [B.toLowerCase(), '1234500000000000000000']
        )
    })

    after(async function () {
        await stack?.stop()
    })

    it('adds, lists and removes addresses per account, one entry per address in any case', async function () {
        const alice = await verifiedAccount(stack)
        const bob = await verifiedAccount(stack)
        const client = stack.client()

        const added = await client.post('/watchlist', { address: A, name: 'cold wallet' }, alice.token)
        expect(added.status, added.text).to.equal(201)
        expect(added.body).to.include({ address: A.toLowerCase(), name: 'cold wallet', balance: null, balance_native: null, balance_block: null })
        expect(Date.parse(added.body.added_at)).to.be.a('number').and.not.NaN

        const withBalance = await client.post('/watchlist', { address: B.toUpperCase().replace('0X', '0x') }, alice.token)
        expect(withBalance.status, withBalance.text).to.equal(201)
        expect(withBalance.body).to.include({
            address: B.toLowerCase(), name: null, balance: '1234500000000000000000', balance_native: '1234.5', balance_block: 42,
        })

        // The same address in another case is the same entry; a name given updates its label.
        const again = await client.post('/watchlist', { address: A.toLowerCase() }, alice.token)
        expect(again.status).to.equal(200)
        expect(again.body.name).to.equal('cold wallet')
        const renamed = await client.post('/watchlist', { address: A.toUpperCase().replace('0X', '0x'), name: 'savings' }, alice.token)
        expect(renamed.status).to.equal(200)
        expect(renamed.body.name).to.equal('savings')

        const list = await client.get('/watchlist', alice.token)
        expect(list.status).to.equal(200)
        expect(list.body.count).to.equal(2)
        expect(list.body.limit).to.equal(100)
        expect(list.body.items.map((i: any) => [i.address, i.name, i.balance])).to.deep.equal([
            [A.toLowerCase(), 'savings', null],
            [B.toLowerCase(), null, '1234500000000000000000'],
        ])
        expect((await client.get('/profile', alice.token)).body.watchlist.count).to.equal(2)
        const [{ count }] = (await stack.db.query('SELECT count(*)::int AS count FROM explorer_watchlist WHERE address = $1', [A.toLowerCase()])).rows
        expect(count).to.equal(1)

        // Bob's list is his own.
        expect((await client.get('/watchlist', bob.token)).body).to.deep.equal({ items: [], count: 0, limit: 100 })
        expectError(await client.delete(`/watchlist/${A}`, bob.token), 404, 'not_found')

        const cleared = await client.post('/watchlist', { address: A, name: null }, alice.token)
        expect(cleared.body.name).to.equal(null)

        const removed = await client.delete(`/watchlist/${A.toUpperCase().replace('0X', '0x')}`, alice.token)
        expect(removed.status).to.equal(204)
        expectError(await client.delete(`/watchlist/${A}`, alice.token), 404, 'not_found')
        expect((await client.get('/watchlist', alice.token)).body.items.map((i: any) => i.address)).to.deep.equal([B.toLowerCase()])
    })

    it('validates addresses and names', async function () {
        const { token } = await verifiedAccount(stack)
        const client = stack.client()
        for (const address of ['0x123', 'ab'.repeat(20), '0x' + 'g'.repeat(40), '0x' + 'a'.repeat(41), 42, null, '']) {
            expectError(await client.post('/watchlist', { address }, token), 400, 'invalid_request', 'address')
        }
        expectError(await client.post('/watchlist', { name: 'no address' }, token), 400, 'invalid_request', 'address')
        expectError(await client.post('/watchlist', { address: A, name: 'x'.repeat(101) }, token), 400, 'invalid_request', 'name')
        expectError(await client.post('/watchlist', { address: A, name: '   ' }, token), 400, 'invalid_request', 'name')
        expectError(await client.post('/watchlist', { address: A, name: 7 }, token), 400, 'invalid_request', 'name')
        expectError(await client.delete('/watchlist/0x1234', token), 400, 'invalid_request', 'address')
        expect((await client.get('/watchlist', token)).body.count).to.equal(0)
    })

    it('holds at most 100 addresses per account (409 beyond)', async function () {
        const { token } = await verifiedAccount(stack)
        const client = stack.client()
        const address = (i: number) => '0x' + i.toString(16).padStart(40, '0')
        for (let i = 1; i <= 100; i++) {
            const reply = await client.post('/watchlist', { address: address(i) }, token)
            expect(reply.status, reply.text).to.equal(201)
        }
        expectError(await client.post('/watchlist', { address: address(101) }, token), 409, 'watchlist_full')
        // Re-adding one already there is still fine at the limit.
        expect((await client.post('/watchlist', { address: address(7), name: 'seven' }, token)).status).to.equal(200)
        expect((await client.delete(`/watchlist/${address(1)}`, token)).status).to.equal(204)
        expect((await client.post('/watchlist', { address: address(101) }, token)).status).to.equal(201)
        expect((await client.get('/watchlist', token)).body.count).to.equal(100)
    })
})
