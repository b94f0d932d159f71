import { PoolClient } from 'pg'
import { EntityManager, EntityTarget } from 'typeorm'
import {
    AccountActivity, Address, Block, Burn, ChainCounters, CoinBalance, DailyChainActivity, InternalTransaction, Log, Mint,
    NftBalance, ProxyContract, Swap, Token, TokenBalance, TokenInstance, TokenTransfer, Trade, Transaction, VerifiedContract,
} from '../model'
import { TOKEN_AMM_CONFLICT, tokenAmmColumns, writeAmmAggregates } from './amm-writer'
import { Batch, utcDay } from './batch'
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
    const accounts = await writeAccountActivity(batch, upsert)
    await writeCounters(batch, addresses, accounts, upsert, client)
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
    /** how many more addresses hold a balance above 0 */
    holdersChange: number
}

/**
 * Writes every touched address with its balance as the node reports it, and returns how the coin
 * supply (the sum of all balances) changed: the touched rows' new balances minus what they held
 * before, read in this transaction (the indexer is the only writer of the table).
 */
async function writeAddresses(batch: Batch, readings: AddressReadings, upsert: Upsert, client: PoolClient): Promise<AddressChanges> {
    if (batch.addresses.size === 0) return { added: 0, supplyChange: 0n, holdersChange: 0 }
    const { rows: [before] } = await client.query<{ total: string; holders: number }>(
        'SELECT COALESCE(sum(balance), 0)::text AS total, (count(*) FILTER (WHERE balance > 0))::int AS holders FROM address WHERE id = ANY($1)',
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
    const holders = rows.filter((r) => r.balance > 0n).length
    return { added: written.filter((r) => r.inserted).length, supplyChange: after - BigInt(before.total), holdersChange: holders - before.holders }
}

/** Per UTC day (YYYY-MM-DD): the senders counted for the first time that day, that ISO week (on the Monday's key) and ever. */
interface AccountCounts {
    active: Map<string, number>
    activeWeek: Map<string, number>
    added: Map<string, number>
}

const DAY_MS = 86_400_000

/** The Monday (UTC) of the ISO week of a day key; 1970-01-01 was a Thursday. */
export function weekOf(day: string): string {
    const days = Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS)
    return new Date((days - ((days + 3) % 7)) * DAY_MS).toISOString().slice(0, 10)
}

/**
 * Records who sent the batch's transactions per day, per week and ever, and counts what is new:
 * a fact already recorded (by an earlier batch) conflicts and is not counted again, so a day's
 * count is its distinct senders however many batches its blocks came in. For a hot block the
 * change log holds the facts it added, so undoing the block deletes them and only them.
 */
async function writeAccountActivity(batch: Batch, upsert: Upsert): Promise<AccountCounts> {
    const counts: AccountCounts = { active: new Map(), activeWeek: new Map(), added: new Map() }
    const firstDay = new Map<string, string>()
    const ids = new Set<string>()
    // Days in order, so that a sender's first appearance (A:) is credited to its earliest day.
    for (const day of [...batch.senders.keys()].sort()) {
        const week = weekOf(day)
        for (const sender of batch.senders.get(day)!) {
            ids.add(`D:${day}:${sender}`).add(`W:${week}:${sender}`).add(`A:${sender}`)
            if (!firstDay.has(sender)) firstDay.set(sender, day)
        }
    }
    const inserted = await upsert<{ id: string }>(AccountActivity, [...ids].map((id) => ({ id })), {}, 'id')
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)
    for (const { id } of inserted) {
        const [kind, key] = id.split(':')
        if (kind === 'D') bump(counts.active, key)
        else if (kind === 'W') bump(counts.activeWeek, key)
        else bump(counts.added, firstDay.get(key)!)
    }
    return counts
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

async function writeCounters(batch: Batch, addresses: AddressChanges, accounts: AccountCounts, upsert: Upsert, client: PoolClient): Promise<void> {
    const { rows: [current] } = await client.query('SELECT average_block_time, last_block_timestamp, blocks FROM chain_counters WHERE id = $1', ['chain'])
    const lastTimestamp = batch.blocks[batch.blocks.length - 1].timestamp
    const counters = {
        id: 'chain',
        averageBlockTime: averageBlockTime(
            { average: current?.average_block_time ?? 0, lastTimestamp: current?.last_block_timestamp ?? null, blocksBefore: Number(current?.blocks ?? 0) },
            batch.blocks
        ),
        lastBlockTimestamp: lastTimestamp,
        blocks: batch.blocks.length,
        transactions: batch.transactions.length,
        addresses: addresses.added,
        coinSupply: addresses.supplyChange,
        coinHolders: addresses.holdersChange,
        tokenTransfers: batch.tokenTransfers.length,
        lastBlock: batch.lastBlock,
        tracing: batch.tracing,
    }
    const [totals] = await upsert<{ coin_supply: string; coin_holders: number }>(ChainCounters, [counters], {
        blocks: add('blocks'),
        transactions: add('transactions'),
        addresses: add('addresses'),
        token_transfers: add('token_transfers'),
        coin_supply: add('coin_supply'),
        coin_holders: add('coin_holders'),
        last_block: 'GREATEST(t.last_block, excluded.last_block)',
        last_block_timestamp: 'excluded.last_block_timestamp',
        average_block_time: 'excluded.average_block_time',
        tracing: 'COALESCE(excluded.tracing, t.tracing)',
    }, 'coin_supply::text, coin_holders')
    await writeDailyActivity(batch, accounts, utcDay(lastTimestamp.getTime()).key, totals, upsert)
}

/**
 * The per-day rows: the batch's sums added to each day's, and the coin supply and holders as of
 * the batch's end set on its last block's day (the balances are read there only: a batch spanning
 * several days leaves the earlier ones without a value, which the lines fill from the day before).
 */
async function writeDailyActivity(
    batch: Batch,
    accounts: AccountCounts,
    lastDay: string,
    totals: { coin_supply: string; coin_holders: number },
    upsert: Upsert
): Promise<void> {
    // A Monday's weekly count may come from blocks of later days: its row is made if it has none.
    for (const week of accounts.activeWeek.keys()) batch.activityOf(Date.parse(`${week}T00:00:00Z`))
    const activity = [...batch.dailyActivity].map(([id, d]) => ({
        id, ...d,
        activeAccounts: accounts.active.get(id) ?? 0,
        activeAccountsWeek: accounts.activeWeek.get(id) ?? 0,
        newAccounts: accounts.added.get(id) ?? 0,
        coinSupply: id === lastDay ? BigInt(totals.coin_supply) : null,
        coinHolders: id === lastDay ? totals.coin_holders : null,
    }))
    await upsert(DailyChainActivity, activity, {
        blocks: add('blocks'),
        transactions: add('transactions'),
        gas_used: add('gas_used'),
        fees: add('fees'),
        block_size: add('block_size'),
        gas_price: add('gas_price'),
        active_accounts: add('active_accounts'),
        active_accounts_week: add('active_accounts_week'),
        new_accounts: add('new_accounts'),
        new_contracts: add('new_contracts'),
        verified_contracts: add('verified_contracts'),
        coin_supply: 'COALESCE(excluded.coin_supply, t.coin_supply)',
        coin_holders: 'COALESCE(excluded.coin_holders, t.coin_holders)',
    })
}
