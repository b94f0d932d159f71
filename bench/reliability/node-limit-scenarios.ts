import { WIDEN_AFTER_MS } from '../../indexer/batch-size'
import { REPROBE_AFTER_MS } from '../../indexer/receipts-method'
import { mineEmptyBlocks } from '../../test/support/chain'
import { sleep, World } from './harness'
import { Check, consistent, inWorld, round, Scenario, survived } from './scenarios'

/**
 * The catalogue's scenarios of a node that does less than the indexer asks (docs/RELIABILITY.md):
 * no eth_getBlockReceipts, or a limit on the calls in one JSON-RPC batch. The indexer must fall
 * back or narrow by itself, and return to the faster way once the node allows it again.
 */

/**
 * A backfill for these scenarios: 400 empty blocks after the seeded history, committed 100 at a
 * time. Not thousands: anvil_mine gives its blocks one timestamp, and after about a thousand of
 * them the indexer's running average block time rounds to 0, which it takes for "no average yet"
 * (writer.ts), so the next interval would restart it and the consistency check would fail on a
 * fault that is not this scenario's.
 */
const BACKFILL = { emptyBlocks: 400, env: { INDEXER_BATCH_BLOCKS: '100' } }

/** Calls in a batch that the limited node still accepts: below the processor's 10-block splits too. */
const BATCH_LIMIT = 8
/** How soon after healing receipts must be read by block again: one expiry period, plus a batch's time. */
const BY_BLOCK_LIMIT_MS = REPROBE_AFTER_MS + 10_000
/**
 * How soon after healing batches must be larger than the limit again: a refused batch held more
 * than BATCH_LIMIT calls, so the size went to BATCH_LIMIT / 2 at the least; two doublings, plus a
 * batch's time.
 */
const WIDEN_LIMIT_MS = 2 * WIDEN_AFTER_MS + 10_000

/** The first moment (ms since the epoch) a request matching `test` reached the node after `since`. */
class Sighting {
    at = Infinity
    constructor(world: World, since: () => number, test: (calls: { method: string; params?: unknown[] }[]) => boolean) {
        const previous = world.proxy.onRequest
        world.proxy.onRequest = (calls) => {
            previous?.(calls)
            const now = Date.now()
            if (this.at === Infinity && now >= since() && test(calls)) this.at = now
        }
    }

    /** ms from `from` to the sighting, waiting up to `timeoutMs` for it. */
    async after(from: number, timeoutMs: number, meanwhile?: () => Promise<unknown>): Promise<number> {
        const deadline = from + timeoutMs
        while (this.at === Infinity && Date.now() < deadline) await (meanwhile ? meanwhile() : sleep(100))
        return this.at === Infinity ? Infinity : this.at - from
    }
}

const seconds = (ms: number) => (Number.isFinite(ms) ? `${round(ms / 1000)} s` : 'never')

const isProbe = (call: { method: string; params?: unknown[] }) => call.method === 'eth_getBlockReceipts' && call.params?.[0] === 'latest'
const byBlock = (call: { method: string; params?: unknown[] }) => call.method === 'eth_getBlockReceipts' && call.params?.[0] !== 'latest'

function noLogQueries(world: World): Check {
    const calls = world.proxy.calls.get('eth_getLogs') ?? 0
    return { name: 'never calls eth_getLogs (logs come from receipts)', pass: calls === 0, detail: `${calls} calls` }
}

/** One STABLE mint (a block with a transaction and a log), then a pause: the chain keeps moving. */
const trickle = (world: World) => async () => {
    await world.activity(1)
    await sleep(500)
}

/**
 * 100 blocks every 5 s: the indexer keeps fetching ranges, in batches as large as it may. In bursts,
 * not a block a second: every commit rounds the running average block time once, and a thousand
 * small commits would drift it past what the consistency check allows.
 */
const growing = (world: World) => async () => {
    await mineEmptyBlocks(world.chain.client, 100)
    await sleep(5000)
}

const noBlockReceipts: Scenario = {
    id: 'no-block-receipts',
    item: 15,
    title: 'a node without eth_getBlockReceipts: a backfill of the seeded history, then following the head',
    run: () => inWorld({}, async (world) => {
        world.proxy.fault = { kind: 'no-block-receipts', every: 1 }
        world.startIndexer()
        await world.waitForChainHead()
        await world.activity(3)
        const consistency = await consistent(world)
        const perTransaction = world.proxy.calls.get('eth_getTransactionReceipt') ?? 0
        const refused = world.proxy.faulted.get('no-block-receipts') ?? 0
        return {
            checks: [
                survived(world),
                consistency,
                { name: 'reads receipts one transaction at a time', pass: perTransaction > 0, detail: `${perTransaction} eth_getTransactionReceipt calls` },
                noLogQueries(world),
            ],
            measures: {
                'eth_getTransactionReceipt calls': perTransaction,
                'eth_getBlockReceipts refused': refused,
                'eth_getLogs calls': world.proxy.calls.get('eth_getLogs') ?? 0,
                restarts: world.restarts,
            },
        }
    }),
}

