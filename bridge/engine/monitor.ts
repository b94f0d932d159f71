import { ChainAdapter, DepositSeen, PartialScanError } from '../chains/adapter'
import { blockRanges } from '../chains/scan'
import { formatUnits } from '../amounts'
import { startMonitorCycle } from '../metrics'
import { ChainName } from '../registry'
import { AwaitingDeposit, swapsAwaitingDeposit } from '../store/swaps'
import { EngineContext } from './context'
import { watchLateDeposits } from './late'
import { transition } from './lifecycle'

/** The deposit monitor: each cycle scans every enabled chain's new blocks for the waiting swaps' deposits and closes expired windows: docs/bridge/lifecycle.md#deposits */

/** Blocks behind the cursor scanned again every cycle. */
const REORG_OVERLAP = 5n
/**
 * Waiting swaps one cycle watches per chain, oldest first: a bound on one query's memory. With
 * BRIDGE_MAX_PENDING_PER_IP and the deposit window in force it is far above what clients can hold.
 */
const MAX_WATCHED = 50_000

/** The outcome of a chain's last head read: when, and why it failed if it did. */
export interface HeadRead {
    at: Date
    error?: string
}

export class Monitor {
    /** Per chain, the last cycle's head read, for `GET /ready`. */
    readonly headReads = new Map<ChainName, HeadRead>()
    private readonly cursors = new Map<ChainName, bigint>()
    private timer?: NodeJS.Timeout
    private stopped = false
    private running?: Promise<void>

    constructor(private readonly ctx: EngineContext, private readonly onDeposit: () => void) {}

    start(): void {
        const loop = async () => {
            if (this.stopped) return
            this.running = this.cycle()
            await this.running
            if (!this.stopped) this.timer = setTimeout(loop, this.ctx.config.monitorIntervalMs)
        }
        void loop()
    }

    async stop(): Promise<void> {
        this.stopped = true
        clearTimeout(this.timer)
        await this.running
    }

    async cycle(): Promise<void> {
        await Promise.all([...this.ctx.adapters.values()].map(async (adapter) => {
            const timed = startMonitorCycle(adapter.chain)
            await this.scan(adapter).catch((err) => this.ctx.log.error({ err, chain: adapter.chain }, 'deposit scan failed; retrying next cycle'))
            const late = await watchLateDeposits(this.ctx, adapter).catch((err) => {
                this.ctx.log.error({ err, chain: adapter.chain }, 'late-deposit watch failed; retrying next cycle')
                return false
            })
            timed()
            if (late) this.onDeposit()
        }))
    }

    private async cursor(chain: ChainName): Promise<bigint | undefined> {
        const known = this.cursors.get(chain)
        if (known !== undefined) return known
        const { rows } = await this.ctx.pool.query('SELECT block FROM bridge_monitor_cursor WHERE chain = $1', [chain])
        return rows[0] ? BigInt(rows[0].block) : undefined
    }

    private async saveCursor(chain: ChainName, block: bigint): Promise<void> {
        await this.ctx.pool.query(
            `INSERT INTO bridge_monitor_cursor (chain, block) VALUES ($1, $2)
             ON CONFLICT (chain) DO UPDATE SET block = EXCLUDED.block, updated_at = now()`,
            [chain, block.toString()]
        )
        this.cursors.set(chain, block)
    }

    private async waiting(chain: ChainName): Promise<AwaitingDeposit[]> {
        const swaps = await swapsAwaitingDeposit(this.ctx.pool, chain, MAX_WATCHED)
        if (swaps.length === MAX_WATCHED) this.ctx.log.error({ chain, watched: MAX_WATCHED }, 'more swaps wait for a deposit than one cycle watches; the newest wait for the next cycles')
        return swaps
    }

