import type { z } from 'zod'
import { Recent } from '../../common/recent'
import { Db } from './db'
import { HeadViews } from './head-views'
import { RenderedItems } from './rendered-items'
import { KeyPages } from './key-pages'
import type { ReadDatabases } from './read-databases'
import { renderingChanges } from './queries/rendering-changes'
import type { SmartContractCounters, TransactionStats } from './schemas'

/** Where the indexed head's number is read (an IndexedHead of head.ts, itself cached 500 ms): all the caches need of it. */
interface HeadNumber {
    get(): Promise<{ number: number }>
}

/**
 * A figure made again when the indexed head moves, and after `ttlMs` at the same head (a reorg
 * replacing the head block at the same height). Concurrent callers share one read (Recent).
 */
export class PerHead<T> {
    private readonly recent: Recent<T>

    constructor(private readonly head: HeadNumber, ttlMs: number) {
        this.recent = new Recent(ttlMs)
    }

    async get(read: () => Promise<T>): Promise<T> {
        const head = (await this.head.get()).number
        return this.recent.get(read, head)
    }
}

/** Gas price tiers over the last blocks, in wei (routes/stats.ts). */
export interface GasOracle {
    tiers: { slow: bigint; average: bigint; fast: bigint }
    baseFee: bigint
    updatedAt: Date
    utilization: number
}

/** Blockscout's contract counters (routes/smart-contracts.ts). */
export type ContractCounters = z.input<typeof SmartContractCounters>

/** The most a view made at one head is served after it (a reorg replacing the head block at the same height): ChainHead's own cache is 500 ms. */
const HEAD_VIEW_TTL_MS = 1_000
/** What a kept key page is reckoned to take (51 keys of two hashes and a position): the key pages get as many as fit the item cache's budget. */
const KEY_PAGE_BYTES = 16 * 1024
/** What a kept view is reckoned to take (a page of 50 transactions, and its gzip): the views get as many as fit an eighth of the item cache's budget. */
const VIEW_BYTES = 128 * 1024
/** How long gas price tiers are served; /stats tells clients when the next ones come (gas_prices_update_in). */
export const GAS_ORACLE_TTL_MS = 5_000

/**
 * Every cache of the chain API's answers and figures, owned by its context, each with the rule
 * that ends an entry, so how long a change in the data may go unseen is read in one place. Besides
 * these only the indexed head itself is kept (ChainHead, 500 ms), and format.ts memoises address
 * checksums, which never change.
 */
export class ChainCaches {
    /** Each read database's rendered items and key pages, in the order of ReadDatabases.urls. */
    private readonly lists: readonly { rendered: RenderedItems; keyPages: KeyPages }[]
    /**
     * Rendered list items (transactions, blocks, holders) of the database the running request
     * reads: kept across heads, each dropped when a commit changes an address it shows, all of
     * them on a reorganisation (rendered-items.ts).
     */
    get rendered(): RenderedItems {
        return this.reads.select(this.lists).rendered
    }

    /**
     * The keys of list pages of the database the running request reads: settled ones (before a
     * cursor at or below the head) until a reorganisation, the others per head (key-pages.ts).
     */
    get keyPages(): KeyPages {
        return this.reads.select(this.lists).keyPages
    }

    /** Whole answers of the views every visitor opens, an address's first page of transactions among them: per indexed head, and 1 s at most (head-views.ts). */
    readonly views: HeadViews
    /**
     * Last-24-hours transaction counts and fees (a sum over a day of transactions): per indexed
     * head, and a minute at most.
     */
    readonly transactionStats: PerHead<z.input<typeof TransactionStats>>
    /**
     * Contract and verified-contract counts. Counting reads every address row (most are not
     * contracts, and nothing keeps a running count of them): five minutes, whatever the head;
     * Blockscout serves these from periodically refreshed caches too.
     */
    readonly contractCounters = new Recent<ContractCounters>(5 * 60_000)
    /** Gas price tiers: 5 s, whatever the head (the percentiles of 200 blocks barely move with one). */
    readonly gasOracle = new Recent<GasOracle>(GAS_ORACLE_TTL_MS)

    /**
     * `databases`: each read database's own head and statements, in the order of `reads.urls`;
     * `head`: the running request's (ServedHead), which the views and figures made per head follow.
     */
    constructor(private readonly reads: Pick<ReadDatabases, 'select'>, databases: readonly { head: HeadNumber; db: Db }[], head: HeadNumber, itemCacheBytes: number) {
        // Items and key pages follow the head they were read at, and replicas replay at their own
        // pace: one cache for all would move to whichever replica's head a request read last (a
        // replica a block behind reads as a reorganisation) and serve a request one replica's head
        // or keys while it reads the other. So each database keeps its own, on a share of the budget.
        const share = Math.floor(itemCacheBytes / databases.length)
        this.lists = databases.map(({ head: own, db }) => {
            const rendered = new RenderedItems(own, share, (since, to) => renderingChanges(db, since, to))
            return { rendered, keyPages: new KeyPages(rendered, Math.floor(share / KEY_PAGE_BYTES)) }
        })
        // Off with the item cache: CHAIN_API_ITEM_CACHE_MB=0 measures what making every answer costs.
        this.views = new HeadViews(head, itemCacheBytes === 0 ? 0 : HEAD_VIEW_TTL_MS, Math.floor(itemCacheBytes / 8 / VIEW_BYTES))
        this.transactionStats = new PerHead(head, 60_000)
    }
}
