import assert from 'assert'
import { createPublicClient, http } from 'viem'
import { startHistoryNode } from '../../bench/history-node'
import { syntheticBlockHash } from '../../bench/synthetic-rows'
import { startAnvil } from '../../devnet/anvil'
import { freePort } from '../support/ports'

describe('bench history node', () => {
    it('lets anvil fork from the synthetic head, so the next block continues the synthetic chain', async () => {
        const head = 4_321
        const history = await startHistoryNode({ head, chainId: 3009 })
        const anvil = await startAnvil({ port: await freePort(), chainId: 3009, fork: { url: history.url, blockNumber: head } })
        try {
            const client = createPublicClient({ transport: http(anvil.url) })
            await client.request({ method: 'evm_mine' as any, params: [] as any })
            const next = await client.getBlock({ blockNumber: BigInt(head + 1) })
            assert.strictEqual(next.parentHash, syntheticBlockHash(head))
            const forked = await client.getBlock({ blockNumber: BigInt(head) })
            assert.strictEqual(forked.hash, syntheticBlockHash(head))
        } finally {
            await anvil.stop()
            await history.stop()
        }
    })

    it('answers what it does not hold with a JSON-RPC error, not a made-up value', async () => {
        const history = await startHistoryNode({ head: 10, chainId: 3009 })
        try {
            const res = await fetch(history.url, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify([
                    { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{}] },
                    { jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['0x9', false] },
                ]),
            })
            const [logs, older] = await res.json() as { result?: unknown; error?: { code: number } }[]
            assert.strictEqual(logs.error?.code, -32601)
            assert.strictEqual(older.result, null)
        } finally {
            await history.stop()
        }
    })
})
