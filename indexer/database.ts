import { RpcClient } from '@subsquid/rpc-client'
import { Store, TypeormDatabase } from '@subsquid/typeorm-store'
import type {
    FinalTxInfo, HashAndHeight, HotDatabase, HotDatabaseState, HotTxInfo,
} from '@subsquid/util-internal-processor-tools'
import { DataSource, EntityManager } from 'typeorm'
// The store's own undo of one unfinalized block (not re-exported by the package).
import { rollbackBlock } from '@subsquid/typeorm-store/lib/hot'
import { Logger } from '../common/logger'
import { PROJECT_DIR } from '../db/migrate'
import { Batch } from './batch'
import { delegationOf, isContractCode, isEmptyCode, readBalances, readCodes } from './rpc'
import { AmmSnapshot, ChainState, Query } from './state'
import { addRows, RowsByTable } from './metrics'
import { AddressReadings, ChangeTracker, writeBatch } from './writer'

/** Schema of Subsquid's status and hot-block tables (TypeormDatabase's default). */
const STATUS_SCHEMA = 'squid_processor'

/** What the data handler receives as ctx.store: the batch to derive rows into. */
export interface IndexerStore {
    batch: Batch
}

export interface BatchingOptions {
    /** Most blocks held before a commit during a backfill (the design's 10,000). */
    maxBlocks: number
    /** Most rows held before a commit, so memory stays bounded on busy blocks. */
    maxRows: number
    /** The last block to index (INDEXER_END_BLOCK): the processor stops there without reaching a head. */
    endBlock?: number
    state: ChainState
    rpc: RpcClient
    /** Reads committed rows outside the processor's transactions. */
    query: Query
    log: Logger
    /** Called after every commit, with the last committed block (for NOTIFY and metrics). */
    onCommit?: (em: EntityManager, batch: Batch) => Promise<void>
    /** Called once a batch's transaction has committed: its rows by table, and the seconds it took (for metrics). */
    onCommitted?: (mode: 'final' | 'hot', rows: RowsByTable, seconds: number) => void
}

/**
 * Buffers the processor's finalized blocks and commits them in batches, a backfill's commit overlapping the next fetch;
 * hot blocks are written at once, with Subsquid's change log to undo a reorg: docs/indexer.md#batches-and-commits
 */
export class BatchingDatabase implements HotDatabase<IndexerStore> {
    readonly supportsHotBlocks = true as const
    /** Cumulative milliseconds per stage, reported with every commit (the benchmark reads them). */
    readonly stages = { derive: 0, readAddresses: 0, write: 0 }
    private readonly inner = new TypeormDatabase({ supportHotBlocks: true, projectDir: PROJECT_DIR })
    private committed!: HashAndHeight
    private processed!: HashAndHeight
    private pending = new Batch()
    /** The commit running in the background, if any; it never rejects (see startCommit). */
    private inFlight?: Promise<void>
    private commitError?: unknown

    constructor(private readonly options: BatchingOptions) {}

    /** The last block committed (final or not), -1 before the first connect. */
    get indexedHeight(): number {
        return this.committed?.height ?? -1
    }

    /** Also after a failure: whatever was held or committing then is dropped, and ingestion resumes from the database. */
    async connect(): Promise<HotDatabaseState> {
        this.pending = new Batch()
        this.inFlight = undefined
        this.commitError = undefined
        let state = await this.inner.connect()
        if (state.top.length) {
            // Unfinalized blocks of the previous run may no longer be on the chain (the node may
            // have restarted or reorganised meanwhile). Undo them with the store's own change log
            // and resume from the last final block; they are ingested again if still canonical.
            const source = (this.inner as unknown as { con: DataSource }).con
            await source.transaction('SERIALIZABLE', async (em) => {
                for (const block of [...state.top].reverse()) await rollbackBlock(STATUS_SCHEMA, em, block.height)
            })
            this.options.log.info({ from: state.top[0].height, to: state.top[state.top.length - 1].height }, 'undid unfinalized blocks of the previous run')
            state = { ...state, top: [] }
        }
        this.committed = this.processed = state
        await this.options.state.load(this.options.query)
        return state
    }