    private async scan(adapter: ChainAdapter): Promise<void> {
        const startedAt = new Date()
        // The head before the list: a swap created after the list is read can only be paid in a later block, which the next cycle scans.
        const head = await adapter.head().catch((err) => {
            this.headReads.set(adapter.chain, { at: new Date(), error: 'node unreachable' })
            throw err
        })
        this.headReads.set(adapter.chain, { at: new Date() })
        const swaps = await this.waiting(adapter.chain)
        if (swaps.length === 0) {
            await this.saveCursor(adapter.chain, head.number)
            return
        }
        const cursor = await this.cursor(adapter.chain)
        const oldest = swaps.reduce((m, s) => (s.watchFromBlock < m ? s.watchFromBlock : m), head.number)
        // The last few blocks are read again each cycle: a reorg may have replaced them (a deposit
        // seen twice is harmless), and a head below the cursor means the chain was cut back.
        let from = cursor !== undefined ? (cursor + 1n > REORG_OVERLAP ? cursor + 1n - REORG_OVERLAP : 0n) : oldest
        // Nothing before the oldest waiting swap's first block can be a deposit.
        if (from < oldest) from = oldest
        if (from > head.number + 1n) from = head.number > REORG_OVERLAP ? head.number - REORG_OVERLAP : 0n
        let scannedToHead = from > head.number
        const byId = new Map(swaps.map((s) => [s.id, s]))
        const watches = swaps.map((s) => ({ swapId: s.id, address: s.depositAddress, asset: this.ctx.asset(s.sourceChain, s.sourceToken), fromBlock: s.watchFromBlock }))
        const unread = new Set<string>()
        /** The first range that must be read again: the cursor stays below it. */
        let held: bigint | undefined
        for (const [first, last] of blockRanges(from, head.number, adapter.maxScanBlocks)) {
            if (this.stopped) break
            let seen: DepositSeen[]
            try {
                seen = await adapter.scanDeposits(watches, first, last)
            } catch (err) {
                const partial = err instanceof PartialScanError ? err : undefined
                seen = partial?.seen ?? []
                for (const id of partial?.unread ?? byId.keys()) unread.add(id)
                if (!partial || partial.rescan) held ??= first
                this.ctx.log.warn({ err: partial?.causes[0] ?? err, chain: adapter.chain, first, last, unread: partial?.unread.size ?? swaps.length },
                    'part of a deposit scan failed; those addresses are read again next cycle')
            }
            await this.record(byId, seen)
            if (held === undefined) await this.saveCursor(adapter.chain, last)
            scannedToHead = last === head.number
        }
        if (!scannedToHead) return
        // Every block up to a head read after the deadline has been scanned, and that head is itself
        // past the deadline: nothing arrived in time. (A node behind another may serve a head from
        // before the deadline, without the block that holds an in-time deposit: then it waits. An
        // address that could not be read this cycle is not judged on it either.)
        for (const swap of swaps) {
            if (swap.expiresAt < startedAt && swap.expiresAt < head.time && !unread.has(swap.id)) {
                // No error_message: the spec keeps it null unless the swap failed; the status and
                // the event's expires_at say what happened.
                await transition(this.ctx.pool, swap.id, 'pending_deposit', 'expired', {
                    data: { expires_at: swap.expiresAt.toISOString() },
                })
            }
        }
    }

    /** The first transfer into each address is the swap's deposit; later ones are not credited. */
    private async record(swaps: Map<string, AwaitingDeposit>, seen: DepositSeen[]): Promise<void> {
        const first = new Map<string, DepositSeen>()
        for (const deposit of seen) if (!first.has(deposit.swapId)) first.set(deposit.swapId, deposit)
        let detected = false
        for (const [swapId, deposit] of first) {
            const swap = swaps.get(swapId)
            if (!swap) continue
            const asset = this.ctx.asset(swap.sourceChain, swap.sourceToken)
            const moved = await transition(this.ctx.pool, swapId, 'pending_deposit', 'deposit_detected', {
                set: {
                    deposit_tx_hash: deposit.txHash,
                    deposit_amount: deposit.amount,
                    deposit_block: deposit.blockNumber,
                    deposit_block_hash: deposit.blockHash,
                    deposit_block_time: deposit.blockTime,
                },
                txHash: deposit.txHash,
                data: { amount: formatUnits(deposit.amount, asset.decimals), block_number: deposit.blockNumber.toString() },
            })
            if (moved) {
                detected = true
                // Credited once: a later range of this cycle does not move it again.
                swaps.delete(swapId)
            }
        }
        if (detected) this.onDeposit()
    }
}
