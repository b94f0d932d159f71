import { PoolClient } from 'pg'
import { EntityManager, EntityTarget } from 'typeorm'
import {
    Address, Block, Burn, ChainCounters, CoinBalance, DailyChainActivity, InternalTransaction, Log, Mint,
    NftBalance, ProxyContract, Swap, Token, TokenBalance, TokenInstance, TokenTransfer, Trade, Transaction, VerifiedContract,
} from '../model'
import { TOKEN_AMM_CONFLICT, tokenAmmColumns, writeAmmAggregates } from './amm-writer'
import { Batch } from './batch'
import { coinBalanceRows } from './coin-balances'
import { connectionOf, copyRows, tableShape, upsertRows } from './copy'
import { AmmSnapshot } from './state'

/** Subsquid's hot-block change log (the store's private ChangeTracker), recorded so a reorg can undo the writes. */
export interface ChangeTracker {
    trackInsert(entity: EntityTarget<unknown>, rows: { id: string }[]): Promise<void>
    trackUpsert(entity: EntityTarget<unknown>, rows: { id: string }[]): Promise<void>
    trackDelete(entity: EntityTarget<unknown>, ids: string[]): Promise<void>
}

/** Native balance and code of every address the batch touched, read from the node at the batch's last block. */
export interface AddressReadings {
    balances: Map<string, bigint>
    /** false when the node no longer holds that block's state and the balances are the latest ones */
    balancesAtBlock: boolean
    /** Addresses new to the database, with whether they hold code. */
    hasCode: Map<string, boolean>
    /** Contracts with a selfdestruct frame in the batch, with whether their code is gone at its end. */
    codeGone: Map<string, boolean>
    /** EIP-7702 authorities of the batch, with the address their code delegates to (null: none). */
    delegations: Map<string, string | null>
}

const add = (column: string) => `t.${column} + excluded.${column}`

/**
 * Writes one batch in the current transaction: appended rows by COPY, aggregate rows once each
 * by upsert. For hot (unfinalized) blocks every write is first recorded in Subsquid's change log.
 */
export async function writeBatch(
    em: EntityManager,
    batch: Batch,
    /** The AMM's figures as they stand after the batch's last block. */
    amm: AmmSnapshot,
    readings: AddressReadings,
    tracker?: ChangeTracker
): Promise<void> {
    if (batch.isEmpty) return
    const client = await connectionOf(em)
    const append = async (entity: EntityTarget<unknown>, rows: { id: string }[]) => {
        if (rows.length === 0) return
        await tracker?.trackInsert(entity, rows)
        await copyRows(client, tableShape(em, entity), rows)
    }
    const upsert = async <R>(entity: EntityTarget<unknown>, rows: { id: string }[], onConflict: Record<string, string>, returning?: string) => {
        if (rows.length === 0) return [] as R[]
        await tracker?.trackUpsert(entity, rows)
        return upsertRows<R>(client, tableShape(em, entity), rows, onConflict, returning)
    }

    await append(Block, batch.blocks)
    await append(Transaction, batch.transactions)
    // The two largest tables' rows are let go as soon as COPY has them: during a backfill this
    // commit overlaps the derivation of the next batch, and both batches held in full set the
    // indexer's peak memory. Nothing after this point reads them (the batch is never written twice:
    // a failed commit stops the processor, which restarts from the last commit).
    await append(Log, batch.logs)
    batch.logs.length = 0
    await append(TokenTransfer, batch.tokenTransfers)
    await append(Trade, batch.amm.trades)
    await append(Swap, batch.amm.swaps)
    await append(Mint, batch.amm.mints)
    await append(Burn, batch.amm.burns)
    await append(VerifiedContract, batch.verifiedContracts)
    await append(InternalTransaction, batch.internalTransactions)
    batch.internalTransactions.length = 0
    // History points are anchored on the balances at the batch's last block; balances of a later
    // block would shift every point, so a node without that state yields no points for the batch.
    if (readings.balancesAtBlock) await append(CoinBalance, coinBalanceRows(batch, readings.balances))

    const remove = async (entity: EntityTarget<unknown>, ids: string[]) => {
        if (ids.length === 0) return
        await tracker?.trackDelete(entity, ids)
        await client.query(`DELETE FROM "${tableShape(em, entity).name}" WHERE id = ANY($1)`, [ids])
    }

    const holderChanges = await writeBalances(batch, upsert)
    const newInstances = await writeInstances(batch, upsert)
    await writeNftBalances(batch, upsert, remove)
    await writeTokens(batch, amm, holderChanges, newInstances, upsert)
    const addresses = await writeAddresses(batch, readings, upsert, client)
    await writeAmmAggregates(batch, amm, upsert)
    // The whole row is replaced: it is the state read at the batch's end. A hot block's change log
    // keeps the row it replaced, so undoing the block restores the implementation before it.
    await upsert(ProxyContract, [...batch.proxies.values()], {
        proxy_type: 'excluded.proxy_type', implementation: 'excluded.implementation', beacon: 'excluded.beacon', block: 'excluded.block',
    })
    await writeCounters(batch, addresses, upsert, client)
}

