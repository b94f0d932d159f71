import { expect } from 'chai'
import * as http from 'http'
import { AddressInfo } from 'net'
import { EvmRpcDataSource } from '@subsquid/evm-processor/lib/ds-rpc/client'
import { RpcClient } from '@subsquid/rpc-client'
import { createLogger } from '../../common/logger'
import { BatchSize, BatchSizingRpcClient, WIDEN_AFTER_MS } from '../../indexer/batch-size'
import { ReceiptsMethod, REPROBE_AFTER_MS } from '../../indexer/receipts-method'

/** Batch sizing and the receipts method's expiry against a stub node (docs/RELIABILITY.md#what-the-indexer-does-about-faults). */

const silent = createLogger('test').child({}, { level: 'silent' })

/** A logger that counts its warnings and infos. */
function countingLog() {
    const counts = { warn: 0, info: 0 }
    const log = Object.assign(Object.create(silent), {
        warn: () => void counts.warn++,
        info: () => void counts.info++,
    })
    return { log, counts }
}

type Answer = (call: any) => unknown
type Refusal = 'geth' | 'http-413' | 'per-call'

/** A JSON-RPC node on loopback: `answer` for each call, batches over `limit` refused as `refusal` says. */
async function stubNode(answer: Answer, limit = Infinity, refusal: Refusal = 'geth') {
    const node = { answered: [] as number[], refused: 0, limit, url: '', close: () => undefined as unknown }
    const server = http.createServer((req, res) => {
        const chunks: Buffer[] = []
        req.on('data', (c) => chunks.push(c))
        req.on('end', () => {
            const request = JSON.parse(Buffer.concat(chunks).toString())
            const reply = (call: any, body: object) => ({ jsonrpc: '2.0', id: call.id, ...body })
            if (Array.isArray(request) && request.length > node.limit) {
                node.refused++
                if (refusal === 'http-413') return res.writeHead(413).end('too large')
                if (refusal === 'geth') {
                    return res.writeHead(200, { 'content-type': 'application/json' })
                        .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}')
                }
                // geth's response size limit: the first calls answered, the rest refused.
                const answers = request.map((call, i) => (i < node.limit
                    ? reply(call, { result: answer(call) })
                    : reply(call, { error: { code: -32003, message: 'response too large' } })))
                return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers))
            }
            if (Array.isArray(request)) node.answered.push(request.length)
            const one = (call: any) => {
                const result = answer(call)
                return result instanceof Error ? reply(call, { error: { code: -32601, message: result.message } }) : reply(call, { result })
            }
            res.writeHead(200, { 'content-type': 'application/json' })
            res.end(JSON.stringify(Array.isArray(request) ? request.map(one) : one(request)))
        })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    node.close = () => server.close()
    return node
}

describe('indexer: JSON-RPC batches sized to what the node accepts', () => {
    it('halves on a refusal, never below one call, and doubles back to the ceiling after quiet periods, logging each change once', () => {
        let now = 0
        const { log, counts } = countingLog()
        const size = new BatchSize(200, log, () => now)
        size.refused(10, 'batch too large')
        expect(size.current).to.equal(5)
        // A batch sent before the change, refused after it: no wider than the size already chosen.
        size.refused(200, 'batch too large')
        expect(size.current).to.equal(5)
        expect(counts.warn).to.equal(1)
        now += WIDEN_AFTER_MS - 1
        size.answered()
        expect(size.current, 'still within the quiet period').to.equal(5)
        const seen: number[] = []
        for (let i = 0; i < 8; i++) {
            now += WIDEN_AFTER_MS
            size.answered()
            seen.push(size.current)
        }
        expect(seen).to.deep.equal([10, 20, 40, 80, 160, 200, 200, 200])
        expect(counts.info).to.equal(6)
        for (let i = 0; i < 10; i++) size.refused(size.current, 'batch too large')
        expect(size.current).to.equal(1)
    })

    for (const refusal of ['geth', 'http-413', 'per-call'] as const) {
        it(`re-sends a refused batch in smaller ones (${refusal}) and answers every call in order`, async () => {
            const node = await stubNode((call) => call.params[0], 7, refusal)
            const client = new BatchSizingRpcClient({ url: node.url, batchSize: new BatchSize(200, silent), retryAttempts: 0 })
            try {
                const calls = Array.from({ length: 50 }, (_, i) => ({ method: 'echo', params: [i] }))
                expect(await client.batchCall(calls)).to.deep.equal(calls.map((c) => c.params[0]))
                expect(node.refused, 'batches refused').to.be.greaterThan(0)
                expect(Math.max(...node.answered)).to.be.at.most(7)
                expect(client.batchSize.current).to.be.at.most(7)
            } finally {
                client.close()
                node.close()
            }
        })
    }

    it('leaves other per-call errors to the caller, and does not narrow for them', async () => {
        const node = await stubNode((call) => (call.method === 'missing' ? new Error('the method missing does not exist') : 1))
        const client = new BatchSizingRpcClient({ url: node.url, batchSize: new BatchSize(200, silent), retryAttempts: 0 })
        try {
            const calls = [{ method: 'one' }, { method: 'missing' }, { method: 'one' }]
            const seen: string[] = []
            const answers = await client.batchCall(calls, { validateError: (info) => void seen.push(info.message) })
            expect(answers).to.deep.equal([1, undefined, 1])
            expect(seen).to.deep.equal(['the method missing does not exist'])
            const err = await client.batchCall(calls).catch((e) => e)
            expect(err).to.have.property('name', 'RpcError')
            expect(client.batchSize.current).to.equal(200)
        } finally {
            client.close()
            node.close()
        }
    })
})

describe('indexer: the receipts method asked again while on the fallback', () => {
    it('expires Subsquid\'s per-transaction fallback, so a node that regains eth_getBlockReceipts is read by block again', async () => {
        let hasBlockReceipts = false
        const node = await stubNode((call) => {
            if (call.method === 'eth_getBlockReceipts' && hasBlockReceipts) return []
            return new Error(`the method ${call.method} does not exist`)
        })
        const client = new RpcClient({ url: node.url, retryAttempts: 0 })
        try {
            let now = 0
            const { log, counts } = countingLog()
            const receipts = new ReceiptsMethod(log, () => now)
            const dataSource = new EvmRpcDataSource({ rpc: client, finalityConfirmation: 10 })
            receipts.watch(dataSource)
            // The same path Subsquid's RPC data source takes before each batch's receipts.
            const props = (dataSource as any).rpc.props
            expect(await props.getReceiptsMethod()).to.equal('eth_getTransactionReceipt')
            hasBlockReceipts = true
            now += REPROBE_AFTER_MS - 1
            expect(await props.getReceiptsMethod(), 'cached until it expires').to.equal('eth_getTransactionReceipt')
            now += 1
            expect(await props.getReceiptsMethod()).to.equal('eth_getBlockReceipts')
            expect(receipts.current).to.equal('eth_getBlockReceipts')
            hasBlockReceipts = false
            now += 10 * REPROBE_AFTER_MS
            expect(await props.getReceiptsMethod(), 'the answer by block is kept').to.equal('eth_getBlockReceipts')
            expect(counts).to.deep.equal({ warn: 1, info: 1 })
        } finally {
            client.close()
            node.close()
        }
    })
})
