import { createWalletClient, http } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis } from '../../abi'
import { waitFor } from '../../common/processes'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { CHAIN_ID } from '../../test/support/chain'
import { sleep, World } from './harness'
import { following, revert, snapshot } from './reorg-scenarios'
import { consistent, round, Scenario, survived } from './scenarios'

/**
 * Head latency (docs/RELIABILITY.md#how-it-is-measured): the harness mines a block every 2 s and a
 * poller records when each block's row first appears in the database.
 */

/** The catalogue's block time. */
const BLOCK_MS = 2000
const HEAD_MS = 5 * 60_000
const QUIET_MS = 120_000
/** How often the poller reads the block table (one SELECT each time). */
const POLL_MS = 50
/** The catalogue's thresholds, and how soon after a silence the first new block must be indexed. */
const LIMITS = {
    medianMs: BLOCK_MS,
    p99Ms: 10_000,
    behindBlocks: 5,
    behindMs: 15_000,
    reorgMs: 30_000,
    afterQuietMs: 5000,
}
/** The reorg mid-run: this many of the newest blocks replaced by a branch one block longer (within the finality of 10). */
const REORG_DEPTH = 3
/** How often /ready is asked during a silence. */
const READY_EVERY_MS = 5000

interface Mined {
    number: number
    hash: string
    /** Wall-clock time the node answered the request that mined it. */
    at: number
}

/**
 * Mines blocks (recording when) and watches the database (recording when each block's row first
 * appears, by hash), keeping the chain as the harness made it so that lag is counted in blocks of
 * the current branch.
 */
class HeadWatch {
    readonly mined: Mined[] = []
    /** Hash → when the poller first saw its row. */
    readonly seen = new Map<string, number>()
    maxLag = 0
    longestBehindMs = 0
    polls = 0
    private readonly canonical = new Map<number, string>()
    private head: number
    private behindSince?: number
    private watching = false
    private poller?: Promise<void>
    /** The deployer, STABLE's owner, who mints. */
    private readonly wallet

    constructor(private readonly world: World, private readonly from: number) {
        this.head = from
        this.wallet = createWalletClient({ account: mnemonicToAccount(DEV_MNEMONIC), chain: devnetChain(CHAIN_ID, world.chain.url), transport: http(world.chain.url) })
    }