const blockReceiptsLost: Scenario = {
    id: 'block-receipts-lost',
    item: 15,
    title: 'the node loses eth_getBlockReceipts one third into a backfill for the fault\'s length, then has it again',
    run: ({ faultMs }) => inWorld(BACKFILL, async (world) => {
        let faultAt = Infinity
        let healedAt = Infinity
        const fellBack = new Sighting(world, () => faultAt, (calls) => calls.some(isProbe))
        const byBlockAgain = new Sighting(world, () => healedAt, (calls) => calls.some(byBlock))
        world.startIndexer()
        const head = await world.head()
        await world.waitForHeight(Math.floor(head / 3))
        const atFault = await world.indexedHeight()
        const perTransactionBefore = world.proxy.calls.get('eth_getTransactionReceipt') ?? 0
        world.proxy.fault = { kind: 'no-block-receipts', every: 1 }
        faultAt = Date.now()
        // Blocks with transactions, which can only be read one receipt at a time now.
        await world.activity(5)
        await sleep(faultMs - (Date.now() - faultAt))
        const atHeal = await world.indexedHeight()
        const perTransaction = (world.proxy.calls.get('eth_getTransactionReceipt') ?? 0) - perTransactionBefore
        world.proxy.heal()
        healedAt = Date.now()
        const fallbackMs = fellBack.at - faultAt
        const backMs = await byBlockAgain.after(healedAt, BY_BLOCK_LIMIT_MS + 5000, trickle(world))
        const consistency = await consistent(world)
        return {
            checks: [
                survived(world),
                {
                    name: 'falls back: blocks and receipts read while the node lacks the method',
                    pass: atHeal > atFault && perTransaction > 0,
                    detail: `${atHeal - atFault} blocks written, ${perTransaction} eth_getTransactionReceipt calls during the fault`,
                },
                { name: `reads receipts by block again within ${BY_BLOCK_LIMIT_MS / 1000} s of the node healing`, pass: backMs <= BY_BLOCK_LIMIT_MS, detail: seconds(backMs) },
                consistency,
                noLogQueries(world),
            ],
            measures: {
                'fall back (s)': round(fallbackMs / 1000),
                'by block again (s)': round(backMs / 1000),
                'blocks during the fault': atHeal - atFault,
                'eth_getTransactionReceipt during the fault': perTransaction,
                restarts: world.restarts,
            },
        }
    }),
}

const batchLimit: Scenario = {
    id: 'batch-limit',
    item: 15,
    title: `the node refuses JSON-RPC batches of more than ${BATCH_LIMIT} calls (as geth's batch limit does) one third into a backfill, for the fault's length`,
    run: ({ faultMs }) => inWorld(BACKFILL, async (world) => {
        let healedAt = Infinity
        const widened = new Sighting(world, () => healedAt, (calls) => calls.length > BATCH_LIMIT)
        world.startIndexer()
        const head = await world.head()
        await world.waitForHeight(Math.floor(head / 3))
        const atFault = await world.indexedHeight()
        const largestBefore = world.proxy.largestBatch
        world.proxy.largestBatch = 0
        world.proxy.fault = { kind: 'batch-limit', every: 1, batchLimit: BATCH_LIMIT }
        const faultAt = Date.now()
        await world.activity(5)
        // Ranges to fetch throughout the fault, so that the indexer keeps trying wider batches.
        while (Date.now() - faultAt < faultMs) await growing(world)()
        const atHeal = await world.indexedHeight()
        const largestDuring = world.proxy.largestBatch
        world.proxy.heal()
        healedAt = Date.now()
        world.proxy.largestBatch = 0
        const widenMs = await widened.after(healedAt, WIDEN_LIMIT_MS + 5000, growing(world))
        const consistency = await consistent(world)
        const refused = world.proxy.faulted.get('batch-limit') ?? 0
        return {
            checks: [
                survived(world),
                {
                    name: 'narrows: keeps writing blocks while the node refuses large batches',
                    pass: refused > 0 && atHeal > atFault,
                    detail: `${atHeal - atFault} blocks written during the fault, ${refused} batches refused`,
                },
                { name: `sends batches of more than ${BATCH_LIMIT} calls again within ${WIDEN_LIMIT_MS / 1000} s of the node healing`, pass: widenMs <= WIDEN_LIMIT_MS, detail: seconds(widenMs) },
                consistency,
                noLogQueries(world),
            ],
            measures: {
                'largest batch before': largestBefore,
                'largest batch during': largestDuring,
                'largest batch after': world.proxy.largestBatch,
                'widen again (s)': round(widenMs / 1000),
                'blocks during the fault': atHeal - atFault,
                'batches refused': refused,
                restarts: world.restarts,
            },
        }
    }),
}

export const NODE_LIMIT_SCENARIOS: Scenario[] = [noBlockReceipts, blockReceiptsLost, batchLimit]
