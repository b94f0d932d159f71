import { expect } from 'chai'
import { Stack } from '../../support/stack'
import { checksum, expect404, expect422, expectSameSequence, getOk, stack, v2, walk } from './helpers'
import * as S from './shapes'

const LISTED = `NOT (index = 0 AND type IN ('call', 'delegatecall', 'staticcall', 'callcode'))`

/** What a Parity-format frame of the node's trace_transaction says, in the API's terms. */
function expectedItem(frame: any, index: number) {
    const a = frame.action
    const r = frame.result ?? {}
    const type = frame.type === 'call' ? a.callType : frame.type === 'create' ? (a.creationMethod === 'create2' ? 'create2' : 'create') : 'selfdestruct'
    return {
        index,
        type,
        from: checksum(frame.type === 'suicide' ? a.address : a.from),
        to: frame.type === 'create' ? null : checksum(frame.type === 'suicide' ? a.refundAddress : a.to),
        created_contract: frame.type === 'create' && !frame.error ? checksum(r.address) : null,
        value: BigInt(a.value ?? a.balance ?? 0).toString(),
        gas_limit: a.gas === undefined ? null : BigInt(a.gas).toString(),
        success: !frame.error,
        error: frame.error ?? null,
    }
}

const listed = (item: S.InternalTransaction) => ({
    index: item.index, type: item.type, from: item.from.hash, to: item.to?.hash ?? null, created_contract: item.created_contract?.hash ?? null,
    value: item.value, gas_limit: item.gas_limit, success: item.success, error: item.error,
})