    /** One block: a STABLE mint of `amount` when given, else empty. */
    async mine(amount?: bigint): Promise<Mined> {
        if (amount === undefined) {
            await this.world.chain.client.request({ method: 'evm_mine' as any, params: [] as any })
        } else {
            await this.wallet.writeContract({
                address: this.world.chain.contracts.stable, abi: abis.Stable, functionName: 'mint',
                args: [mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 20 + Number(amount % 5n) }).address, amount], ...ZERO_FEES,
            })
        }
        // anvil may answer a transaction a few milliseconds before the block holding it exists:
        // timing from the answer counts those against the indexer, never for it.
        const at = Date.now()
        const block = await waitFor('the mined block', async () => {
            const latest = await this.world.chain.client.getBlock({ blockTag: 'latest' })
            return Number(latest.number) > this.head ? latest : undefined
        }, 10_000, 5)
        const mined = { number: Number(block.number), hash: block.hash, at }
        this.canonical.set(mined.number, mined.hash)
        this.head = mined.number
        this.mined.push(mined)
        return mined
    }

    /** Replaces the blocks after the snapshot by `blocks` new ones, mined at once; returns the branch's head. */
    async reorg(snapshotId: string, blocks: number, salt: bigint): Promise<Mined> {
        await revert(this.world, snapshotId)
        const base = await this.world.head()
        for (const n of [...this.canonical.keys()]) if (n > base) this.canonical.delete(n)
        this.head = base
        let last!: Mined
        for (let i = 0; i < blocks; i++) last = await this.mine(salt + BigInt(i))
        return last
    }

    /** Polls the block table every POLL_MS until stopWatching(). */
    watch(): void {
        this.watching = true
        this.poller = (async () => {
            while (this.watching) {
                await this.poll()
                await sleep(POLL_MS)
            }
        })()
    }

    async stopWatching(): Promise<void> {
        this.watching = false
        await this.poller
    }

    private async poll(): Promise<void> {
        const rows = await this.world.query<{ id: string }>('SELECT id FROM block WHERE number > $1', [this.from]).catch(() => undefined)
        if (!rows) return
        const now = Date.now()
        this.polls++
        const held = new Set(rows.map((r) => r.id))
        for (const id of held) if (!this.seen.has(id)) this.seen.set(id, now)
        let indexed = this.from
        for (let n = this.head; n > this.from; n--) {
            if (held.has(this.canonical.get(n)!)) {
                indexed = n
                break
            }
        }
        const lag = this.head - indexed
        this.maxLag = Math.max(this.maxLag, lag)
        if (lag > LIMITS.behindBlocks) {
            this.behindSince ??= now
            this.longestBehindMs = Math.max(this.longestBehindMs, now - this.behindSince)
        } else {
            this.behindSince = undefined
        }
    }

    /** Block-to-row latency of a block, Infinity when its row never appeared. */
    latency(block: Mined): number {
        const seen = this.seen.get(block.hash)
        return seen === undefined ? Infinity : seen - block.at
    }

    /** Latencies of the blocks whose rows appeared or that are still on the chain (a block reorganised away unseen has none). */
    latencies(): { values: number[]; orphanedUnseen: number } {
        const values: number[] = []
        let orphanedUnseen = 0
        for (const block of this.mined) {
            if (this.seen.has(block.hash) || this.canonical.get(block.number) === block.hash) values.push(this.latency(block))
            else orphanedUnseen++
        }
        return { values: values.sort((a, b) => a - b), orphanedUnseen }
    }
}

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
    if (sorted.length === 0) return Infinity
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}

const seconds = (ms: number) => round(ms / 1000, 2)

/** Mines `count` blocks every BLOCK_MS, three in four carrying a mint; `tick` may mine instead (returns true). */
async function mineEvery(watch: HeadWatch, count: number, tick?: (i: number) => Promise<boolean>): Promise<void> {
    const start = Date.now()
    for (let i = 0; i < count; i++) {
        await sleep(start + i * BLOCK_MS - Date.now())
        if (tick && await tick(i)) continue
        await watch.mine(i % 4 === 3 ? undefined : BigInt(1_000 + i))
    }
}

const headLatency: Scenario = {
    id: 'head-latency',
    item: 17,
    title: `a block every ${BLOCK_MS / 1000} s (mints in three of four) while following, with a reorg of ${REORG_DEPTH} blocks midway`,
    run: ({ headMs = HEAD_MS }) => following(async (world) => {
        const watch = new HeadWatch(world, await world.head())
        watch.watch()
        const blocks = Math.round(headMs / BLOCK_MS)
        const reorgAt = Math.floor(blocks / 2)
        let snapshotId = ''
        let branchHead: Mined | undefined
        await mineEvery(watch, blocks, async (i) => {
            if (i === reorgAt - REORG_DEPTH) snapshotId = await snapshot(world)
            if (i !== reorgAt) return false
            branchHead = await watch.reorg(snapshotId, REORG_DEPTH + 1, 900_000n)
            return true
        })
        const consistency = await consistent(world)
        await watch.stopWatching()
        const { values, orphanedUnseen } = watch.latencies()
        const [p50, p90, p99, max] = [50, 90, 99, 100].map((p) => percentile(values, p))
        const recoveryMs = branchHead ? watch.latency(branchHead) : Infinity
        return {
            checks: [
                survived(world),
                { name: `median block-to-row latency within ${LIMITS.medianMs / 1000} s`, pass: p50 <= LIMITS.medianMs, detail: `${seconds(p50)} s over ${values.length} blocks` },
                { name: `p99 under ${LIMITS.p99Ms / 1000} s`, pass: p99 < LIMITS.p99Ms, detail: `${seconds(p99)} s (max ${seconds(max)} s)` },
                {
                    name: `never more than ${LIMITS.behindBlocks} blocks behind for over ${LIMITS.behindMs / 1000} s`,
                    pass: watch.longestBehindMs <= LIMITS.behindMs,
                    detail: `at most ${watch.maxLag} behind; longest over ${LIMITS.behindBlocks}: ${seconds(watch.longestBehindMs)} s`,
                },
                {
                    name: `back to normal within ${LIMITS.reorgMs / 1000} s of the reorg (holds the new branch's head)`,
                    pass: recoveryMs <= LIMITS.reorgMs,
                    detail: `${seconds(recoveryMs)} s`,
                },
                consistency,
            ],
            measures: {
                'p50 (s)': seconds(p50),
                'p90 (s)': seconds(p90),
                'p99 (s)': seconds(p99),
                'max (s)': seconds(max),
                'max lag (blocks)': watch.maxLag,
                'longest over 5 behind (s)': seconds(watch.longestBehindMs),
                'reorg recovery (s)': seconds(recoveryMs),
                'blocks mined': watch.mined.length,
                'reorged away unseen': orphanedUnseen,
                polls: watch.polls,
                restarts: world.restarts,
            },
        }
    }),
}

