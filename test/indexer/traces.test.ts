import { expect } from 'chai'
import { Client } from 'pg'
import { expectCallTreesMatchNode, expectCoinHistoryMatchesNode, batchingClient } from '../support/consistency'
import { headHash, startTestChain, TestChain } from '../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { createTestDatabase } from '../support/postgres'
import { RpcProxy } from '../support/rpc-proxy'
import { waitForOutput } from '../support/output'

/** A frame of debug_traceTransaction's call tracer as the indexer stores it. */
interface Flat {
    type: string
    from: string
    to: string | null
    created: string | null
    value: string
    gas: string | null
    gasUsed: string | null
    input: string | null
    output: string | null
    error: string | null
    traceAddress: number[]
}

function flatten(call: any, traceAddress: number[] = [], out: Flat[] = []): Flat[] {
    const type = String(call.type).toLowerCase()
    const creation = type === 'create' || type === 'create2'
    out.push({
        type,
        from: call.from,
        to: creation ? null : call.to ?? null,
        created: creation && !call.error ? call.to : null,
        value: BigInt(call.value ?? 0).toString(),
        gas: type === 'selfdestruct' ? null : BigInt(call.gas).toString(),
        gasUsed: type === 'selfdestruct' ? null : BigInt(call.gasUsed).toString(),
        input: call.input ?? null,
        output: call.output ?? null,
        error: call.error ?? null,
        traceAddress,
    })
    ;(call.calls ?? []).forEach((child: any, i: number) => flatten(child, [...traceAddress, i], out))
    return out
}

describe('indexer: call trees from each tracing API, and a node that has none', function () {
    this.timeout(600_000)
    let chain: TestChain
    let txHashes: string[]
    const running: { indexer?: IndexerProcess; proxy?: RpcProxy; db?: Client }[] = []

    before(async () => {
        chain = await startTestChain({ seedDays: 1 })
        const head = Number(await chain.client.getBlockNumber())
        const blocks = await Promise.all(Array.from({ length: head + 1 }, (_, n) => chain.client.getBlock({ blockNumber: BigInt(n) })))
        txHashes = blocks.flatMap((b) => b.transactions as string[])
    })
    afterEach(async () => {
        for (const r of running.splice(0)) {
            await r.db?.end().catch(() => undefined)
            await r.indexer?.stop()
            await r.proxy?.stop()
        }
    })
    after(async () => {
        await chain?.stop()
    })

    async function index(name: string, options: { env?: Record<string, string>; proxy?: RpcProxy } = {}) {
        const databaseUrl = await createTestDatabase(name)
        const indexer = startIndexer({ databaseUrl, rpcUrl: options.proxy?.url ?? chain.url, contracts: chain.contracts, env: options.env })
        const db = new Client({ connectionString: databaseUrl })
        running.push({ indexer, proxy: options.proxy, db })
        await waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer, 300_000)
        await db.connect()
        return { db, indexer }
    }

    it('with debug_traceBlockByHash (Geth call tracer) stores every transaction\'s tree as debug_traceTransaction shows it, CREATE2 included', async () => {
        const { db } = await index('trace_debug', { env: { INDEXER_TRACING: 'debug_traceBlockByHash' } })
        const [{ tracing }] = (await db.query(`SELECT tracing FROM chain_counters`)).rows
        expect(tracing).to.equal('debug_traceBlockByHash')
        const stored = (await db.query(`
            SELECT transaction_hash, type, "from", "to", created_contract AS created, value::text, gas::text, gas_used::text AS "gasUsed",
                   CASE WHEN input IS NULL THEN NULL ELSE '0x' || encode(input, 'hex') END AS input,
                   CASE WHEN output IS NULL THEN NULL ELSE '0x' || encode(output, 'hex') END AS output, error, trace_address AS "traceAddress"
              FROM internal_transaction ORDER BY id`)).rows
        const rpc = batchingClient(chain.url)
        let creates2 = 0
        for (const hash of txHashes) {
            const trace = await rpc.request({ method: 'debug_traceTransaction' as any, params: [hash, { tracer: 'callTracer' }] as any })
            const expected = flatten(trace)
            creates2 += expected.filter((f) => f.type === 'create2').length
            const actual = stored.filter((r) => r.transaction_hash === hash).map(({ transaction_hash: _, ...f }) => f)
            expect(actual, `call tree of ${hash}`).to.deep.equal(expected)
        }
        expect(stored.length, 'frames stored').to.equal(new Set(stored.map((r) => `${r.transaction_hash}`)).size + stored.filter((r) => r.traceAddress.length > 0).length)
        // The factory creates every pair with CREATE2: the seeded history creates pairs.
        expect(creates2, 'CREATE2 frames in the history').to.be.greaterThan(0)
        await expectCoinHistoryMatchesNode(db, batchingClient(chain.url))
    })

    it('with trace_block, a node that fails trace calls costs time, not frames: the trees end complete', async () => {
        const proxy = new RpcProxy(chain.url)
        await proxy.start()
        // Every other request carrying trace calls fails with an internal error.
        proxy.fault = { kind: 'rpc-error', every: 2, only: ['trace_block'] }
        const { db, indexer } = await index('trace_faults', { proxy })
        expect(proxy.faulted.get('rpc-error') ?? 0, 'trace calls failed by the proxy').to.be.greaterThan(0)
        await expectCallTreesMatchNode(db, chain.url, txHashes)
        await expectCoinHistoryMatchesNode(db, batchingClient(chain.url))
        expect(indexer.process.child.exitCode, 'the indexer is still running').to.equal(null)
    })

    it('without any tracing API, the indexer says so, indexes everything else and records tracing "none"', async () => {
        const proxy = new RpcProxy(chain.url)
        await proxy.start()
        proxy.fault = { kind: 'no-tracing', every: 1 }
        const { db, indexer } = await index('trace_none', { proxy })
        const [{ tracing, transactions }] = (await db.query(`SELECT tracing, transactions FROM chain_counters`)).rows
        expect(tracing).to.equal('none')
        expect(transactions).to.equal(txHashes.length)
        const [{ frames }] = (await db.query('SELECT count(*)::int AS frames FROM internal_transaction')).rows
        expect(frames).to.equal(0)
        await waitForOutput(indexer, /neither trace_block nor debug_traceBlockByHash/)
        // Everything but the call trees is whole: balances read from the node stay exact.
        const addresses = (await db.query('SELECT id, balance::text FROM address')).rows
        expect(addresses.length).to.be.greaterThan(0)
        for (const a of addresses) {
            expect(BigInt(a.balance), `balance of ${a.id}`).to.equal(await chain.client.getBalance({ address: a.id }))
        }
    })
})
