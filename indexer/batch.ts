import type {
    Block, InternalTransaction, Log, Pair, Swap, Token, TokenTransfer, Transaction, VerifiedContract,
} from '../model'
import type { HexBytes } from './copy'

/** A field as a row holds it: bytes stay 0x-hex (copy.ts writes them to bytea). */
type Stored<V> = V extends Uint8Array ? HexBytes : V

/** A row as written: the entity's fields, without its class. */
export type Row<T> = { [K in keyof T]: Stored<T[K]> }

export interface AddressDelta {
    transactions: number
    tokenTransfers: number
    gasUsed: bigint
    logs: number
    firstBlock: number
    lastBlock: number
    isContract: boolean
    creator?: string
    creationTransaction?: string
}

export interface TokenDelta {
    transfers: number
    supply: bigint
}

export interface BucketDelta {
    volume: bigint
    swaps: number
}

export interface CoinDelta {
    delta: bigint
    timestamp: Date
    /** the last transaction of the block that moved coin of this address */
    transaction: string | null
}

export interface ActivityDelta {
    blocks: number
    transactions: number
    gasUsed: bigint
    fees: bigint
}

/**
 * Everything the indexer derived from a run of consecutive blocks and has not committed yet.
 * Append-only rows are kept as they will be written; aggregates are kept as deltas and resolved
 * against the database at commit time, so each changed aggregate row is written once per commit.
 */
export class Batch {
    firstBlock = -1
    lastBlock = -1
    lastBlockHash = ''

    readonly blocks: Row<Block>[] = []
    readonly transactions: Row<Transaction>[] = []
    readonly logs: Row<Log>[] = []
    readonly internalTransactions: Row<InternalTransaction>[] = []
    readonly tokenTransfers: Row<TokenTransfer>[] = []
    readonly swaps: Row<Swap>[] = []
    readonly newTokens = new Map<string, Row<Token>>()
    readonly newPairs = new Map<string, Row<Pair>>()
    readonly verifiedContracts: Row<VerifiedContract>[] = []

    /** token-holder -> change of balance */
    readonly balances = new Map<string, { token: string; holder: string; delta: bigint }>()
    readonly tokens = new Map<string, TokenDelta>()
    readonly addresses = new Map<string, AddressDelta>()
    /** Pairs whose reserves, volume or swap count changed. */
    readonly pairs = new Map<string, BucketDelta>()
    /** pair-hour -> volume and swaps */
    readonly pairHours = new Map<string, BucketDelta & { pair: string; hour: Date }>()
    /** UTC day -> volume and swaps of all pairs */
    readonly dailyVolume = new Map<string, BucketDelta & { date: Date }>()
    readonly dailyActivity = new Map<string, ActivityDelta & { date: Date }>()
    /** address -> block -> change of its native balance during that block */
    readonly coinDeltas = new Map<string, Map<number, CoinDelta>>()
    /** How the call trees of these blocks were read (recorded in the counters row). */
    tracing: string | null = null

    get blockCount(): number {
        return this.blocks.length
    }

    /** Rows held in memory, to bound a batch by size as well as by block count. */
    get rowCount(): number {
        return this.blocks.length + this.transactions.length + this.logs.length + this.tokenTransfers.length +
            this.swaps.length + this.balances.size + this.addresses.size + this.internalTransactions.length + this.coinDeltas.size
    }

    get isEmpty(): boolean {
        return this.blocks.length === 0
    }

    addBlockRange(height: number, hash: string): void {
        if (this.firstBlock < 0) this.firstBlock = height
        this.lastBlock = height
        this.lastBlockHash = hash
    }

    touchAddress(address: string, block: number): AddressDelta {
        let delta = this.addresses.get(address)
        if (!delta) {
            delta = {
                transactions: 0, tokenTransfers: 0, gasUsed: 0n, logs: 0,
                firstBlock: block, lastBlock: block, isContract: false,
            }
            this.addresses.set(address, delta)
        }
        delta.lastBlock = Math.max(delta.lastBlock, block)
        delta.firstBlock = Math.min(delta.firstBlock, block)
        return delta
    }

    addBalance(token: string, holder: string, delta: bigint): void {
        const key = `${token}-${holder}`
        const entry = this.balances.get(key)
        if (entry) entry.delta += delta
        else this.balances.set(key, { token, holder, delta })
    }

    addCoinDelta(address: string, block: number, timestamp: Date, delta: bigint, transaction: string | null): void {
        let perBlock = this.coinDeltas.get(address)
        if (!perBlock) {
            perBlock = new Map()
            this.coinDeltas.set(address, perBlock)
        }
        const entry = perBlock.get(block)
        if (entry) {
            entry.delta += delta
            entry.transaction = transaction ?? entry.transaction
        } else {
            perBlock.set(block, { delta, timestamp, transaction })
        }
    }

    tokenDelta(token: string): TokenDelta {
        let delta = this.tokens.get(token)
        if (!delta) {
            delta = { transfers: 0, supply: 0n }
            this.tokens.set(token, delta)
        }
        return delta
    }

    pairDelta(pair: string): BucketDelta {
        let delta = this.pairs.get(pair)
        if (!delta) {
            delta = { volume: 0n, swaps: 0 }
            this.pairs.set(pair, delta)
        }
        return delta
    }

    addSwapVolume(pair: string, timestamp: number, volume: bigint): void {
        const pairDelta = this.pairDelta(pair)
        pairDelta.volume += volume
        pairDelta.swaps += 1

        const hourStart = Math.floor(timestamp / 3600_000) * 3600
        const hourKey = `${pair}-${hourStart}`
        const hour = this.pairHours.get(hourKey)
        if (hour) {
            hour.volume += volume
            hour.swaps += 1
        } else {
            this.pairHours.set(hourKey, { pair, hour: new Date(hourStart * 1000), volume, swaps: 1 })
        }

        const date = utcDay(timestamp)
        const day = this.dailyVolume.get(date.key)
        if (day) {
            day.volume += volume
            day.swaps += 1
        } else {
            this.dailyVolume.set(date.key, { date: date.date, volume, swaps: 1 })
        }
    }

    addActivity(timestamp: number, transactions: number, gasUsed: bigint, fees: bigint): void {
        const date = utcDay(timestamp)
        let day = this.dailyActivity.get(date.key)
        if (!day) {
            day = { date: date.date, blocks: 0, transactions: 0, gasUsed: 0n, fees: 0n }
            this.dailyActivity.set(date.key, day)
        }
        day.blocks += 1
        day.transactions += transactions
        day.gasUsed += gasUsed
        day.fees += fees
    }
}

/** The UTC calendar day of a millisecond timestamp, as key (YYYY-MM-DD) and midnight. */
export function utcDay(timestampMs: number): { key: string; date: Date } {
    const date = new Date(Math.floor(timestampMs / 86_400_000) * 86_400_000)
    return { key: date.toISOString().slice(0, 10), date }
}
