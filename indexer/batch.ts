import type {
    Block, InternalTransaction, Log, ProxyContract, Token, TokenTransfer, Transaction, VerifiedContract,
} from '../model'
import { instanceId, nftBalanceId } from '../db/row-ids'
import { AmmBatch, utcDay } from './amm-batch'
import type { Row } from './rows'

export type { Row }

/** A new token as read from the chain: its AMM columns are the writer's (amm-writer.ts tokenAmmColumns), and so is its instance count. */
export type NewTokenRow = Omit<Row<Token>, 'tradeVolume' | 'tradeVolumeQuote' | 'swapCount' | 'derivedQuote' | 'totalLiquidity' | 'instanceCount'>

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
    /** A creation that stood made code at this address in these blocks (a CREATE2 re-creation clears a self-destruct). */
    deployed?: boolean
    /** A selfdestruct frame of this contract ran in these blocks: whether its code is gone is read at the batch's end. */
    selfDestructed?: boolean
}

export interface TokenDelta {
    transfers: number
    supply: bigint
}

/** What a batch did to one NFT (token id). */
export interface InstanceDelta {
    token: string
    tokenId: bigint
    transfers: number
    firstBlock: number
    /** ERC-721: the receiver of its last transfer in the batch (the zero address: burnt); undefined for ERC-1155 */
    owner?: string
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
    blockSize: bigint
    /** effective gas prices summed */
    gasPrice: bigint
    newContracts: number
    verifiedContracts: number
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
    readonly newTokens = new Map<string, NewTokenRow>()
    readonly verifiedContracts: Row<VerifiedContract>[] = []
    /** Proxies detected or refreshed, as read at the end of the blocks derived (a later read replaces an earlier one). */
    readonly proxies = new Map<string, Row<ProxyContract>>()

    /** token-holder -> change of balance */
    readonly balances = new Map<string, { token: string; holder: string; delta: bigint }>()
    /** NFTs transferred, by instance id (db/row-ids.ts) */
    readonly instances = new Map<string, InstanceDelta>()
    /** ERC-1155 balance changes, by nft_balance id */
    readonly nftBalances = new Map<string, { token: string; tokenId: bigint; holder: string; delta: bigint }>()
    readonly tokens = new Map<string, TokenDelta>()
    readonly addresses = new Map<string, AddressDelta>()
    /** The AMM's rows and figures. */
    readonly amm = new AmmBatch()
    readonly dailyActivity = new Map<string, ActivityDelta & { date: Date }>()
    /** UTC day (YYYY-MM-DD) -> the senders of its transactions, in block order (the writer counts the distinct and first-time ones). */
    readonly senders = new Map<string, Set<string>>()
    /** address -> block -> change of its native balance during that block */
    readonly coinDeltas = new Map<string, Map<number, CoinDelta>>()
    /** EIP-7702 authorities of these blocks: their delegation is read from the node at the batch's last block. */
    readonly delegations = new Set<string>()
    /** How the call trees of these blocks were read (recorded in the counters row). */
    tracing: string | null = null

    get blockCount(): number {
        return this.blocks.length
    }

    /** Rows held in memory, to bound a batch by size as well as by block count. */
    get rowCount(): number {
        return this.blocks.length + this.transactions.length + this.logs.length + this.tokenTransfers.length +
            this.amm.swaps.length + this.balances.size + this.instances.size + this.nftBalances.size + this.addresses.size + this.internalTransactions.length + this.coinDeltas.size
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

    touchInstance(token: string, tokenId: bigint, block: number): InstanceDelta {
        const id = instanceId(token, tokenId)
        let delta = this.instances.get(id)
        if (!delta) {
            delta = { token, tokenId, transfers: 0, firstBlock: block }
            this.instances.set(id, delta)
        }
        return delta
    }

    addNftBalance(token: string, tokenId: bigint, holder: string, delta: bigint): void {
        const id = nftBalanceId(token, tokenId, holder)
        const entry = this.nftBalances.get(id)
        if (entry) entry.delta += delta
        else this.nftBalances.set(id, { token, tokenId, holder, delta })
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

    /** The day's activity row of `timestamp` (ms), made empty on first use. */
    activityOf(timestamp: number): ActivityDelta {
        const date = utcDay(timestamp)
        let day = this.dailyActivity.get(date.key)
        if (!day) {
            day = {
                date: date.date, blocks: 0, transactions: 0, gasUsed: 0n, fees: 0n,
                blockSize: 0n, gasPrice: 0n, newContracts: 0, verifiedContracts: 0,
            }
            this.dailyActivity.set(date.key, day)
        }
        return day
    }

    addActivity(timestamp: number, block: { transactions: number; gasUsed: bigint; fees: bigint; size: bigint; gasPrice: bigint }): void {
        const day = this.activityOf(timestamp)
        day.blocks += 1
        day.transactions += block.transactions
        day.gasUsed += block.gasUsed
        day.fees += block.fees
        day.blockSize += block.size
        day.gasPrice += block.gasPrice
    }

    addSender(timestamp: number, sender: string): void {
        const key = utcDay(timestamp).key
        let senders = this.senders.get(key)
        if (!senders) {
            senders = new Set()
            this.senders.set(key, senders)
        }
        senders.add(sender)
    }
}

export { utcDay }
