import { Db } from './db'
import { ReadDatabases } from './read-databases'
import { chainCounters } from './queries/stats'
import { Recent } from '../../common/recent'

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
    private readonly recent: Recent<Head>

    constructor(private db: Db, ttlMs = 500) {
        this.recent = new Recent(ttlMs)
    }

    get(): Promise<Head> {
        return this.recent.get(() => this.read())
    }

    invalidate(): void {
        this.recent.forget()
    }

    private async read(): Promise<Head> {
        const r = await chainCounters(this.db)
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

/** What the chain API reads its indexed head from: a ChainHead, or the ServedHead of several. */
export type IndexedHead = Pick<ChainHead, 'get' | 'invalidate'>

/**
 * The head of the database the running request reads (ReadDatabases): each replica's own, read
 * there and cached apart, so a request never answers at a head whose block its database does not
 * hold yet.
 */
export class ServedHead implements IndexedHead {
    constructor(private readonly reads: ReadDatabases, private readonly heads: readonly ChainHead[]) {}

    get(): Promise<Head> {
        return this.reads.select(this.heads).get()
    }

    /** Every database's: a NOTIFY from the primary says a commit happened, not which replica has it yet. */
    invalidate(): void {
        for (const head of this.heads) head.invalidate()
    }
}
