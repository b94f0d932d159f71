import { expect } from 'chai'
import { Hex } from 'viem'
import { Stack, UNVERIFIED_INIT_CODE, UNVERIFIED_RUNTIME_CODE } from '../../support/stack'
import {
    checksum, expect404, expect422, expectAddressParam, expectEmptyPage, expectSameSequence, getOk, iso, loadTruth, stack, unknownAddress, v2, walk,
} from './helpers'
import * as S from './shapes'

describe('chain API: /smart-contracts', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    async function verifiedRow(address: string) {
        const { rows } = await s.db.query('SELECT * FROM verified_contract WHERE id = $1', [address.toLowerCase()])
        expect(rows, `${address} is verified in the database`).to.have.length(1)
        return rows[0]
    }

    it('a verified contract of ours (the router): source, additional sources, ABI, compiler data, bytecodes, constructor args', async () => {
        const router = s.contracts.router
        const row = await verifiedRow(router)
        const c = await getOk(`/smart-contracts/${router}`, S.SmartContractVerified)
        expect(c.is_verified).to.equal(true)
        expect(c.name).to.equal('AmmRouter')
        // [choice] Blockscout writes compiler versions as "v0.8.30+commit.73712a01"; the stored
        // version (solc's long form) is accepted as is or with that prefix.
        expect(c.compiler_version).to.be.oneOf([row.compiler_version, `v${row.compiler_version}`, `v${row.compiler_version.replace(/\.Emscripten\.clang$/, '')}`])
        expect(c.compiler_version).to.include('0.8.30+commit.73712a01')
        expect(c.evm_version).to.equal('cancun')
        expect(c.optimization_enabled).to.equal(true)
        expect(c.optimization_runs).to.equal(200)
        expect(c.language).to.equal('solidity')
        expect(c.verified_at).to.equal(iso(row.verified_at))
        expect(c.file_path).to.equal(row.source_name)
        expect(c.source_code).to.equal(row.sources[row.source_name])
        expect(c.additional_sources.map((a) => a.file_path).sort()).to.deep.equal(Object.keys(row.sources).filter((k) => k !== row.source_name).sort())
        for (const extra of c.additional_sources) expect(extra.source_code, extra.file_path).to.equal(row.sources[extra.file_path])
        expect(c.abi).to.deep.equal(row.abi)
        expect(c.constructor_args).to.equal(row.constructor_arguments)
        expect(c.constructor_args, 'the router takes (factory, wnative)').to.not.equal(null)
        expect(c.creation_status).to.equal('success')
        expect(c.compiler_settings).to.have.property('optimizer')
    })

    it('the unverified contract\'s bytecodes are the hand-assembled ones', async () => {
        const res = await v2(`/smart-contracts/${s.extras.unverified.address}`)
        expect(res.body.deployed_bytecode).to.equal(UNVERIFIED_RUNTIME_CODE)
        expect(res.body.creation_bytecode).to.equal(UNVERIFIED_INIT_CODE)
    })

    it('bytecodes: deployed_bytecode is the code on chain, creation_bytecode the creation input', async () => {
        // [choice] the reference types both string|null; Blockscout fills them whenever it has
        // them, and the frontend's contract tab shows them (the only content for an unverified
        // contract). The api has the node (RPC_URL) and the creation input is in the database.
        for (const address of [s.contracts.router, s.pairs['WNATIVE/STABLE'], s.extras.unverified.address]) {
            const res = await v2(`/smart-contracts/${address}`)
            expect(res.status, res.text).to.equal(200)
            expect(res.body.deployed_bytecode, `${address} deployed_bytecode`).to.equal(await s.client.getCode({ address: address as Hex }))
        }
        for (const address of [s.contracts.router, s.extras.unverified.address]) {
            const creation = (await s.db.query('SELECT input FROM transaction WHERE created_contract = $1', [address.toLowerCase()])).rows[0]
            const res = await v2(`/smart-contracts/${address}`)
            expect(res.body.creation_bytecode, `${address} creation_bytecode`).to.equal(`0x${creation.input.toString('hex')}`)
        }
    })

    it('a pair created by our factory: verified as AmmPair, no constructor arguments', async () => {
        const pair = s.pairs['WNATIVE/STABLE']
        const c = await getOk(`/smart-contracts/${pair}`, S.SmartContractVerified)
        expect(c.name).to.equal('AmmPair')
        expect(c.is_verified).to.equal(true)
        expect(c.constructor_args).to.equal(null)
    })

    it('a contract that is not ours: the unverified answer (bytecodes, creation status, no source)', async () => {
        const { address } = s.extras.unverified
        const res = await v2(`/smart-contracts/${address}`)
        expect(res.status, res.text).to.equal(200)
        const c = shapeOf(res.body)
        expect(c.creation_status).to.equal('success')
        expect(c.proxy_type).to.equal(null)
        expect(c.implementations).to.deep.equal([])
        // Fields of the verified form are absent, or say "not verified".
        expect(res.body.is_verified ?? false).to.equal(false)
        expect(res.body.source_code ?? null).to.equal(null)
        expect(res.body.abi ?? null).to.equal(null)

        function shapeOf(body: unknown) {
            const parsed = S.SmartContractUnverified.safeParse(body)
            if (!parsed.success) expect.fail(`unverified smart contract: ${parsed.error.message}`)
            return parsed.data
        }
    })

    it('an address without code is 404: an account, an unknown address', async () => {
        await expect404(`/smart-contracts/${s.account(10).address}`)
        await expect404(`/smart-contracts/${unknownAddress()}`)
    })

    it('malformed hashes are 422', async () => {
        for (const bad of ['0x1234', 'abc', `0x${'g'.repeat(40)}`, `0x${'a'.repeat(64)}`]) {
            await expect422(`/smart-contracts/${bad}`)
        }
    })

    describe('the verified contracts list and its counters', () => {
        /** Verified contracts as the list orders them: the most recently verified first, ties by address. */
        async function contractRows(where = 'TRUE', params: unknown[] = []) {
            return (await s.db.query(`SELECT v.id, v.name, v.compiler_version, v.optimization_enabled, v.constructor_arguments, v.verified_at,
                    v.sources ->> v.source_name AS source, a.balance::text AS balance, a.transaction_count
               FROM verified_contract v JOIN address a ON a.id = v.id WHERE ${where}
              ORDER BY v.verified_at DESC, v.id DESC`, params)).rows
        }

        // First in this suite: the counters are cached for minutes, and nothing here changes them.
        it('/smart-contracts/counters: four counts as strings, equal to the database (routed before /smart-contracts/{hash})', async () => {
            const counters = await getOk('/smart-contracts/counters', S.SmartContractCounters)
            const { rows: [db] } = await s.db.query(`SELECT
                (SELECT count(*) FROM address WHERE is_contract)::text AS contracts,
                (SELECT count(*) FROM address a JOIN transaction t ON t.id = a.creation_transaction
                  WHERE a.is_contract AND t.timestamp > now() - interval '24 hours')::text AS new_contracts,
                (SELECT count(*) FROM verified_contract)::text AS verified,
                (SELECT count(*) FROM verified_contract WHERE verified_at > now() - interval '24 hours')::text AS new_verified`)
            expect(counters).to.deep.equal({
                smart_contracts: db.contracts,
                new_smart_contracts_24h: db.new_contracts,
                verified_smart_contracts: db.verified,
                new_verified_smart_contracts_24h: db.new_verified,
            })
            // The fixture deploys its contracts within the last day, and one of them is not ours.
            expect(Number(counters.new_smart_contracts_24h)).to.be.greaterThan(0)
            expect(Number(counters.smart_contracts)).to.be.greaterThan(Number(counters.verified_smart_contracts))
        })

        it('/smart-contracts: every verified contract, walked to the end, each field equal to its row', async () => {
            const truth = await loadTruth(s.db)
            const rows = await contractRows()
            expect(rows.length, 'more than one page of verified contracts').to.be.greaterThan(50)
            const { items, pages, cursors } = await walk('/smart-contracts', S.SmartContractListItem, { keys: ['smart_contract_id', 'items_count'], itemsCount: true })
            expect(pages).to.equal(Math.ceil(rows.length / 50))
            expectSameSequence(items.map((c) => c.address.hash), rows.map((r) => checksum(r.id)), '/smart-contracts')
            items.forEach((item, i) => {
                const row = rows[i]
                const what = `/smart-contracts[${i}]`
                expectAddressParam(item.address, row.id, truth, `${what}.address`)
                expect(item.address.is_contract, `${what}.address.is_contract`).to.equal(true)
                expect(item.address.is_verified, `${what}.address.is_verified`).to.equal(true)
                expect(item.compiler_version, `${what}.compiler_version`).to.equal(row.compiler_version)
                expect(item.optimization_enabled, `${what}.optimization_enabled`).to.equal(row.optimization_enabled)
                expect(item.transactions_count, `${what}.transactions_count`).to.equal(row.transaction_count)
                expect(item.coin_balance, `${what}.coin_balance`).to.equal(row.balance)
                expect(item.verified_at, `${what}.verified_at`).to.equal(iso(row.verified_at))
                expect(item.has_constructor_args, `${what}.has_constructor_args`).to.equal(row.constructor_arguments !== null)
                expect(item.language, `${what}.language`).to.equal('solidity')
                // Every source of ours declares MIT.
                expect(item.license_type, `${what}.license_type`).to.equal(/SPDX-License-Identifier:\s*MIT\b/.test(row.source) ? 'mit' : 'none')
                expect(item.market_cap, `${what}.market_cap`).to.equal(null)
                expect(item.certified, `${what}.certified`).to.equal(false)
            })
            expect(items.some((c) => c.license_type === 'mit'), 'our MIT sources').to.equal(true)
            expect(items.some((c) => c.has_constructor_args) && items.some((c) => !c.has_constructor_args)).to.equal(true)
            // The cursor is the last contract shown.
            expect(cursors[0]).to.deep.equal({ smart_contract_id: rows[49].id, items_count: 50 })
        })

        it('/smart-contracts?q=: by name or address, anywhere in either, case-insensitive; the cursor carries q', async () => {
            const byName = await contractRows(`v.name ILIKE '%pair%' OR v.id ILIKE '%pair%'`)
            expect(byName.length, 'our AmmPair contracts').to.be.greaterThan(0)
            const named = await walk('/smart-contracts', S.SmartContractListItem, { query: { q: 'pAiR' }, keys: ['smart_contract_id'] })
            expectSameSequence(named.items.map((c) => c.address.hash), byName.map((r) => checksum(r.id)), '/smart-contracts?q=pAiR')

            const router = s.contracts.router
            const middle = router.slice(10, 20).toUpperCase()
            const byAddress = await contractRows('v.id ILIKE $1 OR v.name ILIKE $1', [`%${middle}%`])
            const found = await getOk('/smart-contracts', S.page(S.SmartContractListItem), { q: middle })
            expect(found.items.map((c) => c.address.hash)).to.deep.equal(byAddress.map((r) => checksum(r.id)))
            expect(found.items.map((c) => c.address.hash)).to.include(router)

            // A term matching more than a page: the walk by the cursor alone keeps the filter.
            const term = 'token'
            const many = await contractRows('v.name ILIKE $1 OR v.id ILIKE $1', [`%${term}%`])
            expect(many.length, `contracts matching "${term}"`).to.be.greaterThan(50)
            const walked = await walk('/smart-contracts', S.SmartContractListItem, { query: { q: term }, keys: ['smart_contract_id', 'q', 'items_count'], cursorOnly: true })
            expect(walked.cursors[0].q).to.equal(term)
            expectSameSequence(walked.items.map((c) => c.address.hash), many.map((r) => checksum(r.id)), `/smart-contracts?q=${term} by cursor alone`)

            // LIKE wildcards in the term match themselves.
            await expectEmptyPage('/smart-contracts', { q: '%' })
            await expectEmptyPage('/smart-contracts', { q: '_' })
        })

        it('/smart-contracts?filter=: solidity is the whole list, carried in the cursor; vyper, yul and geas are empty', async () => {
            const all = await getOk('/smart-contracts', S.page(S.SmartContractListItem))
            const solidity = await getOk('/smart-contracts', S.page(S.SmartContractListItem), { filter: 'solidity' })
            expect(solidity.items).to.deep.equal(all.items)
            expect(solidity.next_page_params).to.include({ filter: 'solidity' })
            for (const filter of ['vyper', 'yul', 'geas']) await expectEmptyPage('/smart-contracts', { filter })
        })

        it('/smart-contracts?sort=balance|transactions_count&order=asc|desc: by the column, then address ascending; Blockscout\'s sorted cursor', async () => {
            const rows = (await s.db.query(`SELECT v.id, a.balance, a.transaction_count FROM verified_contract v JOIN address a ON a.id = v.id`)).rows
            const byColumn = (column: 'balance' | 'transaction_count', asc: boolean) => [...rows].sort((x, y) => {
                const a = BigInt(x[column])
                const b = BigInt(y[column])
                if (a !== b) return (a < b) === asc ? -1 : 1
                return x.id < y.id ? -1 : x.id > y.id ? 1 : 0
            })
            expect(rows.some((r) => BigInt(r.balance) > 0n), 'a verified contract holding coin (WNATIVE)').to.equal(true)
            expect(new Set(rows.map((r) => r.transaction_count)).size, 'different transaction counts').to.be.greaterThan(2)
            const cases: [string, 'balance' | 'transaction_count', string][] = [
                ['balance', 'balance', 'desc'], ['balance', 'balance', 'asc'],
                ['transactions_count', 'transaction_count', 'desc'], ['transactions_count', 'transaction_count', 'asc'],
            ]
            for (const [sort, column, order] of cases) {
                const expected = byColumn(column, order === 'asc')
                const what = `/smart-contracts?sort=${sort}&order=${order}`
                const { items, cursors } = await walk('/smart-contracts', S.SmartContractListItem, {
                    query: { sort, order }, keys: ['hash', 'transactions_count', 'coin_balance', 'sort', 'order', 'items_count'], itemsCount: true, cursorOnly: true,
                })
                expectSameSequence(items.map((c) => c.address.hash), expected.map((r) => checksum(r.id)), what)
                expect(cursors[0], what).to.deep.equal({
                    sort, order, hash: expected[49].id, transactions_count: expected[49].transaction_count, coin_balance: String(expected[49].balance), items_count: 50,
                })
            }
        })

        it('/smart-contracts: malformed parameters are 422', async () => {
            await expect422('/smart-contracts', { filter: 'cobol' })
            await expect422('/smart-contracts', { filter: 'Solidity' })
            await expect422('/smart-contracts', { smart_contract_id: '12', items_count: '50' })
            await expect422('/smart-contracts', { smart_contract_id: s.contracts.router, items_count: '0' })
            await expect422('/smart-contracts', { q: 'a\u0000b' })
            await expect422('/smart-contracts', { q: 'x'.repeat(300) })
            await expect422('/smart-contracts', { sort: 'name', order: 'asc' })
            await expect422('/smart-contracts', { sort: 'balance', order: 'up' })
            await expect422('/smart-contracts', { sort: 'balance', order: 'asc', hash: s.contracts.router, coin_balance: 'rich' })
            await expect422('/smart-contracts', { sort: 'transactions_count', order: 'asc', hash: '0x1', transactions_count: '3' })
        })

        it('/smart-contracts?smart_contract_id= of an address that is no verified contract: an empty page', async () => {
            await expectEmptyPage('/smart-contracts', { smart_contract_id: unknownAddress(), items_count: '50' })
        })
    })
})