    async disconnect(): Promise<void> {
        try {
            await this.settle()
        } finally {
            await this.inner.disconnect()
        }
    }

    async transact(info: FinalTxInfo, cb: (store: IndexerStore) => Promise<void>): Promise<void> {
        if (info.prevHead.hash !== this.processed.hash) {
            throw new Error(`batch starts after ${info.prevHead.height}, but the indexer is at ${this.processed.height}`)
        }
        this.throwCommitError()
        const started = Date.now()
        const first = this.pending.blocks.length
        await cb({ batch: this.pending })
        this.stages.derive += Date.now() - started
        assertContinues(info.prevHead, this.pending.blocks[first])
        this.processed = info.nextHead
        const { maxBlocks, maxRows, endBlock } = this.options
        // At the head there is nothing to fetch meanwhile, and readers expect the rows now; at the
        // end block the processor returns right after this call.
        const last = info.isOnTop || (endBlock !== undefined && info.nextHead.height >= endBlock)
        if (last || this.pending.blockCount >= maxBlocks || this.pending.rowCount >= maxRows) {
            await this.settle()
            this.startCommit()
            if (last) await this.settle()
        }
    }

    transactHot(): Promise<void> {
        throw new Error('transactHot2 is used instead')
    }

    async transactHot2(
        info: HotTxInfo,
        cb: (store: IndexerStore, blockSliceStart: number, blockSliceEnd: number) => Promise<void>
    ): Promise<void> {
        await this.settle()
        if (this.processed.hash !== this.committed.hash) {
            this.startCommit()
            await this.settle()
        }
        const forked = info.baseHead.hash !== this.processed.hash
        if (forked) {
            this.options.log.warn({ from: this.processed, base: info.baseHead }, 'chain reorganised: undoing orphaned blocks')
        }
        let attempt = 0
        const started = Date.now()
        let rows: RowsByTable = {}
        await this.inner.transactHot2(info, async (store, start, end) => {
            const em = entityManagerOf(store)
            // start 0 opens each attempt; a retried transaction must not see state from a failed one.
            if (start === 0 && (forked || ++attempt > 1)) await this.options.state.load((sql, p) => em.query(sql, p))
            const batch = new Batch()
            await cb({ batch }, start, end)
            const readings = await this.readAddresses(batch, (sql, p) => em.query(sql, p))
            rows = addRows(start === 0 ? {} : rows, batch)
            await writeBatch(em, batch, this.options.state, readings, changeTrackerOf(store))
            await this.options.onCommit?.(em, batch)
        })
        const head = info.newBlocks.length ? info.newBlocks[info.newBlocks.length - 1] : info.baseHead
        this.processed = this.committed = head
        this.options.onCommitted?.('hot', rows, (Date.now() - started) / 1000)
    }

    /** Starts committing the pending batch in the background; settle() waits for it. */
    private startCommit(): void {
        const batch = this.pending
        this.pending = new Batch()
        const heads = { prevHead: this.committed, nextHead: this.processed }
        // Copied now: deriving the next batch keeps changing the live reserves and prices.
        const amm = this.options.state.snapshot()
        this.inFlight = this.commit(batch, heads, amm).then(
            () => { this.committed = heads.nextHead },
            (err) => { this.commitError = err }
        )
    }

    /** Waits for the commit in flight, and throws its error if it failed. */
    private async settle(): Promise<void> {
        const inFlight = this.inFlight
        this.inFlight = undefined
        await inFlight
        this.throwCommitError()
    }

    private throwCommitError(): void {
        if (this.commitError === undefined) return
        const err = this.commitError
        this.commitError = undefined
        throw err
    }