/** The answers of /ready over `ms`, asked every READY_EVERY_MS. */
async function readinessWhile(world: World, ms: number): Promise<string[]> {
    const answers: string[] = []
    const end = Date.now() + ms
    while (Date.now() < end) {
        const ready = await world.ready()
        answers.push(ready ? `${ready.status} ${ready.body.status}` : 'no answer')
        await sleep(Math.min(READY_EVERY_MS, end - Date.now()))
    }
    return answers
}

const summary = (answers: string[]) => [...new Set(answers)].map((a) => `${answers.filter((b) => b === a).length}× ${a}`).join(', ')

const quietHead: Scenario = {
    id: 'quiet-head',
    item: 17,
    title: `while following, the node mines nothing for a while, then a block every ${BLOCK_MS / 1000} s again`,
    run: ({ quietMs = QUIET_MS }) => following(async (world) => {
        const watch = new HeadWatch(world, await world.head())
        watch.watch()
        await mineEvery(watch, 5)
        await world.waitForChainHead(30_000)
        const requestsBefore = world.proxy.received
        const silent = Date.now()
        const during = await readinessWhile(world, quietMs)
        const pollRate = (world.proxy.received - requestsBefore) / ((Date.now() - silent) / 1000)
        const before = watch.mined.length
        await mineEvery(watch, 5)
        const consistency = await consistent(world)
        await watch.stopWatching()
        const after = await world.ready()
        const first = watch.mined[before]
        const firstMs = watch.latency(first)
        const resumed = watch.mined.slice(before).map((b) => watch.latency(b))
        const quietSeconds = round(quietMs / 1000, 0)
        return {
            checks: [
                survived(world),
                {
                    name: `the first block after ${quietSeconds} s of silence indexed within ${LIMITS.afterQuietMs / 1000} s`,
                    pass: firstMs <= LIMITS.afterQuietMs,
                    timing: true,
                    detail: `${seconds(firstMs)} s; the next: ${resumed.slice(1).map(seconds).join(', ')} s`,
                },
                {
                    name: 'readiness: 200 during the silence and after (a quiet chain is not behind)',
                    pass: during.length > 0 && during.every((a) => a.startsWith('200 ')) && after?.status === 200,
                    detail: `during: ${summary(during)}; after: ${after ? `${after.status} ${after.body.status}` : 'no answer'}`,
                },
                consistency,
            ],
            measures: {
                'quiet (s)': quietSeconds,
                'first block after (s)': seconds(firstMs),
                'max after (s)': seconds(Math.max(...resumed)),
                'node req/s while quiet': round(pollRate),
                restarts: world.restarts,
            },
        }
    }),
}

export const HEAD_SCENARIOS: Scenario[] = [headLatency, quietHead]