type Upsert = <R>(
    entity: EntityTarget<unknown>,
    rows: { id: string }[],
    onConflict: Record<string, string>,
    returning?: string
) => Promise<R[]>

/** Applies the balance deltas and returns, per token, how many holders it gained (negative: lost). */
async function writeBalances(batch: Batch, upsert: Upsert): Promise<Map<string, number>> {
    const rows = [...batch.balances].map(([id, b]) => ({ id, token: b.token, holder: b.holder, value: b.delta }))
    const updated = await upsert<{ id: string; value: string }>(TokenBalance, rows, { value: add('value') }, 'id, value')
    const holderChanges = new Map<string, number>()
    for (const row of updated) {
        const { token, delta } = batch.balances.get(row.id)!
        const after = BigInt(row.value)
        const before = after - delta
        const change = (after > 0n ? 1 : 0) - (before > 0n ? 1 : 0)
        if (change !== 0) holderChanges.set(token, (holderChanges.get(token) ?? 0) + change)
    }
    return holderChanges
}

/**
 * Writes the NFTs the batch transferred (the ERC-721 owner is the receiver of the batch's last
 * transfer of the id) and returns, per token, how many it saw for the first time.
 */
async function writeInstances(batch: Batch, upsert: Upsert): Promise<Map<string, number>> {
    const rows = [...batch.instances].map(([id, i]) => ({
        id, token: i.token, tokenId: i.tokenId, owner: i.owner ?? null, transferCount: i.transfers, firstBlock: i.firstBlock,
    }))
    const written = await upsert<{ token: string; inserted: boolean }>(TokenInstance, rows, {
        owner: 'COALESCE(excluded.owner, t.owner)',
        transfer_count: add('transfer_count'),
        first_block: 'LEAST(t.first_block, excluded.first_block)',
    }, 'token, (xmax = 0) AS inserted')
    const added = new Map<string, number>()
    for (const row of written) if (row.inserted) added.set(row.token, (added.get(row.token) ?? 0) + 1)
    return added
}

/**
 * Applies the ERC-1155 balance deltas and deletes the balances they empty, so that every row is a
 * holding (a hot block's change log keeps the deleted row, and a reorg puts it back).
 */
async function writeNftBalances(batch: Batch, upsert: Upsert, remove: (entity: EntityTarget<unknown>, ids: string[]) => Promise<void>): Promise<void> {
    const rows = [...batch.nftBalances].map(([id, b]) => ({ id, token: b.token, tokenId: b.tokenId, holder: b.holder, value: b.delta }))
    const updated = await upsert<{ id: string; value: string }>(NftBalance, rows, { value: add('value') }, 'id, value')
    await remove(NftBalance, updated.filter((r) => r.value === '0').map((r) => r.id))
}

