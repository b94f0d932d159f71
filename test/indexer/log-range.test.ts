import { expect } from 'chai'
import { createWalletClient, http, parseAbi } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { devnetChain } from '../../devnet/deploy'
import { CHAIN_ID, headHash, mineEmptyBlocks, startTestChain, TestChain } from '../support/chain'
import { expectDatabaseMatchesChain } from '../support/consistency'
import { startIndexer, waitForIndexedBlock } from '../support/indexer'
import { createTestDatabase } from '../support/postgres'
import { MAX_LOG_RANGE, RpcProxy } from '../support/rpc-proxy'

const STABLE = parseAbi(['function mint(address to, uint256 amount)', 'function transfer(address to, uint256 amount) returns (bool)'])

describe('indexer: a chain longer than the node\'s 10,000-block log range', function () {
    this.timeout(600_000)
    let chain: TestChain
    let proxy: RpcProxy

    before(async () => {
        chain = await startTestChain()
        const deployer = mnemonicToAccount(DEV_MNEMONIC)
        const wallet = createWalletClient({ account: deployer, chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const fees = { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }
        const holder = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 4 }).address
        // Logs at the start, across the range limit, and at the end.
        await wallet.writeContract({ address: chain.contracts.stable, abi: STABLE, functionName: 'mint', args: [deployer.address, 10n ** 12n], ...fees })
        for (const blocks of [6_000, 6_000]) {
            await wallet.writeContract({ address: chain.contracts.stable, abi: STABLE, functionName: 'transfer', args: [holder, 1_000n], ...fees })
            await mineEmptyBlocks(chain.client, blocks)
        }
        await wallet.writeContract({ address: chain.contracts.stable, abi: STABLE, functionName: 'transfer', args: [holder, 7n], ...fees })
        proxy = new RpcProxy(chain.url)
        await proxy.start()
    })

    after(async () => {
        await proxy?.stop()
        await chain?.stop()
    })

    it('never asks for logs over more than 10,000 blocks, commits at most 10,000 blocks at once, fetches INDEXER_FETCH_SPLIT blocks per request, and survives a node outage', async () => {
        const head = Number(await chain.client.getBlockNumber())
        expect(head).to.be.greaterThan(MAX_LOG_RANGE + 2_000)
        const databaseUrl = await createTestDatabase('logrange')
        const indexer = startIndexer({
            databaseUrl,
            rpcUrl: proxy.url,
            contracts: chain.contracts,
            // The largest batch allowed, whatever the default: commits must still respect the limit.
            env: { LOG_LEVEL: 'debug', INDEXER_BATCH_BLOCKS: '10000', INDEXER_FETCH_SPLIT: '50' },
        })
        let blocksPerRequest = 0
        proxy.onRequest = (calls) => {
            blocksPerRequest = Math.max(blocksPerRequest, calls.filter((c) => c.method === 'eth_getBlockByNumber').length)
        }
        try {
            // The node "restarts" early in the sync: five requests fail (the client backs off
            // 0.1, 0.5, 1, 2, 4 s), then it works again.
            setTimeout(() => proxy.failNext(5), 1_500)
            await waitForIndexedBlock(databaseUrl, await headHash(chain.client), indexer, 300_000)
        } finally {
            await indexer.stop()
            proxy.onRequest = undefined
        }
        // The SDK alone would ask for 10 blocks at a time.
        expect(blocksPerRequest, 'blocks asked for in one request').to.equal(50)
        expect(proxy.refusedLogQueries, 'log queries the node refused').to.equal(0)
        expect(proxy.maxLogRange, 'widest eth_getLogs range').to.be.at.most(MAX_LOG_RANGE)
        // Logs arrive with the receipts, one block per call.
        expect(proxy.calls.get('eth_getBlockReceipts'), 'eth_getBlockReceipts calls').to.be.greaterThan(head)

        const commits = indexer.output().split('\n').filter((l) => l.includes('"committed batch"')).map((l) => JSON.parse(l))
        const spans = commits.map((c) => c.to - c.from + 1)
        expect(spans.length, 'commits').to.be.greaterThanOrEqual(2)
        expect(Math.max(...spans), 'blocks in one commit').to.be.at.most(10_000)
        expect(spans[0], 'a backfill commit is a full batch').to.equal(10_000)

        await expectDatabaseMatchesChain(databaseUrl, chain.url)
    })
})
