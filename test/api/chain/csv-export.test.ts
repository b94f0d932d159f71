import { expect } from 'chai'
import * as fs from 'fs'
import * as http from 'http'
import { AddressInfo } from 'net'
import { Client } from 'pg'
import { formatUnits, getAddress } from 'viem'
import { HistoryNode, NO_CONTRACTS, startHistoryNode } from '../../../bench/history-node'
import { loadSyntheticRows, syntheticBlockTimeMs, SyntheticDataset } from '../../../bench/synthetic-rows'
import { applyMigrations } from '../../../db/migrate'
import { ApiProcess, startApi } from '../../support/api'
import { createTestDatabase } from '../../support/postgres'
import { expectStatus, stack, v2 } from './helpers'
import * as S from './shapes'

/**
 * The CSV exports (docs/chain-api.md#csv-export): on the seeded devnet, each file's rows are the
 * list route's items of the same period, in the same order; on an api process of its own over
 * 11,000 synthetic blocks, a 10,000-row export streams within a bounded RSS, the captcha is checked
 * with a loopback provider, and a flood from one client IP is refused.
 */

const CSV_HEADERS = {
    transactions: ['TxHash', 'BlockNumber', 'UnixTimestamp', 'FromAddress', 'ToAddress', 'ContractAddress', 'Type', 'Value', 'Fee', 'Status', 'ErrCode',
        'CurrentPrice', 'TxDateOpeningPrice', 'TxDateClosingPrice', 'MethodName'],
    internal: ['TxHash', 'Index', 'BlockNumber', 'TxIndex', 'UnixTimestamp', 'FromAddress', 'ToAddress', 'ContractAddress', 'Type', 'CallType', 'Gas',
        'GasUsed', 'Value', 'Input', 'Output', 'ErrCode', 'Fee'],
    transfers: ['TxHash', 'BlockNumber', 'UnixTimestamp', 'FromAddress', 'ToAddress', 'TokenContractAddress', 'Type', 'TokenDecimals', 'TokenSymbol',
        'TokensTransferred', 'TransactionFee', 'Status', 'ErrCode'],
    logs: ['TxHash', 'Index', 'BlockNumber', 'BlockHash', 'ContractAddress', 'Data', 'FirstTopic', 'SecondTopic', 'ThirdTopic', 'FourthTopic'],
    holders: ['HolderAddress', 'Balance'],
    advanced: ['TxHash', 'Type', 'MethodId', 'UtcTimestamp', 'FromAddress', 'ToAddress', 'CreatedContractAddress', 'Value', 'TokenContractAddressHash',
        'TokenDecimals', 'TokenSymbol', 'TokenValue', 'TokenID', 'BlockNumber', 'Fee', 'CurrentPrice', 'TxDateOpeningPrice', 'TxDateClosingPrice'],
}

/** RFC 4180, written here apart from the API's writer so that its quoting is checked too. */
function parseCsv(text: string): string[][] {
    const records: string[][] = []
    let field = ''
    let record: string[] = []
    let quoted = false
    for (let i = 0; i < text.length; i++) {
        const c = text[i]
        if (quoted) {
            if (c === '"' && text[i + 1] === '"') (field += '"', i++)
            else if (c === '"') quoted = false
            else field += c
        } else if (c === '"') quoted = true
        else if (c === ',') (record.push(field), field = '')
        else if (c === '\r' && text[i + 1] === '\n') (record.push(field), records.push(record), record = [], field = '', i++)
        else field += c
    }
    expect(field === '' && record.length === 0, 'the file ends with CRLF').to.equal(true)
    return records
}

interface Csv {
    status: number
    headers: Headers
    text: string
    /** the records after the header line, each as header → field */
    rows: Record<string, string>[]
    header: string[]
}

async function getCsv(baseUrl: string, path: string, query: Record<string, string>, headers: Record<string, string> = {}): Promise<Csv> {
    const res = await fetch(`${baseUrl}${path}?${new URLSearchParams(query)}`, { headers })
    const text = await res.text()
    if (res.status !== 200) return { status: res.status, headers: res.headers, text, rows: [], header: [] }
    const [header, ...records] = parseCsv(text)
    return { status: res.status, headers: res.headers, text, header, rows: records.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))) }
}

const csvTime = (iso: string | null) => (iso === null ? '' : iso.replace('T', ' '))
const orEmpty = (value: string | number | null | undefined) => (value === null || value === undefined ? '' : String(value))

/** Follows an address list newest first until its items are below block `from`; the items of blocks from..to. */
async function listInPeriod(path: string, blocks: { from: number; to: number }, query: Record<string, unknown> = {}): Promise<any[]> {
    const items: any[] = []
    let cursor: Record<string, unknown> = {}
    for (let page = 0; page < 400; page++) {
        const res = expectStatus(await v2(path, { ...query, ...cursor }), 200, `GET /api/v2${path}`)
        for (const item of res.body.items) {
            if (item.block_number < blocks.from) return items
            if (item.block_number <= blocks.to) items.push(item)
        }
        if (res.body.next_page_params === null) return items
        cursor = res.body.next_page_params
    }
    return expect.fail(`${path}: more than 400 pages`)
}

