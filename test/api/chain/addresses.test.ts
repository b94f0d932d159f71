import { expect } from 'chai'
import { getAddress } from 'viem'
import { Stack } from '../../support/stack'
import { TokenDetailRow } from '../../../api/chain/queries/tokens'
import {
    checksum, expect422, expectAddressParam, expectEmptyPage, expectSameSequence, expectToken, getOk, loadTruth,
    stack, TX_COLUMNS, unknownAddress, v2, walk,
} from './helpers'
import * as S from './shapes'

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const APPROVAL_TOPIC = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925'

describe('chain API: /addresses', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    async function addressRow(lower: string) {
        return (await s.db.query('SELECT id, balance::text, balance_block, is_contract, creator, creation_transaction, gas_used::text FROM address WHERE id = $1', [lower])).rows[0]
    }
    async function countOf(sql: string, params: unknown[]): Promise<number> {
        return (await s.db.query(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0].n
    }

    it('/addresses/{h} of a trader: balance from the row and the chain, flags, no creator or token; lower or checksummed input', async () => {
        const trader = s.account(11).address
        const lower = trader.toLowerCase()
        const dbRow = await addressRow(lower)
        for (const form of [lower, trader]) {
            const a = await getOk(`/addresses/${form}`, S.Address)
            expect(a.hash).to.equal(trader)
            expect(a.is_contract).to.equal(false)
            expect(a.is_verified, 'an account known to the database').to.equal(false)
            expect(a.coin_balance).to.equal(dbRow.balance)
            expect(a.coin_balance).to.equal((await s.client.getBalance({ address: trader })).toString())
            expect(a.block_number_balance_updated_at).to.equal(dbRow.balance_block)
            expect(a.creator_address_hash).to.equal(null)
            expect(a.creation_transaction_hash).to.equal(null)
            expect(a.token).to.equal(null)
            expect(a.has_token_transfers).to.equal(true)
            expect(a.has_tokens).to.equal(true)
            expect(a.has_logs, 'an account emits no logs').to.equal(false)
            expect(a.has_validated_blocks).to.equal(false)
        }
    })

    it('/addresses/{h} of a token contract of ours: verified, named, its token, creator and creation transaction', async () => {
        const gold = s.tokens.GOLD
        const dbRow = await addressRow(gold.toLowerCase())
        const truth = await loadTruth(s.db)
        const a = await getOk(`/addresses/${gold}`, S.Address)
        expect(a.hash).to.equal(gold)
        expect(a.is_contract).to.equal(true)
        expect(a.is_verified).to.equal(true)
        expect(a.name).to.equal('PlatformToken')
        expect(a.creator_address_hash).to.equal(checksum(dbRow.creator))
        expect(a.creator_address_hash).to.equal(s.account(0).address)
        expect(a.creation_transaction_hash).to.equal(dbRow.creation_transaction)
        expect(a.creation_status).to.equal('success')
        expect(a.has_logs).to.equal(true)
        expect(a.token).to.not.equal(null)
        expectToken(a.token!, truth.tokens.get(gold.toLowerCase())!, '/addresses/GOLD.token')
    })

    it('/addresses/{h} of a pair created by our factory: contract, verified as AmmPair, created by the factory', async () => {
        const pair = s.pairs['GOLD/STABLE']
        const a = await getOk(`/addresses/${pair}`, S.Address)
        expect(a.is_contract).to.equal(true)
        expect(a.is_verified).to.equal(true)
        expect(a.name).to.equal('AmmPair')
        expect(a.creator_address_hash).to.equal(getAddress(s.contracts.factory))
    })

    it('/addresses/{h} of an unknown address is 200 with the empty profile', async () => {
        const unknown = unknownAddress()
        const a = await getOk(`/addresses/${unknown.toLowerCase()}`, S.Address)
        expect(a.hash).to.equal(unknown)
        expect(a).to.include({
            is_contract: false, name: null, is_scam: false, reputation: 'ok', proxy_type: null, ens_domain_name: null,
            creator_address_hash: null, creation_transaction_hash: null, creation_status: null, token: null,
            has_validated_blocks: false, has_logs: false, has_tokens: false, has_token_transfers: false, has_beacon_chain_withdrawals: false,
            block_number_balance_updated_at: null,
        })
        expect(a.implementations).to.deep.equal([])
        // is_verified is null for an address the database does not hold.
        expect(a.is_verified).to.equal(null)
        // [choice] "nulls and false": coin_balance null; "0" is accepted too (an unseen address holds nothing).
        expect(a.coin_balance).to.be.oneOf([null, '0'])
    })

    it('/addresses/{h}/counters: transactions, token transfers, gas used, validations from the rows; all "0" for an unknown address', async () => {
        for (const account of [s.account(10), s.account(0), s.account(1)]) {
            const lower = account.address.toLowerCase()
            const counters = await getOk(`/addresses/${account.address}/counters`, S.AddressCounters)
            const row = await addressRow(lower)
            expect(counters.transactions_count, `${account.address} transactions`).to.equal(String(await countOf(`transaction WHERE "from" = $1 OR "to" = $1 OR created_contract = $1`, [lower])))
            expect(counters.token_transfers_count, `${account.address} token transfers`).to.equal(String(await countOf(`token_transfer WHERE "from" = $1 OR "to" = $1`, [lower])))
            expect(counters.gas_usage_count, `${account.address} gas used`).to.equal(row.gas_used)
            expect(counters.validations_count, `${account.address} validations`).to.equal(String(await countOf('block WHERE miner = $1', [lower])))
        }
        expect(await getOk(`/addresses/${unknownAddress()}/counters`, S.AddressCounters)).to.deep.equal({
            transactions_count: '0', token_transfers_count: '0', gas_usage_count: '0', validations_count: '0',
        })
    })

    it('/addresses/{h}/tabs-counters: counts capped at 51; zeros for an unknown address', async () => {
        for (const account of [s.account(3), s.account(0), s.account(1)]) {
            const lower = account.address.toLowerCase()
            const tabs = await getOk(`/addresses/${account.address}/tabs-counters`, S.TabsCounters)
            const cap = (n: number) => Math.min(n, 51)
            expect(tabs.transactions_count, 'transactions').to.equal(cap(await countOf(`transaction WHERE "from" = $1 OR "to" = $1 OR created_contract = $1`, [lower])))
            expect(tabs.token_transfers_count, 'token transfers').to.equal(cap(await countOf(`token_transfer WHERE "from" = $1 OR "to" = $1`, [lower])))
            expect(tabs.token_balances_count, 'token balances').to.equal(cap(await countOf('token_balance WHERE holder = $1 AND value > 0', [lower])))
            expect(tabs.logs_count, 'logs').to.equal(cap(await countOf('log WHERE address = $1', [lower])))
            expect(tabs.validations_count, 'validations').to.equal(cap(await countOf('block WHERE miner = $1', [lower])))
            expect(tabs.internal_transactions_count, 'internal transactions').to.equal(cap(await countOf(
                `internal_transaction WHERE ("from" = $1 OR "to" = $1 OR created_contract = $1)
                   AND NOT (index = 0 AND type IN ('call', 'delegatecall', 'staticcall', 'callcode'))`, [lower])))
            expect(tabs.withdrawals_count).to.equal(0)
        }
        const deployerTabs = await getOk(`/addresses/${s.account(0).address}/tabs-counters`, S.TabsCounters)
        expect(deployerTabs.token_transfers_count, 'the deployer has more than 51 transfers: capped').to.equal(51)
        const stableTabs = await getOk(`/addresses/${s.tokens.STABLE}/tabs-counters`, S.TabsCounters)
        expect(stableTabs.logs_count, 'STABLE emitted more than 51 logs: capped').to.equal(51)
        const zero = await getOk(`/addresses/${unknownAddress()}/tabs-counters`, S.TabsCounters)
        expect(zero).to.deep.include({ transactions_count: 0, token_transfers_count: 0, token_balances_count: 0, logs_count: 0, withdrawals_count: 0, internal_transactions_count: 0, validations_count: 0 })
    })

    it('/addresses/{h}/token-balances: a bare array of every positive balance, token_instance null; [] for an unknown address', async () => {
        const holder = s.account(3).address
        const truth = await loadTruth(s.db)
        const res = await v2(`/addresses/${holder}/token-balances`)
        expect(res.status, res.text).to.equal(200)
        expect(Array.isArray(res.body), 'a bare array, not paginated').to.equal(true)
        const items = res.body.map((b: unknown, i: number) => {
            const parsed = S.TokenBalance.safeParse(b)
            if (!parsed.success) expect.fail(`token-balances[${i}]: ${parsed.error.message}`)
            return parsed.data
        }) as { token: S.Token; value: string; token_id: string | null }[]
        const rows = (await s.db.query('SELECT token, value::text FROM token_balance WHERE holder = $1 AND value > 0', [holder.toLowerCase()])).rows
        expect(items.map((b) => `${b.token.address_hash}=${b.value}`).sort()).to.deep.equal(rows.map((r) => `${checksum(r.token)}=${r.value}`).sort())
        for (const b of items) expectToken(b.token, truth.tokens.get(b.token.address_hash.toLowerCase()) as TokenDetailRow, `token-balances ${b.token.symbol}`)
        const none = await v2(`/addresses/${unknownAddress()}/token-balances`)
        expect(none.status).to.equal(200)
        expect(none.body).to.deep.equal([])
    })

    it('lists of an unknown well-formed address are empty, never 404', async () => {
        const unknown = unknownAddress()
        for (const form of [unknown, unknown.toLowerCase()]) {
            await expectEmptyPage(`/addresses/${form}/transactions`)
            await expectEmptyPage(`/addresses/${form}/transactions`, { filter: 'to' })
            await expectEmptyPage(`/addresses/${form}/transactions`, { filter: 'from' })
            await expectEmptyPage(`/addresses/${form}/logs`)
            await expectEmptyPage(`/addresses/${form}/token-transfers`)
            await expectEmptyPage(`/addresses/${form}/tokens`, { type: 'ERC-20' })
        }
    })

    it('/addresses/{h}/transactions?sort=value&order=asc|desc: every transaction once, by value', async () => {
        const trader = s.account(10).address
        const rows = (await s.db.query(`SELECT id, value::numeric AS v FROM transaction WHERE "from" = $1 OR "to" = $1 OR created_contract = $1`, [trader.toLowerCase()])).rows
        for (const order of ['asc', 'desc'] as const) {
            const { items } = await walk(`/addresses/${trader}/transactions`, S.TransactionListItem, {
                query: { sort: 'value', order }, keys: ['block_number', 'index', 'inserted_at', 'hash', 'value', 'fee', 'items_count'], itemsCount: true,
            })
            expect(items.map((t) => t.hash).sort(), `sort=value&order=${order}: the same transactions`).to.deep.equal(rows.map((r) => r.id).sort())
            expect(new Set(items.map((t) => t.hash)).size, 'no duplicates').to.equal(items.length)
            const values = items.map((t) => BigInt(t.value))
            for (let i = 1; i < values.length; i++) {
                if (order === 'asc') expect(values[i] >= values[i - 1], `order=asc at ${i}`).to.equal(true)
                else expect(values[i] <= values[i - 1], `order=desc at ${i}`).to.equal(true)
            }
        }
    })

    it('/addresses/{h}/logs?topic= keeps the logs carrying that topic', async () => {
        const page = await getOk(`/addresses/${s.tokens.STABLE}/logs`, S.page(S.Log), { topic: APPROVAL_TOPIC })
        const approvals = (await s.db.query('SELECT count(*)::int AS n FROM log WHERE address = $1 AND topic0 = $2', [s.tokens.STABLE.toLowerCase(), APPROVAL_TOPIC])).rows[0].n
        expect(approvals).to.be.greaterThan(0)
        expect(page.items.length).to.equal(Math.min(approvals, 50))
        expect(page.items.every((l) => l.topics.includes(APPROVAL_TOPIC))).to.equal(true)
        const transfers = await getOk(`/addresses/${s.tokens.STABLE}/logs`, S.page(S.Log), { topic: TRANSFER_TOPIC })
        expect(transfers.items.every((l) => l.topics[0] === TRANSFER_TOPIC)).to.equal(true)
    })

    it('/addresses/{h}/token-transfers?type=ERC-721 keeps the NFT transfers', async () => {
        const holder = s.account(3).address
        const page = await getOk(`/addresses/${holder}/token-transfers`, S.page(S.TokenTransfer), { type: 'ERC-721' })
        expect(page.items.map((t) => t.token.address_hash)).to.deep.equal([getAddress(s.extras.nft.address)])
        const erc20 = await getOk(`/addresses/${holder}/token-transfers`, S.page(S.TokenTransfer), { type: 'ERC-20' })
        expect(erc20.items.length).to.be.greaterThan(0)
        expect(erc20.items.every((t) => t.token_type === 'ERC-20')).to.equal(true)
    })

    it('malformed address hashes are 422 on every address route', async () => {
        const routes = ['', '/transactions', '/token-balances', '/logs', '/token-transfers', '/counters', '/tabs-counters', '/tokens?type=ERC-20']
        for (const bad of ['0x1234', 'abc', `0x${'g'.repeat(40)}`, `0x${'a'.repeat(39)}`, `0x${'a'.repeat(41)}`, `0x${'a'.repeat(64)}`, '1234']) {
            for (const route of routes) {
                const [path, q] = route.split('?')
                await expect422(`/addresses/${bad}${path}`, q ? Object.fromEntries(new URLSearchParams(q)) : undefined)
            }
        }
    })

    it('bad enums are 422: filter, sort, order, token type', async () => {
        const trader = s.account(10).address
        await expect422(`/addresses/${trader}/transactions`, { filter: 'sideways' })
        await expect422(`/addresses/${trader}/transactions`, { sort: 'colour', order: 'asc' })
        await expect422(`/addresses/${trader}/transactions`, { sort: 'value', order: 'up' })
        await expect422(`/addresses/${trader}/tokens`, { type: 'ERC-999' })
        await expect422(`/addresses/${trader}/token-transfers`, { type: 'ERC-999' })
    })

    it('the transactions of an address include its contract creations (created_contract) with filter=to', async () => {
        const { address, transactionHash } = s.extras.unverified
        const page = await getOk(`/addresses/${address}/transactions`, S.page(S.TransactionListItem))
        expect(page.items.map((t) => t.hash)).to.deep.equal([transactionHash])
        const to = await getOk(`/addresses/${address}/transactions`, S.page(S.TransactionListItem), { filter: 'to' })
        expect(to.items.map((t) => t.hash)).to.deep.equal([transactionHash])
        await expectEmptyPage(`/addresses/${address}/transactions`, { filter: 'from' })
        const rows = (await s.db.query(`SELECT ${TX_COLUMNS} FROM transaction WHERE created_contract = $1`, [address.toLowerCase()])).rows
        expect(rows).to.have.length(1)
    })

    describe('/addresses: top accounts', () => {
        // 60 holders of the same small balance, more than a page of ties, on top of the real
        // holders: addresses the chain never touches, removed afterwards.
        const extra = Array.from({ length: 60 }, () => unknownAddress().toLowerCase())
        before(async () => {
            await s.db.query(`INSERT INTO address (id, balance, balance_block, is_contract, transaction_count, token_transfer_count, gas_used,
                    log_count, first_block, last_block)
                SELECT unnest($1::text[]), 7, 0, false, 0, 0, 0, 0, 0, 0`, [extra])
        })
        after(async () => {
            await s.db.query('DELETE FROM address WHERE id = ANY($1::text[])', [extra])
        })

        async function holderRows() {
            return (await s.db.query(`SELECT a.id, a.balance::text AS balance, a.transaction_count FROM address a WHERE a.balance > 0
                ORDER BY a.balance DESC, a.id ASC`)).rows
        }

        it('exchange_rate is null (no price feed) and total_supply the coin held by every indexed address', async () => {
            const page = await getOk('/addresses', S.TopAddressesPage)
            // The indexer keeps the sum as it writes balances: the rows this file put in by hand are not in it.
            const { rows: [db] } = await s.db.query('SELECT sum(balance)::text AS total FROM address WHERE NOT id = ANY($1::text[])', [extra])
            expect(page.exchange_rate).to.equal(null)
            expect(page.total_supply).to.equal(db.total)
            expect(BigInt(page.total_supply!) > 0n, 'some coin is held').to.equal(true)
        })

        it('every coin holder, balance descending then address ascending, walked to the end across 60 equal balances', async () => {
            const truth = await loadTruth(s.db)
            const rows = await holderRows()
            expect(rows.length).to.be.greaterThan(100)
            const { items, cursors } = await walk('/addresses', S.TopAddress, {
                page: S.TopAddressesPage, keys: ['fetched_coin_balance', 'hash', 'transactions_count', 'items_count'], itemsCount: true,
            })
            expectSameSequence(items.map((a) => a.hash), rows.map((r) => checksum(r.id)), '/addresses')
            items.forEach((item, i) => {
                const what = `/addresses[${i}]`
                expectAddressParam(item, rows[i].id, truth, what)
                expect(item.coin_balance, `${what}.coin_balance`).to.equal(rows[i].balance)
                expect(item.transactions_count, `${what}.transactions_count`).to.equal(String(rows[i].transaction_count))
            })
            // Blockscout's cursor: the balance as a string, the address, the transaction count as a number.
            expect(cursors[0]).to.deep.equal({
                fetched_coin_balance: rows[49].balance, hash: rows[49].id, transactions_count: rows[49].transaction_count, items_count: 50,
            })
            expect(items.some((a) => a.is_contract), 'contracts hold coin too (WNATIVE)').to.equal(true)
        })

        it('the richest account\'s balance is the one the chain reports', async () => {
            const page = await getOk('/addresses', S.TopAddressesPage)
            const richest = page.items[0]
            expect(richest.coin_balance).to.equal((await s.client.getBalance({ address: richest.hash as `0x${string}` })).toString())
        })

        it('a cursor past every holder (balance 0) is an empty page', async () => {
            const res = await v2('/addresses', { fetched_coin_balance: '0', hash: unknownAddress(), transactions_count: '0', items_count: '50' })
            expect(res.status, res.text).to.equal(200)
            expect(res.body.items).to.deep.equal([])
            expect(res.body.next_page_params).to.equal(null)
        })

        it('malformed cursors are 422', async () => {
            const hash = unknownAddress()
            await expect422('/addresses', { fetched_coin_balance: 'lots', hash, items_count: '50' })
            await expect422('/addresses', { fetched_coin_balance: '-5', hash, items_count: '50' })
            await expect422('/addresses', { fetched_coin_balance: '5', hash: '0x12', items_count: '50' })
            await expect422('/addresses', { fetched_coin_balance: '5', hash, transactions_count: 'many', items_count: '50' })
            await expect422('/addresses', { fetched_coin_balance: '5', hash, items_count: '500' })
        })

        it('the frontend echoes a null transactions_count as "null": accepted, the same next page', async () => {
            const first = await getOk('/addresses', S.TopAddressesPage)
            expect(first.next_page_params, 'more than one page of holders').to.not.equal(null)
            const next = await getOk('/addresses', S.TopAddressesPage, { ...first.next_page_params, transactions_count: null })
            const again = await getOk('/addresses', S.TopAddressesPage, first.next_page_params!)
            expect(next.items.map((a) => a.hash)).to.deep.equal(again.items.map((a) => a.hash))
            expect(again.items[0].hash).to.not.equal(first.items[0].hash)
        })
    })
})