async function writeTokens(batch: Batch, amm: AmmSnapshot, holderChanges: Map<string, number>, newInstances: Map<string, number>, upsert: Upsert): Promise<void> {
    const touched = new Set([...batch.tokens.keys(), ...holderChanges.keys(), ...newInstances.keys(), ...batch.newTokens.keys(), ...batch.amm.tokens.keys()])
    const rows = [...touched].map((id) => {
        const delta = batch.tokens.get(id) ?? { transfers: 0, supply: 0n }
        const created = batch.newTokens.get(id)
        return {
            // Placeholders for existing tokens: only the counted columns are updated on conflict.
            id, type: 'ERC-20', name: null, symbol: null, decimals: null, firstBlock: 0,
            ...created,
            totalSupply: (created?.totalSupply ?? 0n) + delta.supply,
            holderCount: holderChanges.get(id) ?? 0,
            transferCount: delta.transfers,
            instanceCount: newInstances.get(id) ?? 0,
            ...tokenAmmColumns(batch, amm, id),
        }
    })
    await upsert(Token, rows, {
        total_supply: add('total_supply'),
        holder_count: add('holder_count'),
        transfer_count: add('transfer_count'),
        instance_count: add('instance_count'),
        ...TOKEN_AMM_CONFLICT,
    })
}

/** What writing the batch's addresses changed in the chain's counters. */
interface AddressChanges {
    /** addresses seen for the first time */
    added: number
    /** how much the sum of every address's balance changed, in wei */
    supplyChange: bigint
}

/**
 * Writes every touched address with its balance as the node reports it, and returns how the coin
 * supply (the sum of all balances) changed: the touched rows' new balances minus what they held
 * before, read in this transaction (the indexer is the only writer of the table).
 */
async function writeAddresses(batch: Batch, readings: AddressReadings, upsert: Upsert, client: PoolClient): Promise<AddressChanges> {
    if (batch.addresses.size === 0) return { added: 0, supplyChange: 0n }
    const { rows: [before] } = await client.query<{ total: string }>(
        'SELECT COALESCE(sum(balance), 0)::text AS total FROM address WHERE id = ANY($1)',
        [[...batch.addresses.keys()]]
    )
    const rows = [...batch.addresses].map(([id, a]) => ({
        id,
        balance: readings.balances.get(id) ?? 0n,
        balanceBlock: batch.lastBlock,
        // An EIP-7702 authority signs with its key: an EOA, even while its delegate's code runs (and logs) as it.
        // Code gone after a selfdestruct frame: a contract destroyed, even one created before the indexer's start block.
        isContract: readings.delegations.has(id) ? false : a.isContract || (readings.hasCode.get(id) ?? false) || (readings.codeGone.get(id) ?? false),
        transactionCount: a.transactions,
        tokenTransferCount: a.tokenTransfers,
        gasUsed: a.gasUsed,
        logCount: a.logs,
        firstBlock: a.firstBlock,
        lastBlock: a.lastBlock,
        creator: a.creator ?? null,
        creationTransaction: a.creationTransaction ?? null,
        delegatedTo: readings.delegations.get(id) ?? null,
        delegationBlock: readings.delegations.has(id) ? batch.lastBlock : null,
        // What the batch knows: code read after a selfdestruct, or made by a creation; null keeps the row's value.
        selfDestructed: readings.codeGone.get(id) ?? (a.deployed ? false : null),
    }))
    const written = await upsert<{ inserted: boolean }>(Address, rows, {
        balance: 'excluded.balance',
        balance_block: 'excluded.balance_block',
        is_contract: 'CASE WHEN excluded.delegation_block IS NOT NULL THEN excluded.is_contract WHEN t.delegated_to IS NOT NULL THEN t.is_contract ELSE t.is_contract OR excluded.is_contract END',
        transaction_count: add('transaction_count'),
        token_transfer_count: add('token_transfer_count'),
        gas_used: add('gas_used'),
        log_count: add('log_count'),
        first_block: 'LEAST(t.first_block, excluded.first_block)',
        last_block: 'GREATEST(t.last_block, excluded.last_block)',
        creator: 'COALESCE(t.creator, excluded.creator)',
        creation_transaction: 'COALESCE(t.creation_transaction, excluded.creation_transaction)',
        // Only a batch that read the delegation (an authorization of the address) changes it, clearing included.
        delegated_to: 'CASE WHEN excluded.delegation_block IS NULL THEN t.delegated_to ELSE excluded.delegated_to END',
        delegation_block: 'COALESCE(excluded.delegation_block, t.delegation_block)',
        self_destructed: 'COALESCE(excluded.self_destructed, t.self_destructed)',
    }, '(xmax = 0) AS inserted')
    const after = rows.reduce((sum, r) => sum + r.balance, 0n)
    return { added: written.filter((r) => r.inserted).length, supplyChange: after - BigInt(before.total) }
}

