import type { HotDatabase, HotDatabaseState } from '@subsquid/util-internal-processor-tools'
import { createProcessor } from '../indexer/processor'

/**
 * The processor's fetch path alone: the indexer's exact processor configuration (fields, ranges,
 * RPC settings) over a database that stores nothing, counting what arrives. Prints one JSON line.
 */
class NullDatabase implements HotDatabase<object> {
    readonly supportsHotBlocks = true as const
    async connect(): Promise<HotDatabaseState> {
        return { height: -1, hash: '0x', top: [] }
    }
    async transact(_info: unknown, cb: (store: object) => Promise<void>): Promise<void> {
        await cb({})
    }
    async transactHot(): Promise<void> {
        throw new Error('transactHot2 is used instead')
    }
    async transactHot2(info: { newBlocks: unknown[] }, cb: (store: object, start: number, end: number) => Promise<void>): Promise<void> {
        await cb({}, 0, info.newBlocks.length)
    }
}

const started = Date.now()
const counts = { blocks: 0, transactions: 0, logs: 0 }
process.on('exit', () => {
    process.stdout.write(JSON.stringify({ ...counts, ms: Date.now() - started }) + '\n')
})
createProcessor({
    rpcUrl: process.env.RPC_URL!,
    finalityConfirmation: Number(process.env.INDEXER_FINALITY_CONFIRMATION ?? 10),
    toBlock: Number(process.env.INDEXER_END_BLOCK),
}).run(new NullDatabase(), async (ctx) => {
    for (const block of ctx.blocks) {
        counts.blocks += 1
        counts.transactions += block.transactions.length
        counts.logs += block.logs.length
    }
})
