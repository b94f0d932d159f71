import { Hash, PublicClient, TransactionReceipt } from 'viem'
import { Logger } from '../../common/logger'

interface Waiter {
    resolve(receipt: TransactionReceipt | undefined): void
    deadline: number
    /** Not looked up yet: it may already be in a block this watcher has seen. */
    fresh: boolean
}

/**
 * One poller for every transaction the process waits on. viem's waitForTransactionReceipt runs a
 * block watcher per hash; fifty concurrent sends would poll the node fifty times as often. Here
 * the head is polled once per tick, and receipts are asked for only when a block arrived (or for
 * hashes not looked up yet).
 */
export class ReceiptWatcher {
    private readonly waiting = new Map<Hash, Waiter[]>()
    private running = false
    private lastBlock = -1n

    constructor(
        private readonly client: PublicClient,
        private readonly log: Logger,
        private readonly intervalMs = 100
    ) {}

    /** The receipt, or undefined when the transaction is not mined within timeoutMs. */
    wait(hash: Hash, timeoutMs: number): Promise<TransactionReceipt | undefined> {
        return new Promise((resolve) => {
            const list = this.waiting.get(hash) ?? []
            list.push({ resolve, deadline: Date.now() + timeoutMs, fresh: true })
            this.waiting.set(hash, list)
            if (!this.running) void this.run()
        })
    }

    private async run(): Promise<void> {
        this.running = true
        try {
            while (this.waiting.size > 0) {
                await this.tick().catch((err) => this.log.warn({ err }, 'receipt polling failed; retrying'))
                this.expire()
                if (this.waiting.size > 0) await new Promise((r) => setTimeout(r, this.intervalMs))
            }
        } finally {
            this.running = false
        }
    }

    private async tick(): Promise<void> {
        const head = await this.client.getBlockNumber({ cacheTime: 0 })
        const newBlock = head !== this.lastBlock
        this.lastBlock = head
        const hashes = [...this.waiting.entries()]
            .filter(([, waiters]) => newBlock || waiters.some((w) => w.fresh))
            .map(([hash]) => hash)
        for (const waiters of this.waiting.values()) for (const w of waiters) w.fresh = false
        await Promise.all(hashes.map(async (hash) => {
            const receipt = await this.client.getTransactionReceipt({ hash }).catch((err: Error) => {
                // A node hiccup, unlike "not mined yet", must not wait for the next block to be retried.
                if (err.name !== 'TransactionReceiptNotFoundError') for (const w of this.waiting.get(hash) ?? []) w.fresh = true
                return undefined
            })
            if (!receipt) return
            for (const w of this.waiting.get(hash) ?? []) w.resolve(receipt)
            this.waiting.delete(hash)
        }))
    }

    private expire(): void {
        const now = Date.now()
        for (const [hash, waiters] of this.waiting) {
            const left = waiters.filter((w) => {
                if (w.deadline > now) return true
                w.resolve(undefined)
                return false
            })
            if (left.length) this.waiting.set(hash, left)
            else this.waiting.delete(hash)
        }
    }
}
