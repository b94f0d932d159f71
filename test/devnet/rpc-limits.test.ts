import { expect } from 'chai'
import { createPublicClient, createWalletClient, http, RpcRequestError } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import WebSocket from 'ws'
import { Anvil, DEV_MNEMONIC, startAnvil } from '../../devnet/anvil'
import { RpcLimiter, startRpcLimiter } from '../../devnet/rpc-limits'
import { freePort } from '../support/ports'

/** Init code whose constructor emits one LOG0 and leaves no code: PUSH1 0, PUSH1 0, LOG0, STOP. */
const EMIT_LOG = '0x60006000a000'

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: res.status, json: await res.json() }
}

const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params })
const hex = (n: number) => `0x${n.toString(16)}`

describe('devnet: the JSON-RPC limits of a public node in front of anvil', function () {
    this.timeout(60_000)
    let anvil: Anvil
    /** The defaults: 10,000 blocks per eth_getLogs, 100 calls per batch. */
    let limiter: RpcLimiter
    /** A 5-block limit, so that ranges given by tags can exceed it on a short chain. */
    let narrow: RpcLimiter
    let logBlock: bigint

    before(async () => {
        anvil = await startAnvil({ port: await freePort(), chainId: 3009 })
        limiter = await startRpcLimiter({ port: await freePort(), upstream: anvil.url, limits: { getLogsMaxBlocks: 10_000, batchMax: 100 } })
        narrow = await startRpcLimiter({ port: await freePort(), upstream: anvil.url, limits: { getLogsMaxBlocks: 5, batchMax: 100 } })
        // Sent through the proxy: transactions and anvil's own methods pass unchanged.
        const client = createPublicClient({ transport: http(limiter.url) })
        const wallet = createWalletClient({ account: mnemonicToAccount(DEV_MNEMONIC), transport: http(limiter.url) })
        const hash = await wallet.sendTransaction({ chain: null, data: EMIT_LOG, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n })
        logBlock = (await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).blockNumber
        await client.request({ method: 'anvil_mine' as any, params: [hex(9)] as any })
    })

    after(async () => {
        await narrow?.stop()
        await limiter?.stop()
        await anvil?.stop()
    })

    it('refuses an eth_getLogs over more than 10,000 blocks as QuickNode does (HTTP 413, -32614), before anvil sees it', async () => {
        const wide = await post(limiter.url, call(7, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(10_000) }]))
        expect(wide).to.deep.equal({ status: 413, json: { jsonrpc: '2.0', id: 7, error: { code: -32614, message: 'eth_getLogs is limited to a 10,000 range' } } })
        // A client library sees the refusal as such.
        const client = createPublicClient({ transport: http(limiter.url, { retryCount: 0 }) })
        const err = await client.getLogs({ fromBlock: 1n, toBlock: 10_001n }).then(() => undefined, (e) => e)
        expect(err).to.be.instanceOf(RpcRequestError)
        expect(err).to.include({ code: -32614, details: 'eth_getLogs is limited to a 10,000 range' })
    })

    it('answers an eth_getLogs within the limit as anvil does', async () => {
        const range = { fromBlock: '0x0', toBlock: hex(9_999) }
        const through = await post(limiter.url, call(1, 'eth_getLogs', [range]))
        const direct = await post(anvil.url, call(1, 'eth_getLogs', [range]))
        expect(through.status).to.equal(200)
        expect(through.json).to.deep.equal(direct.json)
        expect(through.json.result.map((l: { blockNumber: string }) => BigInt(l.blockNumber))).to.deep.equal([logBlock])
        // A block hash names one block: no range to limit.
        const block = await createPublicClient({ transport: http(anvil.url) }).getBlock({ blockNumber: logBlock })
        const byHash = await post(narrow.url, call(2, 'eth_getLogs', [{ blockHash: block.hash }]))
        expect(byHash.json.result).to.have.length(1)
    })

    it('counts both ends of the range and resolves block tags against the node', async () => {
        const head = Number(await createPublicClient({ transport: http(anvil.url) }).getBlockNumber())
        expect(head).to.be.greaterThan(5)
        expect((await post(narrow.url, call(1, 'eth_getLogs', [{ fromBlock: hex(head - 4), toBlock: hex(head) }]))).status).to.equal(200)
        expect((await post(narrow.url, call(1, 'eth_getLogs', [{ fromBlock: hex(head - 5), toBlock: hex(head) }]))).status).to.equal(413)
        // fromBlock 0 to latest covers the whole chain; no toBlock means latest; earliest is block 0.
        expect((await post(narrow.url, call(1, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]))).status).to.equal(413)
        expect((await post(narrow.url, call(1, 'eth_getLogs', [{ fromBlock: 'earliest' }]))).status).to.equal(413)
        expect((await post(narrow.url, call(1, 'eth_getLogs', [{ fromBlock: hex(head - 2) }]))).status).to.equal(200)
        expect((await post(narrow.url, call(1, 'eth_getLogs', [{}]))).status).to.equal(200)
    })

    it('refuses a batch of more than 100 calls as Erigon does (one error object, -32000), and answers one of 100', async () => {
        const big = await post(limiter.url, Array.from({ length: 101 }, (_, i) => call(i, 'eth_chainId')))
        expect(big.json).to.deep.equal({
            jsonrpc: '2.0', id: null,
            error: { code: -32000, message: 'batch limit 100 exceeded (can increase by --rpc.batch.limit). Requested batch of size: 101' },
        })
        const full = await post(limiter.url, Array.from({ length: 100 }, (_, i) => call(i, 'eth_chainId')))
        expect(full.status).to.equal(200)
        expect(full.json).to.have.length(100)
        expect(full.json.map((a: { id: number }) => a.id).sort((a: number, b: number) => a - b)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i))
        expect(full.json.every((a: { result: string }) => a.result === '0xbc1')).to.equal(true)
        // viem's batching transport, sized within the limit, gets every answer.
        const batching = createPublicClient({ transport: http(limiter.url, { batch: { batchSize: 100 } }) })
        const { address } = mnemonicToAccount(DEV_MNEMONIC)
        const balances = await Promise.all(Array.from({ length: 150 }, () => batching.getBalance({ address })))
        expect(new Set(balances.map(String)).size).to.equal(1)
    })

    it('in a batch, refuses only the wide eth_getLogs and answers the other calls', async () => {
        const answer = await post(limiter.url, [call(1, 'eth_chainId'), call(2, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(20_000) }]), call(3, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(100) }])])
        expect(answer.status).to.equal(200)
        const byId = new Map(answer.json.map((a: { id: number }) => [a.id, a]))
        expect(byId.get(1)).to.deep.include({ result: '0xbc1' })
        expect(byId.get(2)).to.deep.include({ error: { code: -32614, message: 'eth_getLogs is limited to a 10,000 range' } })
        expect((byId.get(3) as { result: unknown[] }).result).to.have.length(1)
    })

    it('passes what it does not limit unchanged: anvil\'s errors, bad JSON, and WebSocket connections', async () => {
        const unknown = await post(limiter.url, call(4, 'no_such_method'))
        expect(unknown).to.deep.equal(await post(anvil.url, call(4, 'no_such_method')))
        const bad = await fetch(limiter.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' })
        const badDirect = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' })
        expect(bad.status).to.equal(badDirect.status)
        expect(await bad.text()).to.equal(await badDirect.text())

        const socket = new WebSocket(limiter.url.replace('http', 'ws'))
        try {
            await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
            const reply = new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString())))
            socket.send(JSON.stringify(call(9, 'eth_chainId')))
            expect(JSON.parse(await reply)).to.deep.include({ id: 9, result: '0xbc1' })
        } finally {
            socket.close()
        }
    })
})
