import { Db } from './db'

export interface Head {
    /** Highest indexed block, -1 before the first. */
    number: number
    timestamp: Date | null
    averageBlockTimeMs: number
    blocks: number
    transactions: number
    addresses: number
}

/**
 * The indexed head, read from the indexer's counters row. Cached for a moment: many requests per
 * second all need it (confirmations, cache headers) and it changes once per block.
 */
export class ChainHead {
    private cached?: { at: number; value: Promise<Head> }

    constructor(private db: Db, private ttlMs = 500) {}

    get(): Promise<Head> {
        const now = Date.now()
        if (!this.cached || now - this.cached.at > this.ttlMs) {
            const value = this.read()
            value.catch(() => (this.cached = undefined))
            this.cached = { at: now, value }
        }
        return this.cached.value
    }

    invalidate(): void {
        this.cached = undefined
    }

    private async read(): Promise<Head> {
        const { rows } = await this.db.query(
            'SELECT last_block, last_block_timestamp, average_block_time, blocks, transactions, addresses FROM chain_counters WHERE id = $1',
            ['chain']
        )
        const r = rows[0]
        if (!r) return { number: -1, timestamp: null, averageBlockTimeMs: 0, blocks: 0, transactions: 0, addresses: 0 }
        return {
            number: r.last_block,
            timestamp: r.last_block_timestamp,
            averageBlockTimeMs: r.average_block_time,
            blocks: r.blocks,
            transactions: r.transactions,
            addresses: r.addresses,
        }
    }
}