/** Weight of the newest block interval in the moving average: 2 / (N + 1) for N = 100 blocks. */
const BLOCK_TIME_SMOOTHING = 2 / 101

/**
 * The moving average of block intervals after the batch's blocks, from the average before it.
 * The first interval of the chain seeds it; `blocksBefore` (blocks already counted) tells whether
 * that happened, since an average of 0 is also what a run of same-second blocks decays to.
 */
export function averageBlockTime(previous: { average: number; lastTimestamp: Date | null; blocksBefore: number }, blocks: { timestamp: Date }[]): number {
    let average = previous.average
    let last = previous.lastTimestamp?.getTime()
    let seeded = previous.lastTimestamp !== null && previous.blocksBefore > 1
    for (const block of blocks) {
        const time = block.timestamp.getTime()
        if (last !== undefined) {
            const interval = time - last
            average = seeded ? average + (interval - average) * BLOCK_TIME_SMOOTHING : interval
            seeded = true
        }
        last = time
    }
    return Math.round(average)
}

async function writeCounters(batch: Batch, addresses: AddressChanges, upsert: Upsert, client: PoolClient): Promise<void> {
    const activity = [...batch.dailyActivity].map(([id, d]) => ({ id, ...d }))
    await upsert(DailyChainActivity, activity, {
        blocks: add('blocks'),
        transactions: add('transactions'),
        gas_used: add('gas_used'),
        fees: add('fees'),
    })
    const { rows: [current] } = await client.query('SELECT average_block_time, last_block_timestamp, blocks FROM chain_counters WHERE id = $1', ['chain'])
    const counters = {
        id: 'chain',
        averageBlockTime: averageBlockTime(
            { average: current?.average_block_time ?? 0, lastTimestamp: current?.last_block_timestamp ?? null, blocksBefore: Number(current?.blocks ?? 0) },
            batch.blocks
        ),
        lastBlockTimestamp: batch.blocks[batch.blocks.length - 1].timestamp,
        blocks: batch.blocks.length,
        transactions: batch.transactions.length,
        addresses: addresses.added,
        coinSupply: addresses.supplyChange,
        tokenTransfers: batch.tokenTransfers.length,
        lastBlock: batch.lastBlock,
        tracing: batch.tracing,
    }
    await upsert(ChainCounters, [counters], {
        blocks: add('blocks'),
        transactions: add('transactions'),
        addresses: add('addresses'),
        token_transfers: add('token_transfers'),
        coin_supply: add('coin_supply'),
        last_block: 'GREATEST(t.last_block, excluded.last_block)',
        last_block_timestamp: 'excluded.last_block_timestamp',
        average_block_time: 'excluded.average_block_time',
        tracing: 'COALESCE(excluded.tracing, t.tracing)',
    })
}
