import * as http from 'http'
import { AddressInfo } from 'net'
import { syntheticBlockHash, syntheticBlockTimeMs } from './synthetic-rows'

/**
 * A JSON-RPC node that knows one block, the synthetic history's head, and an empty state: anvil
 * forks from it (`--fork-url`), so the live chain's first block has the synthetic head as its
 * parent and the indexer continues the loaded rows as one chain: docs/testing.md#benchmarks
 */

const ZERO_WORD = '0x' + '0'.repeat(64)
/** The root of an empty trie: the head block carries no transactions of its own for anvil. */
const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'
const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'

const hex = (n: number | bigint) => `0x${n.toString(16)}`

/**
 * Contract addresses for a process whose RPC_URL is a history node (it needs four once RPC_URL is
 * set): no code lives there, which the routes measured or tested against the synthetic rows never ask.
 */
export const NO_CONTRACTS = {
    wnative: '0x00000000000000000000000000000000000000a1',
    stable: '0x00000000000000000000000000000000000000a2',
    factory: '0x00000000000000000000000000000000000000a3',
    router: '0x00000000000000000000000000000000000000a4',
} as const

export interface HistoryNode {
    url: string
    stop(): Promise<void>
}

export async function startHistoryNode(options: { head: number; chainId: number }): Promise<HistoryNode> {
    const { head, chainId } = options
    const block = (height: number) => ({
        number: hex(height),
        hash: syntheticBlockHash(height),
        parentHash: height === 0 ? ZERO_WORD : syntheticBlockHash(height - 1),
        sha3Uncles: EMPTY_UNCLES,
        miner: '0x' + '0'.repeat(40),
        stateRoot: ZERO_WORD,
        transactionsRoot: EMPTY_ROOT,
        receiptsRoot: EMPTY_ROOT,
        logsBloom: '0x' + '0'.repeat(512),
        difficulty: '0x0',
        totalDifficulty: '0x0',
        gasLimit: hex(30_000_000),
        gasUsed: '0x0',
        timestamp: hex(syntheticBlockTimeMs(height) / 1000),
        extraData: '0x',
        mixHash: ZERO_WORD,
        nonce: '0x0000000000000000',
        baseFeePerGas: '0x0',
        size: '0x220',
        transactions: [],
        uncles: [],
    })
    // Only what anvil asks of the node it forks from; every account is empty.
    const answer = (method: string, params: unknown[]): unknown => {
        switch (method) {
            case 'eth_chainId': return hex(chainId)
            case 'net_version': return String(chainId)
            case 'eth_blockNumber': return hex(head)
            case 'eth_getBlockByNumber': return params[0] === 'latest' || Number(params[0]) === head ? block(head) : null
            case 'eth_getBlockByHash': return params[0] === syntheticBlockHash(head) ? block(head) : null
            case 'eth_getBalance': case 'eth_getTransactionCount': case 'eth_gasPrice': return '0x0'
            case 'eth_getCode': return '0x'
            case 'eth_getStorageAt': return ZERO_WORD
            default: throw new Error(`the history node holds only block ${head}: no ${method}`)
        }
    }
    const one = (call: { id: unknown; method: string; params?: unknown[] }) => {
        try {
            return { jsonrpc: '2.0', id: call.id, result: answer(call.method, call.params ?? []) }
        } catch (err) {
            return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: (err as Error).message } }
        }
    }
    const server = http.createServer((req, res) => {
        let body = ''
        req.on('data', (d) => (body += d))
        req.on('end', () => {
            let reply: unknown
            try {
                const message = JSON.parse(body)
                reply = Array.isArray(message) ? message.map(one) : one(message)
            } catch {
                reply = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }
            }
            res.setHeader('content-type', 'application/json')
            res.end(JSON.stringify(reply))
        })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return {
        url: `http://127.0.0.1:${port}`,
        stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    }
}
