import { expect } from 'chai'
import { getAddress } from 'viem'
import { Stack } from '../../support/stack'
import {
    checksum, expect404, expect422, expectToken, getOk, loadTruth, stack, unknownAddress,
} from './helpers'
import * as S from './shapes'

describe('chain API: /tokens', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    it('/tokens/{h} equals the token row: GOLD (18 decimals), SILVER (8), STABLE (6), the ERC-721, the token without name or decimals', async () => {
        const truth = await loadTruth(s.db)
        const cases: [string, Partial<S.Token>][] = [
            [s.tokens.GOLD, { symbol: 'GOLD', name: 'Gold Token', decimals: '18', type: 'ERC-20' }],
            [s.tokens.SILVER, { symbol: 'SILVER', decimals: '8', type: 'ERC-20' }],
            [s.tokens.STABLE, { symbol: 'STABLE', decimals: '6', type: 'ERC-20' }],
            [s.extras.nft.address, { symbol: 'DNFT', decimals: null, type: 'ERC-721' }],
            [s.extras.nullName.address, { symbol: 'RVT', name: null, decimals: null, type: 'ERC-20' }],
        ]
        for (const [address, expected] of cases) {
            for (const form of [address, address.toLowerCase()]) {
                const token = await getOk(`/tokens/${form}`, S.Token)
                expect(token, form).to.include(expected)
                expectToken(token, truth.tokens.get(address.toLowerCase())!, `/tokens/${form}`)
            }
        }
        const gold = await getOk(`/tokens/${s.tokens.GOLD}`, S.Token)
        expect(gold.total_supply).to.equal((10_000_000n * 10n ** 18n).toString())
    })

    it('/tokens/{h}/counters: holders and transfers from the row', async () => {
        for (const address of [s.tokens.STABLE, s.tokens.GOLD, s.extras.nft.address]) {
            const counters = await getOk(`/tokens/${address}/counters`, S.TokenCounters)
            const row = (await s.db.query('SELECT holder_count, transfer_count FROM token WHERE id = $1', [address.toLowerCase()])).rows[0]
            const transfers = (await s.db.query('SELECT count(*)::int AS n FROM token_transfer WHERE token = $1', [address.toLowerCase()])).rows[0].n
            expect(counters.token_holders_count, `${address} holders`).to.equal(String(row.holder_count))
            expect(counters.transfers_count, `${address} transfers`).to.equal(String(transfers))
        }
    })

    it('/tokens/{h}/transfers of the ERC-721: total {token_id, token_instance}', async () => {
        const page = await getOk(`/tokens/${s.extras.nft.address}/transfers`, S.page(S.TokenTransfer))
        expect(page.items).to.have.length(1)
        expect(page.next_page_params).to.equal(null)
        const [t] = page.items
        expect(t.token_type).to.equal('ERC-721')
        expect(S.Erc721Total.safeParse(t.total).success, JSON.stringify(t.total)).to.equal(true)
        expect((t.total as any).token_id).to.equal('42')
        expect(t.to.hash).to.equal(s.account(3).address)
        expect(t.transaction_hash).to.equal(s.extras.nft.mintTransaction)
        expect(t.method).to.equal('mint')
    })

    it('/tokens/{h}/holders of the ERC-721: the holder with 1 token, token_id null (set only for ERC-1155/404)', async () => {
        const page = await getOk(`/tokens/${s.extras.nft.address}/holders`, S.page(S.Holder))
        expect(page.items.map((h) => [h.address.hash, h.value, h.token_id])).to.deep.equal([[s.account(3).address, '1', null]])
        expect(page.next_page_params).to.equal(null)
    })

    it('/tokens?q= is a case-insensitive prefix search on name and symbol', async () => {
        const find = async (q: string) => (await getOk('/tokens', S.page(S.Token), { q })).items.map((t) => t.address_hash)
        for (const q of ['gol', 'GOLD', 'Gold', 'gold tok']) {
            expect(await find(q), `q=${q}`).to.include(s.tokens.GOLD)
        }
        expect(await find('silv'), 'q=silv').to.deep.equal([s.tokens.SILVER])
        expect(await find('FIL0'), 'q=FIL0 (symbol prefix)').to.have.length(10)
        expect(await find('zzzqqq')).to.deep.equal([])
    })

    it('/tokens?type= filters by token type (comma list); a bad type is 422', async () => {
        const nfts = await getOk('/tokens', S.page(S.Token), { type: 'ERC-721' })
        expect(nfts.items.map((t) => t.address_hash)).to.deep.equal([getAddress(s.extras.nft.address)])
        const both = await getOk('/tokens', S.page(S.Token), { type: 'ERC-20,ERC-721' })
        const all = await getOk('/tokens', S.page(S.Token))
        expect(both.items.map((t) => t.address_hash)).to.deep.equal(all.items.map((t) => t.address_hash))
        const erc20 = await getOk('/tokens', S.page(S.Token), { type: 'ERC-20' })
        expect(erc20.items.every((t) => t.type === 'ERC-20')).to.equal(true)
        await expect422('/tokens', { type: 'ERC-999' })
        await expect422('/tokens', { sort: 'colour', order: 'desc' })
        await expect422('/tokens', { sort: 'holders_count', order: 'sideways' })
    })

    it('an address that is not a token is 404 on /tokens/{h}, /counters and /holders; an EOA too', async () => {
        for (const address of [unknownAddress(), s.account(10).address, s.contracts.router]) {
            await expect404(`/tokens/${address}`)
            await expect404(`/tokens/${address}/counters`)
            await expect404(`/tokens/${address}/holders`)
        }
    })

    it('malformed token hashes are 422 on every token route', async () => {
        for (const bad of ['0x1234', 'abc', `0x${'g'.repeat(40)}`, `0x${'a'.repeat(64)}`]) {
            for (const route of ['', '/counters', '/holders', '/transfers']) {
                await expect422(`/tokens/${bad}${route}`)
            }
        }
    })

    it('the token object is the same in /tokens, /tokens/{h}, /addresses/{h}.token and token transfers', async () => {
        const single = await getOk(`/tokens/${s.tokens.SILVER}`, S.Token)
        const address = await getOk(`/addresses/${s.tokens.SILVER}`, S.Address)
        expect(address.token).to.deep.equal(single)
        const list = await getOk('/tokens', S.page(S.Token), { q: 'silver' })
        expect(list.items.find((t) => t.address_hash === checksum(s.tokens.SILVER))).to.deep.equal(single)
        const transfers = await getOk(`/tokens/${s.tokens.SILVER}/transfers`, S.page(S.TokenTransfer))
        expect(transfers.items[0].token).to.deep.equal(single)
    })
})