    private async commit(batch: Batch, heads: { prevHead: HashAndHeight; nextHead: HashAndHeight }, amm: AmmSnapshot): Promise<void> {
        let started = Date.now()
        const readings = await this.readAddresses(batch, this.options.query)
        this.stages.readAddresses += Date.now() - started
        started = Date.now()
        const rows = addRows({}, batch)
        await this.inner.transact(heads, async (store) => {
            const em = entityManagerOf(store)
            await writeBatch(em, batch, amm, readings)
            await this.options.onCommit?.(em, batch)
        })
        const ms = Date.now() - started
        this.stages.write += ms
        this.options.onCommitted?.('final', rows, ms / 1000)
        if (!batch.isEmpty) {
            this.options.log.debug(
                { from: batch.firstBlock, to: batch.lastBlock, rows: batch.rowCount, ms, stages: this.stages },
                'committed batch'
            )
        }
    }

    /** Native balances of every touched address, and whether addresses new to the database or self-destructed in the batch hold code. */
    private async readAddresses(batch: Batch, query: Query): Promise<AddressReadings> {
        const addresses = [...batch.addresses.keys()]
        if (addresses.length === 0) return { balances: new Map(), balancesAtBlock: true, hasCode: new Map(), codeGone: new Map(), delegations: new Map() }
        const { rpc, log } = this.options
        const [balances, balancesAtBlock] = await readBalances(rpc, addresses, batch.lastBlock)
        if (!balancesAtBlock) log.warn({ block: batch.lastBlock }, 'the node no longer holds the state of this block: balances are the latest ones, and the batch adds no balance-history points')
        const known = new Set((await query('SELECT id FROM address WHERE id = ANY($1)', [addresses])).map((r) => r.id))
        const unknown = addresses.filter((a) => !known.has(a) && !batch.addresses.get(a)!.isContract)
        const destroyed = addresses.filter((a) => batch.addresses.get(a)!.selfDestructed)
        const authorities = [...batch.delegations]
        // One JSON-RPC batch for the three questions; an address in two is asked once.
        const probed = [...new Set([...unknown, ...destroyed, ...authorities])]
        const codes = new Map((await readCodes(rpc, probed, batch.lastBlock)).map((code, i) => [probed[i], code]))
        return {
            balances: new Map(addresses.map((a, i) => [a, balances[i]])),
            balancesAtBlock,
            hasCode: new Map(unknown.map((a) => [a, isContractCode(codes.get(a)!)])),
            codeGone: new Map(destroyed.map((a) => [a, isEmptyCode(codes.get(a)!)])),
            delegations: new Map(authorities.map((a) => [a, delegationOf(codes.get(a)!)])),
        }
    }
}

/**
 * The node answered a final block whose parent is not the block the indexer holds at that height:
 * the chain was reorganised below blocks already committed as final, which no change log can undo.
 */
export class ReorgBelowFinalityError extends Error {
    override name = 'ReorgBelowFinalityError'
}

/**
 * Subsquid checks that the final blocks of one request follow each other, not that a request
 * continues from the last one, so a reorganisation during a backfill would go unnoticed.
 */
function assertContinues(prevHead: HashAndHeight, next: { number: number; parentHash: string } | undefined): void {
    if (!next || prevHead.height < 0 || next.number !== prevHead.height + 1 || next.parentHash === prevHead.hash) return
    throw new ReorgBelowFinalityError(`block ${next.number}'s parent is ${next.parentHash}, but the indexed block ${prevHead.height} is ${prevHead.hash}`)
}

// TypeormDatabase hands the handler a Store wrapping the transaction's EntityManager and, for hot
// blocks, its change tracker; both are private fields, reached here and nowhere else.
function entityManagerOf(store: Store): EntityManager {
    return (store as unknown as { em: () => EntityManager }).em()
}

function changeTrackerOf(store: Store): ChangeTracker | undefined {
    return (store as unknown as { changes?: ChangeTracker }).changes
}
