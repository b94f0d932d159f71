import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { createPublicClient, http, PublicClient } from 'viem'
import { waitFor } from '../../common/processes'
import { Anvil, startAnvil } from '../../devnet/anvil'
import { followWallClock } from '../../devnet/clock'
import { freePort } from '../support/ports'

const BLOCK_TIME = 1
/**
 * The newest block of a chain mining every BLOCK_TIME seconds in real time is at most one block
 * time old; a second block time allows for a late tick on a busy machine. Timestamps are whole
 * seconds (the miner's clock rounded down), so a block can read up to 1 s older than it is.
 */
const MAX_HEAD_AGE = 2 * BLOCK_TIME + 1

const nowSeconds = () => Math.floor(Date.now() / 1000)

async function rpc(client: PublicClient, method: string, params: unknown[] = []): Promise<unknown> {
    return client.request({ method: method as any, params: params as any })
}

async function latest(client: PublicClient) {
    const block = await client.getBlock({ blockTag: 'latest' })
    return { number: block.number, timestamp: Number(block.timestamp) }
}

/** Turns on interval mining as the devnet does and returns the first block it mines. */
async function firstIntervalBlock(client: PublicClient) {
    const before = await latest(client)
    await rpc(client, 'evm_setIntervalMining', [BLOCK_TIME])
    await waitFor('an interval-mined block', async () => (await latest(client)).number > before.number, 30_000, 100)
    const head = await latest(client)
    expect(head.timestamp, 'a block dated before the head it follows').to.be.at.least(before.timestamp)
    return head
}

describe('devnet clock (followWallClock)', function () {
    this.timeout(120_000)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devnet-clock-'))
    let anvil: Anvil | undefined

    const start = async (options: { stateFile?: string; genesisTimestamp?: number }) => {
        anvil = await startAnvil({ port: await freePort(), chainId: 3009, ...options })
        return createPublicClient({ transport: http(anvil.url) }) as PublicClient
    }

    afterEach(async () => {
        await anvil?.stop()
        anvil = undefined
    })

    after(() => fs.rmSync(dir, { recursive: true, force: true }))

    it('after a history mined with explicit timestamps, new blocks are dated by the wall clock', async () => {
        const client = await start({ genesisTimestamp: nowSeconds() - 86_400 })
        // The seeding's last block: dated well before now, as an hour of the demo history is.
        await rpc(client, 'evm_mine', [{ timestamp: nowSeconds() - 3_000, blocks: 1 }])
        await rpc(client, 'evm_mine')
        expect(nowSeconds() - (await latest(client)).timestamp, 'anvil keeps the seeded distance').to.be.greaterThan(2_000)

        const synced = await followWallClock(anvil!.url)
        expect(synced.timestamp).to.be.at.least(synced.head)
        const head = await firstIntervalBlock(client)
        expect(Date.now() / 1000 - head.timestamp).to.be.at.most(MAX_HEAD_AGE)
    })

    it('after a restart from the state file, new blocks are dated by the wall clock and never before the saved head', async () => {
        const stateFile = path.join(dir, 'state.json')
        let client = await start({ stateFile, genesisTimestamp: nowSeconds() - 86_400 })
        await rpc(client, 'evm_mine', [{ timestamp: nowSeconds() - 3_000, blocks: 1 }])
        await anvil!.stop()

        client = await start({ stateFile })
        await followWallClock(anvil!.url)
        let head = await firstIntervalBlock(client)
        expect(Date.now() / 1000 - head.timestamp, 'behind after a restart').to.be.at.most(MAX_HEAD_AGE)

        // A head saved ahead of the wall clock (a clock moved back, a block dated ahead): anvil
        // restarts on the wall clock and would date the next block before it.
        const ahead = nowSeconds() + 600
        await rpc(client, 'evm_setIntervalMining', [0])
        await rpc(client, 'evm_mine', [{ timestamp: ahead, blocks: 1 }])
        await anvil!.stop()

        client = await start({ stateFile })
        expect((await latest(client)).timestamp).to.equal(ahead)
        const synced = await followWallClock(anvil!.url)
        expect(synced.timestamp).to.equal(ahead)
        head = await firstIntervalBlock(client)
        expect(head.timestamp).to.be.at.least(ahead)
    })
})