describe('chain API: CSV export', function () {
    this.timeout(600_000)

    describe('on the seeded devnet (rows equal the list routes\' items)', () => {
        let baseUrl: string
        /** the whole seeded history but its first hour, a period the bound allows */
        let period: { from_period: string; to_period: string }
        /** the blocks mined in it, read from the database */
        let blocks: { from: number; to: number }

        before(async () => {
            const s = await stack()
            baseUrl = s.explorerUrl
            const { rows } = await s.db.query<{ first: Date; last: Date }>('SELECT min(timestamp) AS first, max(timestamp) AS last FROM block')
            const fromMs = rows[0].first.getTime() + 3_600_000
            const toMs = rows[0].last.getTime()
            period = { from_period: new Date(fromMs).toISOString(), to_period: new Date(toMs).toISOString() }
            const range = await s.db.query<{ from: number; to: number }>(
                'SELECT min(number) AS from, max(number) AS to FROM block WHERE timestamp >= $1 AND timestamp <= $2', [new Date(fromMs), new Date(toMs)])
            blocks = range.rows[0]
            expect(blocks.from, 'the period leaves blocks out').to.be.greaterThan(0)
        })

        const ask = (kind: string, address: string, extra: Record<string, string> = {}) =>
            getCsv(baseUrl, `/api/v1/${kind}-csv`, { address_id: address, from_period: period.from_period, to_period: period.to_period, ...extra })

        it('an address\'s transactions: the list\'s items of the period, Blockscout\'s columns, exact amounts', async () => {
            const s = await stack()
            const address = s.account(1).address.toLowerCase()
            const csv = await ask('transactions', address)
            expect(csv.status, csv.text).to.equal(200)
            expect(csv.headers.get('content-type')).to.match(/^text\/csv/)
            expect(csv.headers.get('content-disposition')).to.match(/^attachment; filename="transactions_0x[0-9a-f]{40}_.+\.csv"$/)
            expect(csv.header).to.deep.equal(CSV_HEADERS.transactions)
            const items = await listInPeriod(`/addresses/${address}/transactions`, blocks)
            expect(items.length, 'the address has transactions in the period').to.be.greaterThan(50)
            expect(csv.rows.map((r) => r.TxHash)).to.deep.equal(items.map((t) => t.hash))
            csv.rows.forEach((row, i) => {
                const t = S.TransactionListItem.parse(items[i])
                expect(row, t.hash).to.deep.equal({
                    TxHash: t.hash, BlockNumber: String(t.block_number), UnixTimestamp: csvTime(t.timestamp),
                    FromAddress: t.from.hash, ToAddress: orEmpty(t.to?.hash), ContractAddress: orEmpty(t.created_contract?.hash),
                    Type: t.from.hash.toLowerCase() === address ? 'OUT' : t.to?.hash.toLowerCase() === address ? 'IN' : '',
                    Value: t.value, Fee: t.fee.value, Status: t.status, ErrCode: t.status === 'ok' ? '' : orEmpty(t.result),
                    CurrentPrice: '', TxDateOpeningPrice: '', TxDateClosingPrice: '', MethodName: orEmpty(t.method),
                })
            })
            // Recomputed from the node: the fee-paying coin transfer's value and fee, in wei, as decimal strings.
            const receipt = await s.client.getTransactionReceipt({ hash: s.extras.feeCoinTransfer })
            const paid = csv.rows.find((r) => r.TxHash === s.extras.feeCoinTransfer)!
            expect(paid.Value).to.equal('1500000000000000000')
            expect(paid.Fee).to.equal(String(receipt.gasUsed * receipt.effectiveGasPrice))
            expect(paid.Fee).to.not.equal('0')
            expect(paid.Type).to.equal('OUT')
        })

        it('filter_type=address&filter_value=to keeps the rows the address received, as the list\'s filter=to', async () => {
            const s = await stack()
            const address = s.account(2).address.toLowerCase()
            const csv = await ask('transactions', address, { filter_type: 'address', filter_value: 'to' })
            expect(csv.status, csv.text).to.equal(200)
            const items = await listInPeriod(`/addresses/${address}/transactions`, blocks, { filter: 'to' })
            expect(items.length).to.be.greaterThan(0)
            expect(csv.rows.map((r) => r.TxHash)).to.deep.equal(items.map((t) => t.hash))
            expect(new Set(csv.rows.map((r) => r.Type))).to.deep.equal(new Set(['IN']))
        })

        it('an address\'s internal transactions: the list\'s items of the period', async () => {
            const s = await stack()
            const router = s.contracts.router.toLowerCase()
            const csv = await ask('internal-transactions', router)
            expect(csv.status, csv.text).to.equal(200)
            expect(csv.header).to.deep.equal(CSV_HEADERS.internal)
            const items = await listInPeriod(`/addresses/${router}/internal-transactions`, blocks)
            expect(items.length, 'the router has internal transactions').to.be.greaterThan(50)
            expect(csv.rows.map((r) => `${r.TxHash}:${r.Index}`)).to.deep.equal(items.map((i) => `${i.transaction_hash}:${i.index}`))
            const calls = ['call', 'delegatecall', 'staticcall', 'callcode']
            csv.rows.forEach((row, n) => {
                const i = S.InternalTransaction.parse(items[n])
                expect({
                    BlockNumber: row.BlockNumber, TxIndex: row.TxIndex, UnixTimestamp: row.UnixTimestamp, FromAddress: row.FromAddress,
                    ToAddress: row.ToAddress, ContractAddress: row.ContractAddress, Type: row.Type, CallType: row.CallType, Gas: row.Gas,
                    Value: row.Value, ErrCode: row.ErrCode,
                }, `${i.transaction_hash}:${i.index}`).to.deep.equal({
                    BlockNumber: String(i.block_number), TxIndex: String(i.transaction_index), UnixTimestamp: csvTime(i.timestamp),
                    FromAddress: i.from.hash, ToAddress: orEmpty(i.to?.hash), ContractAddress: orEmpty(i.created_contract?.hash),
                    Type: calls.includes(i.type) ? 'call' : i.type, CallType: calls.includes(i.type) ? i.type : '', Gas: i.gas_limit ?? '0',
                    Value: i.value, ErrCode: orEmpty(i.error),
                })
            })
            // GasUsed, Input, Output and Fee are not in the list item: recomputed from the frame's and its transaction's rows.
            const first = csv.rows[0]
            const { rows } = await s.db.query(
                `SELECT i.gas_used::text, i.input, i.output, COALESCE(t.gas_price, t.effective_gas_price)::text AS price
                   FROM internal_transaction i JOIN transaction t ON t.id = i.transaction_hash
                  WHERE i.transaction_hash = $1 AND i.index = $2`, [first.TxHash, Number(first.Index)])
            expect(first.GasUsed).to.equal(rows[0].gas_used)
            expect(first.Input).to.equal(rows[0].input ? `0x${rows[0].input.toString('hex')}` : '')
            expect(first.Output).to.equal(rows[0].output ? `0x${rows[0].output.toString('hex')}` : '')
            expect(first.Fee).to.equal(String(BigInt(rows[0].price) * BigInt(rows[0].gas_used)))
        })

        it('an address\'s token transfers: the list\'s items of the period, with their transaction\'s fee and status', async () => {
            const s = await stack()
            const holder = s.account(3).address.toLowerCase()
            const csv = await ask('token-transfers', holder)
            expect(csv.status, csv.text).to.equal(200)
            expect(csv.header).to.deep.equal(CSV_HEADERS.transfers)
            const items = await listInPeriod(`/addresses/${holder}/token-transfers`, blocks)
            expect(items.length).to.be.greaterThan(0)
            expect(csv.rows.map((r) => `${r.TxHash}:${r.BlockNumber}`)).to.deep.equal(items.map((t) => `${t.transaction_hash}:${t.block_number}`))
            csv.rows.forEach((row, n) => {
                const t = S.TokenTransfer.parse(items[n])
                expect({ ...row, TransactionFee: undefined, Status: undefined, ErrCode: undefined }, t.transaction_hash).to.deep.equal({
                    TxHash: t.transaction_hash, BlockNumber: String(t.block_number), UnixTimestamp: csvTime(t.timestamp),
                    FromAddress: t.from.hash, ToAddress: t.to.hash, TokenContractAddress: t.token!.address_hash,
                    Type: t.from.hash.toLowerCase() === holder ? 'OUT' : t.to.hash.toLowerCase() === holder ? 'IN' : '',
                    TokenDecimals: orEmpty(t.token!.decimals), TokenSymbol: orEmpty(t.token!.symbol),
                    TokensTransferred: orEmpty((t.total as { value?: string | null }).value),
                    TransactionFee: undefined, Status: undefined, ErrCode: undefined,
                })
            })
            // The GOLD transfer that paid a fee: 12.5 GOLD in base units, and its transaction's fee from the node.
            const gold = csv.rows.find((r) => r.TxHash === s.extras.feeTokenTransfer)!
            const receipt = await s.client.getTransactionReceipt({ hash: s.extras.feeTokenTransfer })
            expect(gold).to.include({ TokensTransferred: '12500000000000000000', TokenSymbol: 'GOLD', TokenDecimals: '18', Type: 'IN', Status: 'ok', ErrCode: '' })
            expect(gold.TransactionFee).to.equal(String(receipt.gasUsed * receipt.effectiveGasPrice))
        })

        it('the logs a contract emitted: the list\'s items of the period; filter_type=topic keeps that topic', async () => {
            const s = await stack()
            const gold = s.tokens.GOLD.toLowerCase()
            const csv = await ask('logs', gold)
            expect(csv.status, csv.text).to.equal(200)
            expect(csv.header).to.deep.equal(CSV_HEADERS.logs)
            const items = await listInPeriod(`/addresses/${gold}/logs`, blocks)
            expect(items.length).to.be.greaterThan(50)
            expect(csv.rows.map((r) => [r.TxHash, r.Index, r.BlockNumber, r.BlockHash, r.ContractAddress, r.Data, r.FirstTopic, r.SecondTopic, r.ThirdTopic, r.FourthTopic]))
                .to.deep.equal(items.map((l) => S.Log.parse(l)).map((l) => [l.transaction_hash, String(l.index), String(l.block_number), l.block_hash, l.address.hash, l.data,
                    ...[0, 1, 2, 3].map((i) => orEmpty(l.topics[i]))]))
            const approval = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925'
            const transfers = await ask('logs', gold, { filter_type: 'topic', filter_value: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' })
            expect(transfers.rows.length).to.be.greaterThan(0).and.below(csv.rows.length + 1)
            expect(transfers.rows.every((r) => r.FirstTopic !== approval)).to.equal(true)
            expect(transfers.rows.map((r) => r.TxHash + r.Index)).to.deep.equal(csv.rows.filter((r) => [r.FirstTopic, r.SecondTopic, r.ThirdTopic, r.FourthTopic]
                .includes('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef')).map((r) => r.TxHash + r.Index))
        })

        it('a token\'s holders: every holder of the list, the balance in whole tokens, exactly', async () => {
            const s = await stack()
            const stable = s.tokens.STABLE.toLowerCase()
            // The frontend sends the period and filter keys as "null" for holders.
            const csv = await getCsv(baseUrl, `/api/v2/tokens/${stable}/holders/csv`, { address_id: stable, from_period: 'null', to_period: 'null', filter_type: 'null', filter_value: 'null' })
            expect(csv.status, csv.text).to.equal(200)
            expect(csv.header).to.deep.equal(CSV_HEADERS.holders)
            const holders: any[] = []
            let cursor: Record<string, unknown> = {}
            for (;;) {
                const res = expectStatus(await v2(`/tokens/${stable}/holders`, cursor), 200, 'holders')
                holders.push(...res.body.items)
                if (res.body.next_page_params === null) break
                cursor = res.body.next_page_params
            }
            expect(holders.length, 'more than a page of holders').to.be.greaterThan(50)
            const { rows } = await s.db.query<{ decimals: number }>('SELECT decimals FROM token WHERE id = $1', [stable])
            const whole = (value: string) => {
                const text = formatUnits(BigInt(value), rows[0].decimals)
                return text.includes('.') ? text : `${text}.0`
            }
            expect(csv.rows).to.deep.equal(holders.map((h) => ({ HolderAddress: S.Holder.parse(h).address.hash, Balance: whole(h.value) })))
            // What each Disperse recipient was sent, in whole tokens, exactly.
            expect(csv.rows.find((r) => r.HolderAddress === getAddress(s.extras.disperse.recipients[0]))?.Balance).to.equal(whole(String(s.extras.disperse.amount)))
        })

        it('the advanced filter\'s export: the list\'s items for the same parameters, in order, with the fee once per transaction; an age range past the bound is a 422', async () => {
            const query = { transaction_types: 'ERC-20,coin_transfer,contract_interaction', age_from: period.from_period, age_to: period.to_period }
            const csv = await getCsv(baseUrl, '/api/v2/advanced-filters/csv', query)
            expect(csv.status, csv.text).to.equal(200)
            expect(csv.headers.get('content-disposition')).to.equal('attachment; filename="advanced_filter.csv"')
            expect(csv.header).to.deep.equal(CSV_HEADERS.advanced)
            const items: any[] = []
            let cursor: Record<string, unknown> = {}
            for (let page = 0; page < 400; page++) {
                const res = expectStatus(await v2('/advanced-filters', { ...query, ...cursor }), 200, 'GET /api/v2/advanced-filters')
                items.push(...res.body.items)
                if (res.body.next_page_params === null) break
                cursor = res.body.next_page_params
            }
            expect(items.length, 'more than a page of items').to.be.greaterThan(50)
            expect(csv.rows.length).to.equal(items.length)
            // The list shows a transaction's fee once per page; the file, once in all.
            const feeOf = new Map(items.filter((i) => i.internal_transaction_index === null && i.fee !== '0').map((i) => [i.hash, i.fee]))
            const feeShown = new Set<string>()
            csv.rows.forEach((row, n) => {
                const i = items[n]
                const internal = i.internal_transaction_index !== null
                const fee = internal ? i.fee : feeShown.has(i.hash) ? '0' : feeOf.get(i.hash) ?? '0'
                if (!internal) feeShown.add(i.hash)
                const { MethodId, ...shown } = row
                expect(shown, `${i.hash} item ${n}`).to.deep.equal({
                    TxHash: i.hash, Type: i.type, UtcTimestamp: csvTime(i.timestamp), FromAddress: i.from.hash, ToAddress: orEmpty(i.to?.hash),
                    CreatedContractAddress: orEmpty(i.created_contract?.hash), Value: orEmpty(i.value), TokenContractAddressHash: orEmpty(i.token?.address_hash),
                    TokenDecimals: orEmpty(i.token?.decimals), TokenSymbol: orEmpty(i.token?.symbol),
                    TokenValue: i.total?.value ? formatUnits(BigInt(i.total.value), Number(i.total.decimals ?? 0)) : '', TokenID: orEmpty(i.total?.token_id),
                    BlockNumber: String(i.block_number), Fee: fee, CurrentPrice: '', TxDateOpeningPrice: '', TxDateClosingPrice: '',
                })
                if (i.method === 'transfer') expect(MethodId, i.hash).to.equal('0xa9059cbb')
                else if (/^0x[0-9a-f]{8}$/.test(i.method ?? '')) expect(MethodId, i.hash).to.equal(i.method)
            })
            expect(csv.rows.some((r) => r.TokenValue !== '' && r.TokenValue.includes('.')), 'some transfer in whole tokens with a fraction').to.equal(true)
            const tooLong = await fetch(`${baseUrl}/api/v2/advanced-filters/csv?${new URLSearchParams({ age_from: '2024-01-01T00:00:00Z', age_to: '2025-06-30T00:00:00Z' })}`)
            expect(tooLong.status).to.equal(422)
            const body = await tooLong.json() as any
            expect(body.errors[0]).to.deep.include({ source: { pointer: '/age_from' } })
            expect(body.errors[0].detail).to.match(/longer than 366 days/)
        })

        it('the current frontend\'s paths, /api/v2/addresses/{hash}/<kind>/csv, answer the same files as /api/v1/<kind>-csv; address_id, when sent, must be the path\'s', async () => {
            const s = await stack()
            const account = s.account(1).address.toLowerCase()
            const cases: { kind: string; header: keyof typeof CSV_HEADERS; address: string; extra: Record<string, string> }[] = [
                { kind: 'transactions', header: 'transactions', address: account, extra: {} },
                { kind: 'internal-transactions', header: 'internal', address: s.contracts.router.toLowerCase(), extra: { filter_type: 'address', filter_value: 'from' } },
                { kind: 'token-transfers', header: 'transfers', address: s.account(3).address.toLowerCase(), extra: { filter_type: 'null', filter_value: 'null' } },
                { kind: 'logs', header: 'logs', address: s.tokens.GOLD.toLowerCase(), extra: {} },
            ]
            for (const { kind, header, address, extra } of cases) {
                const v1 = await ask(kind, address, extra)
                // As the frontend's CsvExportForm asks it: address_id too, the period, the filter.
                const v2 = await getCsv(baseUrl, `/api/v2/addresses/${address}/${kind}/csv`, { address_id: address, ...period, ...extra })
                expect(v2.status, v2.text).to.equal(200)
                expect(v2.header).to.deep.equal(CSV_HEADERS[header])
                expect(v2.rows.length, `${kind}: rows in the period`).to.be.greaterThan(0)
                expect(v2.text, kind).to.equal(v1.text)
                expect(v2.headers.get('content-disposition')).to.equal(v1.headers.get('content-disposition'))
                const withoutId = await getCsv(baseUrl, `/api/v2/addresses/${address}/${kind}/csv`, { ...period, ...extra })
                expect(withoutId.text, `${kind} without address_id`).to.equal(v1.text)
            }
            const other = await fetch(`${baseUrl}/api/v2/addresses/${account}/transactions/csv?${new URLSearchParams({ address_id: s.account(2).address, ...period })}`)
            expect(other.status).to.equal(422)
            expect(((await other.json()) as any).errors[0]).to.deep.include({ source: { pointer: '/address_id' } })
            expect((await fetch(`${baseUrl}/api/v2/addresses/0x12/logs/csv?${new URLSearchParams(period)}`)).status).to.equal(422)
            const unknown = await fetch(`${baseUrl}/api/v2/addresses/0x${'ab'.repeat(20)}/transactions/csv?${new URLSearchParams(period)}`)
            expect({ status: unknown.status, body: await unknown.json() }).to.deep.equal({ status: 404, body: { message: 'Not found' } })
        })

        it('a period with no block answers the header alone; the CSV routes answer 422 for bad input and 404 for what is unknown', async () => {
            const s = await stack()
            const address = s.account(1).address
            const empty = await getCsv(baseUrl, '/api/v1/transactions-csv', { address_id: address, from_period: '2001-01-01', to_period: '2001-01-31' })
            expect(empty.status).to.equal(200)
            expect(empty.text).to.equal(`${CSV_HEADERS.transactions.join(',')}\r\n`)
            const status = async (path: string, query: Record<string, string>) => {
                const res = await fetch(`${baseUrl}${path}?${new URLSearchParams(query)}`)
                return { status: res.status, body: await res.json() as any }
            }
            const base = { address_id: address, from_period: period.from_period, to_period: period.to_period }
            const tooLong = await status('/api/v1/transactions-csv', { ...base, from_period: '2024-01-01', to_period: '2025-06-30' })
            expect(tooLong.status).to.equal(422)
            expect(tooLong.body.errors[0]).to.deep.include({ source: { pointer: '/to_period' } })
            expect(tooLong.body.errors[0].detail).to.match(/longer than 366 days/)
            expect((await status('/api/v1/logs-csv', { ...base, from_period: period.to_period, to_period: period.from_period })).status).to.equal(422)
            const bads: Record<string, string>[] = [{ address_id: '0x12' }, { from_period: 'yesterday' }, { to_period: '2024-13-01' }, { filter_type: 'address', filter_value: 'sideways' },
                { filter_type: 'topic', filter_value: 'from' }]
            for (const bad of bads) {
                const res = await status('/api/v1/token-transfers-csv', { ...base, ...bad })
                expect(res.status, JSON.stringify(bad)).to.equal(422)
                expect(res.body.errors.length).to.be.greaterThan(0)
            }
            const { from_period: _from, ...noPeriod } = base
            expect((await status('/api/v1/internal-transactions-csv', noPeriod)).status).to.equal(422)
            expect((await status('/api/v1/logs-csv', { ...base, filter_type: 'topic', filter_value: 'not-a-topic' })).status).to.equal(422)
            expect(await status('/api/v1/transactions-csv', { ...base, address_id: `0x${'ab'.repeat(20)}` })).to.deep.equal({ status: 404, body: { message: 'Not found' } })
            expect(await status(`/api/v2/tokens/0x${'ab'.repeat(20)}/holders/csv`, {})).to.deep.equal({ status: 404, body: { message: 'Not found' } })
            expect((await status('/api/v2/tokens/0x12/holders/csv', {})).status).to.equal(422)
        })

        it('a frontend on another host may ask: the preflight of its request (content-type and recaptcha-v2-response headers) is allowed', async () => {
            for (const path of ['/api/v1/transactions-csv', `/api/v2/tokens/${(await stack()).tokens.STABLE}/holders/csv`]) {
                const res = await fetch(`${baseUrl}${path}`, {
                    method: 'OPTIONS',
                    headers: { origin: 'https://explorer.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'content-type,recaptcha-v2-response' },
                })
                expect(res.status, path).to.equal(204)
                expect(res.headers.get('access-control-allow-origin'), path).to.equal('*')
                expect(res.headers.get('access-control-allow-headers'), path).to.match(/recaptcha-v2-response/)
            }
        })

        it('/api/v2/config/csv-export says what is on: Blockscout\'s limit and async_enabled, the captcha off, the period and the budget', async () => {
            const res = await v2('/config/csv-export')
            expectStatus(res, 200, 'config')
            expect(res.body).to.deep.equal({ limit: 10_000, async_enabled: false, captcha_enabled: false, max_period_days: 366, exports_per_ip: 50, window_seconds: 3600 })
        })
    })

    describe('an api process of its own over 11,000 synthetic blocks: 10,000 rows, the captcha, a flood', () => {
        const BLOCKS = 11_000
        const SECRET = 'captcha-secret-for-the-test'
        const GOOD_TOKEN = 'solved-captcha-token'
        const STALLING_TOKEN = 'token-the-provider-never-answers'
        const FAILING_TOKEN = 'token-the-provider-fails-on'
        const BUDGET = 12
        const WIDE_DATA_BYTES = 8192
        let dataset: SyntheticDataset
        let node: HistoryNode | undefined
        let api: ApiProcess | undefined
        let provider: http.Server | undefined
        /** the siteverify requests the loopback provider received */
        const verified: URLSearchParams[] = []
        /** every synthetic block (dates: the whole days they fall in) */
        const wholeDay = { from_period: new Date(syntheticBlockTimeMs(0)).toISOString().slice(0, 10), to_period: new Date(syntheticBlockTimeMs(BLOCKS - 1)).toISOString().slice(0, 10) }
        /** the last 100 blocks: a small export */
        const recent = { from_period: new Date(syntheticBlockTimeMs(BLOCKS - 100)).toISOString(), to_period: new Date(syntheticBlockTimeMs(BLOCKS - 1)).toISOString() }

        before(async () => {
            // A captcha provider speaking the siteverify protocol (reCAPTCHA, hCaptcha, Turnstile share it): a form POST of secret and response.
            provider = http.createServer((req, res) => {
                let body = ''
                req.on('data', (d) => (body += d))
                req.on('end', () => {
                    const form = new URLSearchParams(body)
                    verified.push(form)
                    // A provider that stalls (answers only when the test ends) or fails.
                    if (form.get('response') === STALLING_TOKEN) return
                    if (form.get('response') === FAILING_TOKEN) return void res.writeHead(500).end('upstream failure')
                    const success = req.method === 'POST' && form.get('secret') === SECRET && form.get('response') === GOOD_TOKEN
                    res.setHeader('content-type', 'application/json')
                    res.end(JSON.stringify(success ? { success: true, hostname: 'localhost' } : { success: false, 'error-codes': ['invalid-input-response'] }))
                })
            })
            await new Promise<void>((resolve) => provider!.listen(0, '127.0.0.1', resolve))
            const databaseUrl = await createTestDatabase('csvexport')
            await applyMigrations(databaseUrl)
            dataset = await loadSyntheticRows(databaseUrl, BLOCKS)
            // Wide rows: every BIG mint's Transfer log (one a block) carries 8 KiB of data, so a 10,000-row
            // logs export is a 160 MiB file that the api process could not hold without its RSS showing it.
            const db = new Client({ connectionString: databaseUrl })
            await db.connect()
            try {
                const wide = await db.query(`UPDATE log SET data = decode(repeat('ab', ${WIDE_DATA_BYTES}), 'hex') WHERE address = $1`, [dataset.token])
                expect(wide.rowCount).to.be.greaterThan(10_000)
            } finally {
                await db.end()
            }
            node = await startHistoryNode({ head: dataset.head, chainId: 3009 })
            api = await startApi({
                databaseUrl, rpcUrl: node.url, contracts: NO_CONTRACTS,
                env: {
                    CHAIN_API_CSV_CAPTCHA: 'true',
                    CHAIN_API_CSV_CAPTCHA_SECRET: SECRET,
                    CHAIN_API_CSV_CAPTCHA_VERIFY_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/siteverify`,
                    CHAIN_API_CSV_CAPTCHA_TIMEOUT_MS: '1000',
                    CHAIN_API_CSV_EXPORTS_PER_IP: String(BUDGET),
                    CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS: '30',
                },
            })
        })

        after(async () => {
            await api?.stop()
            await node?.stop()
            provider?.closeAllConnections()
            await new Promise((resolve) => provider?.close(resolve))
        })

        const ask = (query: Record<string, string>, headers: Record<string, string> = {}) =>
            getCsv(api!.explorerUrl, '/api/v1/transactions-csv', { address_id: dataset.hotAddress, ...wholeDay, ...query }, headers)

        it('the config route reflects the environment', async () => {
            const res = await fetch(`${api!.explorerUrl}/api/v2/config/csv-export`)
            expect(await res.json()).to.deep.equal({ limit: 10_000, async_enabled: false, captcha_enabled: true, max_period_days: 30, exports_per_ip: BUDGET, window_seconds: 3600 })
        })

        it('with the captcha on: no token answers 429 (the frontend then shows the captcha), a wrong one 403, the right one passes', async () => {
            const missing = await ask({})
            expect(missing.status).to.equal(429)
            expect(JSON.parse(missing.text).message).to.match(/captcha is required/)
            expect(verified.length, 'nothing to ask the provider without a token').to.equal(0)
            const wrong = await ask({ recaptcha_response: 'a-guess' })
            expect(wrong.status).to.equal(403)
            expect(JSON.parse(wrong.text)).to.deep.equal({ message: 'Invalid reCAPTCHA response' })
            expect(verified.at(-1)?.get('secret')).to.equal(SECRET)
            expect(verified.at(-1)?.get('response')).to.equal('a-guess')
            // The token as Blockscout's frontend also sends it: the recaptcha-v2-response header.
            const right = await ask(recent, { 'recaptcha-v2-response': GOOD_TOKEN })
            expect(right.status, right.text).to.equal(200)
            expect(right.rows.length).to.be.greaterThan(0)
            expect(verified.at(-1)?.get('response')).to.equal(GOOD_TOKEN)
        })

        it('a captcha provider that stalls past CHAIN_API_CSV_CAPTCHA_TIMEOUT_MS, or fails, answers 503: the export is neither refused as a bad token nor let through', async () => {
            for (const token of [STALLING_TOKEN, FAILING_TOKEN]) {
                const res = await ask({ ...recent, recaptcha_response: token })
                expect(res.status, `${token}: ${res.text}`).to.equal(503)
                expect(JSON.parse(res.text).message).to.match(/could not be checked with its provider/)
                expect(verified.at(-1)?.get('response'), 'the provider was asked').to.equal(token)
            }
        })

        it('an export stops at the row cap: 10,000 of the address\'s transactions (it has twice as many), newest first', async () => {
            const csv = await ask({ recaptcha_response: GOOD_TOKEN })
            expect(csv.status, csv.text.slice(0, 300)).to.equal(200)
            expect(csv.rows.length, 'the row cap').to.equal(10_000)
            const blocks = csv.rows.map((r) => Number(r.BlockNumber))
            expect(blocks[0]).to.equal(dataset.head)
            expect(blocks.every((b, i) => i === 0 || b <= blocks[i - 1]), 'newest first').to.equal(true)
            expect(new Set(csv.rows.map((r) => r.TxHash)).size).to.equal(10_000)
        })

        it('a 10,000-row, 160 MiB export streams: the api process\'s RSS grows by less than 64 MiB while the client reads it', async () => {
            const pid = api!.process.child.pid!
            const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024
            const logs = (query: Record<string, string>) => fetch(`${api!.explorerUrl}/api/v1/logs-csv?${new URLSearchParams({
                address_id: dataset.token, ...wholeDay, recaptcha_response: GOOD_TOKEN, ...query,
            })}`)
            // Warm: the code paths run and the statements prepared, so the baseline is the process at work.
            const warm = await logs(recent)
            expect(warm.status).to.equal(200)
            await warm.text()
            const baseline = rss()
            let peak = baseline
            const sampler = setInterval(() => (peak = Math.max(peak, rss())), 5)
            let bytes = 0
            let lines = 0
            let head = ''
            try {
                const res = await logs({})
                expect(res.status).to.equal(200)
                // Counted as it arrives, never held: the test process must not be what runs out of memory.
                const reader = res.body!.getReader()
                const decoder = new TextDecoder()
                for (;;) {
                    const { done, value } = await reader.read()
                    if (done) break
                    bytes += value.length
                    const text = decoder.decode(value, { stream: true })
                    if (head.length < 40_000) head += text
                    lines += text.split('\r\n').length - 1
                }
            } finally {
                clearInterval(sampler)
            }
            peak = Math.max(peak, rss())
            // The bound: 64 MiB over the warm baseline, well under the file (160 MiB as text, 80 MiB of data
            // as it comes from Postgres) that holding the export would need; streamed, one page of 51 rows
            // (about 1.2 MiB) is in flight at a time.
            const grown = peak - baseline
            expect(grown, `RSS grew ${(grown / 2 ** 20).toFixed(1)} MiB (baseline ${(baseline / 2 ** 20).toFixed(1)} MiB) for a ${(bytes / 2 ** 20).toFixed(1)} MiB file`)
                .to.be.below(64 * 2 ** 20)
            expect(lines, 'the header and the row cap').to.equal(10_001)
            const first = parseCsv(head.slice(0, head.indexOf('\r\n', head.indexOf('\r\n') + 2) + 2))
            expect(first[0]).to.deep.equal(CSV_HEADERS.logs)
            expect(first[1][5], 'the wide data, whole').to.equal(`0x${'ab'.repeat(WIDE_DATA_BYTES)}`)
            expect(bytes).to.be.greaterThan(150 * 2 ** 20)
        })

        it('a flood from one client IP answers 429 with Retry-After once the budget is spent, without asking the provider; another IP still passes', async () => {
            const asked = verified.length
            let refused: Csv | undefined
            let passed = 0
            for (let i = 0; i <= BUDGET && !refused; i++) {
                const res = await ask({ recaptcha_response: GOOD_TOKEN, ...recent })
                if (res.status === 429) refused = res
                else (expect(res.status, res.text).to.equal(200), passed++)
            }
            expect(refused, 'a 429 within the budget').to.not.equal(undefined)
            expect(passed).to.be.below(BUDGET)
            expect(Number(refused!.headers.get('retry-after'))).to.be.greaterThan(0)
            expect(refused!.headers.get('ratelimit-limit')).to.equal(String(BUDGET))
            expect(JSON.parse(refused!.text).message).to.match(/Too many CSV exports/)
            expect(verified.length - asked, 'the refused request never reached the captcha provider').to.equal(passed)
            // Keyed to the client IP: 127.0.0.2 is another client (Linux routes 127/8 to lo).
            const other = await new Promise<number>((resolve, reject) => {
                const url = new URL(`${api!.explorerUrl}/api/v1/transactions-csv?${new URLSearchParams({ address_id: dataset.hotAddress, ...wholeDay, ...recent, recaptcha_response: GOOD_TOKEN })}`)
                http.get({ host: url.hostname, port: url.port, path: url.pathname + url.search, localAddress: '127.0.0.2' }, (res) => {
                    res.resume()
                    res.on('end', () => resolve(res.statusCode!))
                }).on('error', reject)
            })
            expect(other).to.equal(200)
        })
    })
})