describe('chain API: internal transactions and raw traces', function () {
    this.timeout(600_000)
    let s: Stack
    const traces = new Map<string, any[]>()

    async function trace(hash: string): Promise<any[]> {
        if (!traces.has(hash)) traces.set(hash, await s.client.request({ method: 'trace_transaction' as any, params: [hash] as any }) as any[])
        return traces.get(hash)!
    }

    before(async () => {
        s = await stack()
    })

    it('every transaction\'s tab lists its frames below its own call, each as the node\'s trace shows it', async () => {
        const { rows } = await s.db.query(`SELECT id FROM transaction ORDER BY block_number, index`)
        let compared = 0
        for (const { id } of rows) {
            const frames = await trace(id)
            const expected = frames.map(expectedItem).filter((f) => !(f.index === 0 && f.type !== 'create' && f.type !== 'create2'))
            const { items } = await walk(`/transactions/${id}/internal-transactions`, S.InternalTransaction, { keys: ['block_number', 'transaction_index', 'index', 'items_count'], itemsCount: true })
            expect(items.map(listed), `internal transactions of ${id}`).to.deep.equal(expected)
            for (const item of items) expect(item.transaction_hash).to.equal(id)
            compared += expected.length
        }
        expect(compared, 'frames compared').to.be.greaterThan(100)
    })

    it('the coin a swap to the native coin pays back through the router appears in the trader\'s internal list', async () => {
        const { rows: [paid] } = await s.db.query(`
            SELECT i.transaction_hash, i."to", i.value::text FROM internal_transaction i JOIN address a ON a.id = i."to"
             WHERE i.index > 0 AND i.value > 0 AND i.error IS NULL AND NOT a.is_contract AND i."from" = $1 LIMIT 1`, [s.contracts.router.toLowerCase()])
        expect(paid, 'a swap that paid coin to a trader').to.not.equal(undefined)
        const onNode = (await trace(paid.transaction_hash)).find((f) => f.action.to === paid.to && BigInt(f.action.value) === BigInt(paid.value))
        expect(onNode, 'the payment in the node\'s trace').to.not.equal(undefined)
        const { items } = await walk(`/addresses/${paid.to}/internal-transactions`, S.InternalTransaction, { keys: ['block_number', 'transaction_index', 'index'] })
        const item = items.find((i) => i.transaction_hash === paid.transaction_hash && i.value === paid.value)
        expect(item, 'the payment in the trader\'s internal transactions').to.not.equal(undefined)
        expect(item!.from.hash).to.equal(checksum(s.contracts.router))
        expect(item!.to!.hash).to.equal(checksum(paid.to))
        const incoming = await walk(`/addresses/${paid.to}/internal-transactions`, S.InternalTransaction, { query: { filter: 'to' }, keys: ['block_number'] })
        expect(incoming.items.every((i) => i.to?.hash === checksum(paid.to))).to.equal(true)
        expect(incoming.items.some((i) => i.transaction_hash === paid.transaction_hash)).to.equal(true)
        const outgoing = await walk(`/addresses/${paid.to}/internal-transactions`, S.InternalTransaction, { query: { filter: 'from' }, keys: ['block_number'] })
        expect(outgoing.items.every((i) => i.from.hash === checksum(paid.to))).to.equal(true)
    })

    it('walks every list to its end in the database\'s order: global, an address (the router), a block and a transaction with more than a page', async () => {
        const ids = async (sql: string, params: unknown[] = []) => (await s.db.query(sql, params)).rows.map((r) => `${r.transaction_hash}:${r.index}`)
        const key = (i: S.InternalTransaction) => `${i.transaction_hash}:${i.index}`
        const global = await walk('/internal-transactions', S.InternalTransaction, { keys: ['block_number', 'transaction_index', 'index', 'items_count'], itemsCount: true })
        expect(global.pages).to.be.greaterThan(1)
        expectSameSequence(global.items.map(key), await ids(`SELECT transaction_hash, index FROM internal_transaction WHERE ${LISTED} ORDER BY id DESC`), '/internal-transactions')

        const router = s.contracts.router.toLowerCase()
        const byRouter = await walk(`/addresses/${router}/internal-transactions`, S.InternalTransaction, { keys: ['block_number', 'transaction_index', 'index'] })
        expect(byRouter.pages).to.be.greaterThan(1)
        expectSameSequence(byRouter.items.map(key), await ids(
            `SELECT transaction_hash, index FROM internal_transaction WHERE ("from" = $1 OR "to" = $1 OR created_contract = $1) AND ${LISTED} ORDER BY id DESC`, [router]), 'router')

        const disperse = s.extras.disperse.transactionHash
        const inTx = await walk(`/transactions/${disperse}/internal-transactions`, S.InternalTransaction, { keys: ['index'] })
        expect(inTx.pages, 'the disperse transaction has more than 50 frames').to.equal(2)
        expectSameSequence(inTx.items.map(key), await ids(`SELECT transaction_hash, index FROM internal_transaction WHERE transaction_hash = $1 AND ${LISTED} ORDER BY id`, [disperse]), 'disperse transaction')

        const { rows: [{ block_number: block }] } = await s.db.query('SELECT block_number FROM transaction WHERE id = $1', [disperse])
        const inBlock = await walk(`/blocks/${block}/internal-transactions`, S.InternalTransaction, { keys: ['transaction_index', 'index'] })
        expectSameSequence(inBlock.items.map(key), await ids(`SELECT transaction_hash, index FROM internal_transaction WHERE block_number = $1 AND ${LISTED} ORDER BY id`, [block]), 'disperse block')
        const single = await getOk(`/blocks/${block}`, S.BlockSingle)
        expect((single as any).internal_transactions_count).to.equal(inBlock.items.length)
    })

    it('raw-trace is the node\'s trace_transaction, frame by frame', async () => {
        const { rows } = await s.db.query(`SELECT transaction_hash AS id FROM internal_transaction GROUP BY transaction_hash ORDER BY count(*) DESC, transaction_hash LIMIT 20`)
        const strip = (f: any) => ({ type: f.type, action: f.action, result: f.error ? undefined : f.result, error: f.error, subtraces: f.subtraces, traceAddress: f.traceAddress })
        for (const { id } of rows) {
            const res = await v2(`/transactions/${id}/raw-trace`)
            expect(res.status).to.equal(200)
            expect(JSON.parse(JSON.stringify(res.body.map(strip))), `raw trace of ${id}`).to.deep.equal(JSON.parse(JSON.stringify((await trace(id)).map(strip))))
        }
    })

    it('has_error_in_internal_transactions is true exactly when a frame below the transaction\'s call failed', async () => {
        const { rows: failing } = await s.db.query(`SELECT DISTINCT transaction_hash AS id FROM internal_transaction WHERE index > 0 AND error IS NOT NULL LIMIT 3`)
        const { rows: clean } = await s.db.query(`
            SELECT t.id FROM transaction t WHERE NOT EXISTS (SELECT 1 FROM internal_transaction i WHERE i.transaction_hash = t.id AND i.index > 0 AND i.error IS NOT NULL) LIMIT 3`)
        for (const { id } of failing) expect((await getOk(`/transactions/${id}`, S.TransactionSingle) as any).has_error_in_internal_transactions, id).to.equal(true)
        for (const { id } of clean) expect((await getOk(`/transactions/${id}`, S.TransactionSingle) as any).has_error_in_internal_transactions, id).to.equal(false)
        expect(clean.length).to.be.greaterThan(0)
        // Lists carry the same flag (stored with the transaction by the indexer).
        for (const { id } of [...failing, ...clean]) {
            const { rows: [{ block_number: block }] } = await s.db.query('SELECT block_number FROM transaction WHERE id = $1', [id])
            const { items } = await walk(`/blocks/${block}/transactions`, S.TransactionListItem, { keys: ['block_number'] })
            const item = items.find((i) => i.hash === id) as any
            expect(item.has_error_in_internal_transactions, `${id} in its block's list`).to.equal(failing.some((f) => f.id === id))
        }
    })

    it('answers garbage with 422 and unknown objects with 404', async () => {
        await expect422('/internal-transactions', { block_number: 'abc' })
        await expect422('/internal-transactions', { index: '-1' })
        await expect422('/internal-transactions', { items_count: '500' })
        await expect422('/addresses/0x12/internal-transactions')
        await expect422(`/addresses/${s.contracts.router}/internal-transactions`, { filter: 'sideways' })
        await expect422('/transactions/0x1234/internal-transactions')
        await expect422('/transactions/0x1234/raw-trace')
        await expect422('/blocks/abc/internal-transactions')
        await expect404(`/transactions/0x${'ab'.repeat(32)}/internal-transactions`)
        await expect404(`/transactions/0x${'ab'.repeat(32)}/raw-trace`)
        await expect404('/blocks/99999999/internal-transactions')
    })
})
