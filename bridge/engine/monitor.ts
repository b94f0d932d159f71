import { ChainAdapter, DepositSeen } from '../chains/adapter'
import { blockRanges } from '../chains/scan'
import { formatUnits } from '../amounts'
import { ChainName } from '../registry'
import { EngineContext } from './context'
import { mapSwap, Swap, transition } from './lifecycle'

/**
 * The blockchain monitor: every cycle (20 s by default, spec 8) it reads each enabled source
 * chain's new blocks for transfers into the deposit addresses of swaps waiting for one, and
 * closes the window of swaps whose time is up.
 *
 * Nothing is missed between cycles: the head is read *before* the list of waiting swaps, so a
 * swap created after the list was read can only receive its deposit in a later block, which the
 * next cycle scans (the cursor never passes a block it has not scanned with the swaps known then).
 * A restarted process starts again from the oldest waiting swap's first block; seeing a deposit
 * twice is harmless (the move out of pending_deposit happens once).
 */
/** Blocks behind the cursor scanned again every cycle. */
const REORG_OVERLAP = 5n

export class Monitor {
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
        await Promise.all([...this.ctx.adapters.values()].map((adapter) =>
            this.scan(adapter).catch((err) => this.ctx.log.error({ err, chain: adapter.chain }, 'deposit scan failed; retrying next cycle'))
        ))
    }

    private async scan(adapter: ChainAdapter): Promise<void> {
        const startedAt = new Date()
        const head = await adapter.head()
        const { rows } = await this.ctx.pool.query(`SELECT * FROM bridge_swap WHERE status = 'pending_deposit' AND source_chain = $1`, [adapter.chain])
        const swaps = rows.map(mapSwap)
        if (swaps.length === 0) {
            this.cursors.set(adapter.chain, head.number)
            return
        }
        const cursor = this.cursors.get(adapter.chain)
        // The last few blocks are read again each cycle: a reorg may have replaced them (a deposit
        // seen twice is harmless), and a head below the cursor means the chain was cut back.
        let from = cursor !== undefined
            ? (cursor + 1n > REORG_OVERLAP ? cursor + 1n - REORG_OVERLAP : 0n)
            : swaps.reduce((m, s) => (s.watchFromBlock < m ? s.watchFromBlock : m), head.number)
        if (from > head.number + 1n) from = head.number > REORG_OVERLAP ? head.number - REORG_OVERLAP : 0n
        let scannedToHead = from > head.number
        const watches = swaps.map((s) => ({ swapId: s.id, address: s.depositAddress, asset: this.ctx.asset(s.sourceChain, s.sourceToken), fromBlock: s.watchFromBlock }))
        for (const [first, last] of blockRanges(from, head.number, adapter.maxScanBlocks)) {
            if (this.stopped) break
            await this.record(swaps, await adapter.scanDeposits(watches, first, last))
            this.cursors.set(adapter.chain, last)
            scannedToHead = last === head.number
        }
        if (!scannedToHead) return
        // Every block up to a head read after the deadline has been scanned: nothing arrived in time.
        for (const swap of swaps) {
            if (swap.expiresAt < startedAt) {
                await transition(this.ctx.pool, swap.id, 'pending_deposit', 'expired', {
                    set: { error_message: 'no deposit arrived before the window closed' },
                    data: { expires_at: swap.expiresAt.toISOString() },
                })
            }
        }
    }

    /** The first transfer into each address is the swap's deposit; later ones are not credited. */
    private async record(swaps: Swap[], seen: DepositSeen[]): Promise<void> {
        const first = new Map<string, DepositSeen>()
        for (const deposit of seen) if (!first.has(deposit.swapId)) first.set(deposit.swapId, deposit)
        let detected = false
        for (const [swapId, deposit] of first) {
            const swap = swaps.find((s) => s.id === swapId)!
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
                swap.status = moved.status
            }
        }
        if (detected) this.onDeposit()
    }
}
