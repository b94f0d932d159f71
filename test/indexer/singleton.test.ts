import { expect } from 'chai'
import { createWalletClient, http, parseEther } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { waitFor } from '../../common/processes'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { devnetChain } from '../../devnet/deploy'
import { CHAIN_ID, headHash, startTestChain, TestChain } from '../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../support/indexer'
import { freePort } from '../support/ports'
import { createTestDatabase } from '../support/postgres'

/** docs/production.md#what-stays-single */
describe('indexer: one per database, a second one stands by', function () {
    let chain: TestChain
    let databaseUrl: string
    const running: IndexerProcess[] = []

    before(async function () {
        chain = await startTestChain()
        databaseUrl = await createTestDatabase('indexer_singleton')
    })

    after(async function () {
        for (const indexer of running) await indexer.stop()
        await chain?.stop()
    })

    async function start(): Promise<{ indexer: IndexerProcess; ready: () => Promise<{ status: number; body: any }> }> {
        const port = await freePort()
        const indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts, env: { INDEXER_HEALTH_PORT: String(port), INDEXER_FINALITY_CONFIRMATION: '1' } })
        running.push(indexer)
        const ready = async () => {
            const response = await fetch(`http://127.0.0.1:${port}/ready`)
            return { status: response.status, body: await response.json() }
        }
        return { indexer, ready }
    }

    async function transfer(): Promise<string> {
        const wallet = createWalletClient({ account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 1 }), chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const hash = await wallet.sendTransaction({ to: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 2 }).address, value: parseEther('1'), maxFeePerGas: 0n, maxPriorityFeePerGas: 0n })
        return (await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).blockHash
    }

    it('answers 503 standby while the first runs, takes over when it stops, and indexes on from where it was', async function () {
        const first = await start()
        await waitForIndexedBlock(databaseUrl, await headHash(chain.client), first.indexer)
        const second = await start()
        // Every answer until it stands by is a 503 (while it takes the lock: `starting`), never 200.
        const early: number[] = []
        const standby = await waitFor('the second indexer to stand by', async () => {
            const answer = await second.ready().catch(() => undefined)
            if (answer) early.push(answer.status)
            return answer?.body.status.startsWith('starting') ? undefined : answer
        }, 60_000, 50)
        expect(early.filter((status) => status !== 503), 'answers other than 503 before standing by').to.deep.equal([])
        expect(standby.status).to.equal(503)
        expect(standby.body.status).to.equal('standby: another indexer holds this database')

        // Only the first indexes meanwhile; the second still stands by after it.
        await waitForIndexedBlock(databaseUrl, await transfer(), first.indexer)
        expect((await second.ready()).body.status).to.equal('standby: another indexer holds this database')

        await first.indexer.stop()
        await waitFor('the second indexer to take over', async () => (await second.ready()).body.status !== 'standby: another indexer holds this database', 60_000, 200)
        await waitForIndexedBlock(databaseUrl, await transfer(), second.indexer)
        await waitFor('the second indexer to follow', async () => (await second.ready()).status === 200, 60_000, 200)
        expect(second.indexer.process.child.exitCode).to.equal(null)
    })
})
