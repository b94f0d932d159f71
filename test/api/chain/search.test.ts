import { expect } from 'chai'
import { getAddress } from 'viem'
import { Stack } from '../../support/stack'
import { getOk, iso, stack, unknownAddress, unknownHash, v2 } from './helpers'
import * as S from './shapes'

/**
 * Item urls are compared case-insensitively on the hash ([choice]: Blockscout builds them
 * from the hash it holds; the reference shows "/block/0x<hash>", "/tx/0x…", "/address/0x…",
 * "/token/0x…").
 */
describe('chain API: /search', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    const search = (q: string) => getOk('/search', S.SearchPage, { q })
    const blocks = (items: S.SearchItem[]) => items.filter((i): i is z_SearchBlock => i.type === 'block')
    type z_SearchBlock = Extract<S.SearchItem, { type: 'block' }>
    type z_SearchTx = Extract<S.SearchItem, { type: 'transaction' }>
    type z_SearchToken = Extract<S.SearchItem, { type: 'token' }>
    type z_SearchAddress = Extract<S.SearchItem, { type: 'address' | 'contract' | 'label' }>

    async function blockRow(number: number) {
        return (await s.db.query('SELECT id, number, timestamp FROM block WHERE number = $1', [number])).rows[0]
    }

    function expectBlockItem(item: z_SearchBlock | undefined, row: any, what: string) {
        expect(item, `${what}: a block item`).to.not.equal(undefined)
        expect(item!.block_number, what).to.equal(row.number)
        expect(item!.block_hash, what).to.equal(row.id)
        expect(item!.timestamp, what).to.equal(iso(row.timestamp))
        expect(item!.block_type, what).to.equal('block')
        expect(item!.url.toLowerCase(), what).to.equal(`/block/${row.id}`)
    }

    it('a block number (short: that block only, no next page; 3+ digits: the block among the results)', async () => {
        const short = await search('7')
        expectBlockItem(blocks(short.items).find((b) => b.block_number === 7), await blockRow(7), 'q=7')
        expect(short.items.filter((i) => i.type === 'block')).to.have.length(1)
        expect(short.next_page_params).to.equal(null)
        const long = await search('123')
        expectBlockItem(blocks(long.items).find((b) => b.block_number === 123), await blockRow(123), 'q=123')
    })

    it('a block hash, in either case', async () => {
        const row = await blockRow(s.extras.bigBlock.number)
        for (const q of [row.id, row.id.toUpperCase().replace('0X', '0x')]) {
            const page = await search(q)
            expectBlockItem(blocks(page.items).find((b) => b.block_hash === row.id), row, `q=${q}`)
        }
    })

    it('a transaction hash', async () => {
        const hash = s.extras.feeTokenTransfer
        const row = (await s.db.query('SELECT timestamp FROM transaction WHERE id = $1', [hash])).rows[0]
        const page = await search(hash)
        const tx = page.items.find((i): i is z_SearchTx => i.type === 'transaction')
        expect(tx, 'a transaction item').to.not.equal(undefined)
        expect(tx!.transaction_hash).to.equal(hash)
        expect(tx!.timestamp).to.equal(iso(row.timestamp))
        expect(tx!.url.toLowerCase()).to.equal(`/tx/${hash}`)
    })

    it('an address in any case: lower, upper hex, checksummed', async () => {
        const trader = s.account(12).address
        for (const q of [trader.toLowerCase(), `0x${trader.slice(2).toUpperCase()}`, trader]) {
            const page = await search(q)
            const item = page.items.find((i): i is z_SearchAddress => i.type === 'address')
            expect(item, `q=${q}: an address item`).to.not.equal(undefined)
            expect(item!.address_hash).to.equal(trader)
            expect(item!.is_smart_contract_address).to.equal(false)
            expect(item!.url.toLowerCase()).to.equal(`/address/${trader.toLowerCase()}`)
        }
    })

    it('a token contract\'s address: the token item and the contract', async () => {
        const gold = s.tokens.GOLD
        const page = await search(gold.toLowerCase())
        const token = page.items.find((i): i is z_SearchToken => i.type === 'token')
        expect(token, 'a token item').to.not.equal(undefined)
        expect(token!.address_hash).to.equal(gold)
        expect(token!.symbol).to.equal('GOLD')
        expect(token!.token_type).to.equal('ERC-20')
        expect(token!.is_smart_contract_verified).to.equal(true)
        expect(token!.token_url.toLowerCase()).to.equal(`/token/${gold.toLowerCase()}`)
        const contract = page.items.find((i): i is z_SearchAddress => i.type === 'address' || i.type === 'contract')
        expect(contract, 'the address item').to.not.equal(undefined)
        expect(contract!.is_smart_contract_address).to.equal(true)
    })

    it('an address the database does not hold: no items', async () => {
        const page = await search(unknownAddress())
        expect(page.items).to.deep.equal([])
        expect(page.next_page_params).to.equal(null)
    })

    it('a token name or symbol: case-insensitive prefix', async () => {
        const tokenOf = async (q: string) => (await search(q)).items.filter((i): i is z_SearchToken => i.type === 'token').map((t) => t.address_hash)
        for (const q of ['gol', 'GOL', 'Gold', 'gOlD tO']) expect(await tokenOf(q), `q=${q}`).to.include(s.tokens.GOLD)
        for (const q of ['silv', 'SILVER', 'silver token']) expect(await tokenOf(q), `q=${q}`).to.deep.equal([s.tokens.SILVER])
        expect(await tokenOf('wrapped nat')).to.deep.equal([getAddress(s.tokens.WNATIVE)])
        expect(await tokenOf('qqqzzz')).to.deep.equal([])
    })

    it('an unknown hash and nonsense give no items', async () => {
        expect((await search(unknownHash())).items).to.deep.equal([])
        expect((await search('qqqzzz')).items).to.deep.equal([])
    })

    it('/search/quick: a bare array of the same items; fewer than 3 characters give []', async () => {
        const gold = await getOk('/search/quick', S.SearchQuick, { q: 'gol' })
        expect(gold.filter((i) => i.type === 'token').map((i) => (i as z_SearchToken).address_hash)).to.include(s.tokens.GOLD)
        expect(gold.length).to.be.at.most(50)
        expect(await getOk('/search/quick', S.SearchQuick, { q: 'go' })).to.deep.equal([])
        const tx = await getOk('/search/quick', S.SearchQuick, { q: s.extras.feeCoinTransfer })
        expect(tx.map((i) => (i as z_SearchTx).transaction_hash)).to.include(s.extras.feeCoinTransfer)
    })

    it('/search/check-redirect: address (even unknown) → checksummed, block number → its hash, transaction hash, else no redirect', async () => {
        const check = (q: string) => getOk('/search/check-redirect', S.CheckRedirect, { q })
        const unknown = unknownAddress()
        expect(await check(unknown.toLowerCase())).to.deep.equal({ redirect: true, type: 'address', parameter: unknown })
        expect(await check(s.account(12).address.toLowerCase())).to.deep.equal({ redirect: true, type: 'address', parameter: s.account(12).address })
        const block = await blockRow(42)
        expect(await check('42')).to.deep.equal({ redirect: true, type: 'block', parameter: block.id })
        expect(await check(s.extras.feeCoinTransfer)).to.deep.equal({ redirect: true, type: 'transaction', parameter: s.extras.feeCoinTransfer })
        expect(await check('qqqzzz')).to.deep.equal({ redirect: false, type: null, parameter: null })
    })

    it('/search without q: never a 500 ([unconfirmed] in Blockscout: 4xx with a message, or an empty result)', async () => {
        for (const path of ['/search', '/search/quick', '/search/check-redirect']) {
            const res = await v2(path)
            expect(res.status, `${path}: ${res.text}`).to.be.lessThan(500)
            if (res.status >= 400) expect(res.body?.message ?? res.body?.errors, `${path}: a message`).to.not.equal(undefined)
        }
    })
})
