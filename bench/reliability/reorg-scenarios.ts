import { Address, createWalletClient, http, maxUint256, parseAbi, parseUnits } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { waitFor } from '../../common/processes'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { devnetChain, mintStable } from '../../devnet/deploy'
import { CHAIN_ID, mineEmptyBlocks } from '../../test/support/chain'
import { sleep, World } from './harness'
import { Check, consistent, inWorld, Outcome, round, Scenario, survived } from './scenarios'

/**
 * The catalogue's reorganisations (docs/RELIABILITY.md#scenarios), made on anvil by reverting to a
 * snapshot and mining a different branch; the database is compared with the chain as it finally stands.
 */

/** The indexer's finality setting in every world (test/support/indexer.ts). */
const FINALITY = 10
/** How soon after a reorg the indexer must hold the new head again. */
const CONVERGE_LIMIT_MS = 30_000
/** The log line and readiness status of an indexer that stopped on a reorg it cannot undo. */
const STOPPED = 'reorg deeper than finality'

const deployer = mnemonicToAccount(DEV_MNEMONIC)
const holder = (n: number) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: n }).address as Address
const ROUTER = parseAbi(['function swapExactETHForTokensSupportingFeeOnTransferTokens(uint amountOutMin, address[] path, address to, uint deadline) payable'])

export async function snapshot(world: World): Promise<string> {
    return world.chain.client.request({ method: 'evm_snapshot' as any, params: [] as any }) as Promise<string>
}

/** Back to the snapshot (anvil forgets it then); returns a new one of the same block. */
export async function revert(world: World, id: string): Promise<string> {
    await world.chain.client.request({ method: 'evm_revert' as any, params: [id] as any })
    return snapshot(world)
}

/** One block: a STABLE mint of `amount` to `to`. */
async function mint(world: World, to: Address, amount: bigint): Promise<void> {
    await mintStable(world.chain.url, CHAIN_ID, deployer, world.chain.contracts.stable, to, amount)
}

/** Mints of distinct amounts, one block each: a branch whose blocks differ from any other branch's. */
async function branch(world: World, blocks: number, salt: number): Promise<void> {
    for (let i = 0; i < blocks; i++) await mint(world, holder(30 + (i % 3)), BigInt(salt * 1_000 + i + 1))
}

/** A swap of native coin for `token` on the seeded AMM: reserves, swap rows and volume buckets change. */
async function swap(world: World, token: Address, coin: string, trader = 8): Promise<void> {
    const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: trader })
    const wallet = createWalletClient({ account, chain: devnetChain(CHAIN_ID, world.chain.url), transport: http(world.chain.url) })
    const hash = await wallet.writeContract({
        address: world.chain.contracts.router, abi: ROUTER, functionName: 'swapExactETHForTokensSupportingFeeOnTransferTokens',
        args: [0n, [world.chain.contracts.wnative, token], account.address, maxUint256], value: parseUnits(coin, 18),
        maxFeePerGas: 0n, maxPriorityFeePerGas: 0n,
    })
    await world.chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}

/** Milliseconds until the indexer holds the chain's head block, Infinity after limitMs. */
async function convergence(world: World, limitMs = CONVERGE_LIMIT_MS): Promise<number> {
    const started = Date.now()
    return world.waitForChainHead(limitMs).then(() => Date.now() - started, () => Infinity)
}

function convergedCheck(ms: number): Check {
    return { name: `holds the new head within ${CONVERGE_LIMIT_MS / 1000} s`, pass: ms <= CONVERGE_LIMIT_MS, detail: `${round(ms / 1000)} s` }
}

function countLines(world: World, text: string): number {
    return world.output().split('\n').filter((l) => l.includes(text)).length
}

/**
 * After a reorg deeper than the finality setting: either the database matches the chain, or the
 * indexer said it stopped (log line and /ready) and wrote nothing more while the chain went on.
 */
async function handledOrStoppedLoudly(world: World): Promise<{ checks: Check[]; measures: Outcome['measures'] }> {
    const outcome = await waitFor('the new head indexed, or a stop', async () => {
        const ready = await world.ready()
        if (ready?.body.status === `stopped: ${STOPPED}`) return 'stopped'
        const head = await world.chain.client.getBlock({ blockTag: 'latest' })
        const rows = await world.query('SELECT 1 FROM block WHERE id = $1', [head.hash])
        return rows.length ? 'caught up' : undefined
    }, 90_000, 250).catch(() => 'neither' as const)
    if (outcome === 'caught up') {
        const check = await consistent(world, 'handled: the database matches the chain')
        return { checks: [check], measures: { outcome: 'handled' } }
    }
    const ready = await world.ready()
    const logged = countLines(world, `ingestion stopped: ${STOPPED}`)
    const height = await world.indexedHeight()
    await mint(world, holder(32), 7n)
    await world.chain.client.request({ method: 'anvil_mine' as any, params: ['0x3'] as any })
    await sleep(5000)
    const after = await world.indexedHeight()
    return {
        checks: [
            {
                name: 'handled, or stopped loudly: a log line and a non-ready /ready',
                pass: logged > 0 && ready?.status === 503 && ready.body.status === `stopped: ${STOPPED}`,
                detail: `outcome ${outcome}; ${logged} log line(s); /ready ${ready ? `${ready.status} ${ready.body.status}` : 'no answer'}`,
            },
            { name: 'does not carry on with data it cannot reconcile', pass: after === height, detail: `indexed ${height}, then ${after} after 4 more blocks` },
        ],
        measures: { outcome },
    }
}

/** The aggregates a branch changes, as rows: balances, holders, reserves, volumes, counters. */
async function aggregates(world: World): Promise<Record<string, unknown>> {
    const table = (sql: string) => world.query(sql).then((rows) => JSON.stringify(rows))
    const [counters] = await world.query('SELECT transactions, addresses, token_transfers FROM chain_counters')
    return {
        'token balances': await table('SELECT token, holder, value::text FROM token_balance ORDER BY token, holder'),
        'tokens': await table('SELECT id, holder_count, transfer_count, instance_count, total_supply::text FROM token ORDER BY id'),
        // NFT ownership (docs/indexer.md#nfts): owners and transfer counts per instance, ERC-1155 balances.
        'nft instances': await table('SELECT id, owner, transfer_count FROM token_instance ORDER BY id'),
        'nft balances': await table('SELECT id, value::text FROM nft_balance ORDER BY id'),
        'native balances': await table('SELECT id, balance::text FROM address ORDER BY id'),
        'pairs': await table('SELECT id, reserve0::text, reserve1::text, volume_total::text, swaps_total FROM pair ORDER BY id'),
        'pair hours': await table('SELECT id, volume::text, swaps FROM pair_hour_data ORDER BY id'),
        'daily volume': await table('SELECT id, volume::text, swaps FROM dex_day_data ORDER BY id'),
        // The DeFi entities' aggregates, replaced values and candles included (docs/indexer.md#defi-entities).
        'pair figures': await table(`SELECT id, token0_price::text, reserve_quote::text, volume_token0::text, volume_token1::text, total_supply::text FROM pair ORDER BY id`),
        'token figures': await table(`SELECT id, trade_volume::text, trade_volume_quote::text, swap_count, derived_quote::text, total_liquidity::text FROM token ORDER BY id`),
        'trades': await table('SELECT id, hops, volume_quote::text FROM trade ORDER BY id'),
        'pair days': await table(`SELECT id, volume_quote::text, swaps, reserve0::text, reserve_quote::text, price_open::text, price_high::text, price_low::text, price_close::text FROM pair_day_data ORDER BY id`),
        'token days': await table(`SELECT id, volume::text, swaps, price_close::text, total_liquidity::text, liquidity_quote::text FROM token_day_data ORDER BY id`),
        'dex days': await table('SELECT id, trade_volume_quote::text, trades, liquidity_quote::text, pair_count FROM dex_day_data ORDER BY id'),
        // Not the block counts and sizes: a branch is replaced by empty blocks, which count and have a size
        // (the consistency check compares those with the block rows).
        'daily activity': await table(`SELECT id, transactions, gas_used::text, fees::text, gas_price::text, active_accounts,
                                              active_accounts_week, new_accounts, new_contracts FROM daily_chain_activity ORDER BY id`),
        'sender facts': await table('SELECT count(*)::int AS n FROM account_activity'),
        'counters': JSON.stringify(counters),
    }
}

const changedKeys = (a: Record<string, unknown>, b: Record<string, unknown>) => Object.keys(a).filter((k) => a[k] !== b[k])

/** A world whose indexer follows the head of the seeded chain. */
export function following(body: (world: World) => Promise<Outcome>): Promise<Outcome> {
    return inWorld({}, async (world) => {
        world.startIndexer()
        await world.waitForChainHead()
        return body(world)
    })
}

const oneBlockNewValues: Scenario = {
    id: 'reorg-values',
    item: 5,
    title: 'a one-block reorg replaces a STABLE mint with one of another amount (and a block more)',
    run: () => following(async (world) => {
        const to = holder(33)
        const s = await snapshot(world)
        await mint(world, to, 1_111n)
        await world.waitForChainHead()
        const before = await world.query('SELECT value::text FROM token_transfer WHERE "to" = $1', [to.toLowerCase()])
        await revert(world, s)
        await mint(world, to, 2_222n)
        await mineEmptyBlocks(world.chain.client, 1)
        const ms = await convergence(world)
        const after = await world.query('SELECT value::text FROM token_transfer WHERE "to" = $1', [to.toLowerCase()])
        return {
            checks: [
                survived(world),
                convergedCheck(ms),
                {
                    name: 'the event carries the new branch\'s value',
                    pass: before.map((r) => r.value).join() === '1111' && after.map((r) => r.value).join() === '2222',
                    detail: `before ${before.map((r) => r.value).join() || 'none'}, after ${after.map((r) => r.value).join() || 'none'}`,
                },
                await consistent(world),
            ],
            measures: { 'converged (s)': round(ms / 1000), restarts: world.restarts, rollbacks: countLines(world, 'chain reorganised') },
        }
    }),
}

const eventsRemoved: Scenario = {
    id: 'reorg-removes',
    item: 6,
    title: 'a 4-block branch with a mint to a new holder, a transfer and two swaps is replaced by empty blocks',
    run: () => following(async (world) => {
        const tokens = world.chain.seeded!.tokens
        const base = await aggregates(world)
        const s = await snapshot(world)
        await mint(world, holder(34), 5_000n)
        await mint(world, holder(35), 6_000n)
        await swap(world, tokens.SILVER as Address, '2')
        await swap(world, tokens.TAXI as Address, '1', 9)
        await world.waitForChainHead()
        const branchTxs = await world.query('SELECT id FROM transaction WHERE block_number > (SELECT max(number) - 4 FROM block)')
        const changed = changedKeys(base, await aggregates(world))
        await revert(world, s)
        await mineEmptyBlocks(world.chain.client, 5)
        const ms = await convergence(world)
        const left = await world.query('SELECT id FROM transaction WHERE id = ANY($1)', [branchTxs.map((t) => t.id)])
        const differ = changedKeys(base, await aggregates(world))
        return {
            checks: [
                survived(world),
                convergedCheck(ms),
                { name: 'the branch changed every aggregate compared', pass: changed.length >= 7, detail: `changed: ${changed.join(', ')}` },
                { name: 'the branch\'s rows are gone', pass: branchTxs.length === 4 && left.length === 0, detail: `${left.length} of ${branchTxs.length} transactions left` },
                { name: 'every aggregate back to what it was', pass: differ.length === 0, detail: differ.length ? `differ: ${differ.join(', ')}` : undefined },
                await consistent(world),
            ],
            measures: { 'converged (s)': round(ms / 1000), restarts: world.restarts },
        }
    }),
}

const deeperThanFinality: Scenario = {
    id: 'reorg-deep',
    item: 7,
    title: `while following, ${FINALITY + 7} blocks (mints among them) replaced by a longer branch: deeper than the finality of ${FINALITY}`,
    run: () => following(async (world) => {
        const s = await snapshot(world)
        await branch(world, 3, 1)
        await mineEmptyBlocks(world.chain.client, FINALITY + 4)
        await world.waitForChainHead()
        await revert(world, s)
        await branch(world, 3, 2)
        await mineEmptyBlocks(world.chain.client, FINALITY + 6)
        const { checks, measures } = await handledOrStoppedLoudly(world)
        return { checks: [survived(world), ...checks], measures: { ...measures, restarts: world.restarts } }
    }),
}

/** Stops the indexer, replaces the newest blocks by a branch of `depth`, and starts it again. */
async function reorgWhileDown(world: World, depth: number): Promise<void> {
    const s = await snapshot(world)
    await branch(world, 3, 3)
    await mineEmptyBlocks(world.chain.client, depth - 3)
    await world.waitForChainHead()
    await world.stopIndexer()
    await revert(world, s)
    // The same height as before: only the hashes tell the branches apart.
    await branch(world, 3, 4)
    await mineEmptyBlocks(world.chain.client, depth - 3)
    world.startIndexer()
}

const whileDown: Scenario = {
    id: 'reorg-while-down',
    item: 8,
    title: 'the newest 5 blocks replaced by a branch of the same height while the indexer is stopped',
    run: () => following(async (world) => {
        await reorgWhileDown(world, 5)
        const ms = await convergence(world)
        return {
            checks: [survived(world), convergedCheck(ms), await consistent(world)],
            measures: { 'converged (s)': round(ms / 1000), restarts: world.restarts },
        }
    }),
}

const whileDownDeep: Scenario = {
    id: 'reorg-while-down-deep',
    item: 8,
    title: `the newest ${FINALITY + 5} blocks replaced by a branch of the same height while the indexer is stopped (deeper than finality)`,
    run: () => following(async (world) => {
        await reorgWhileDown(world, FINALITY + 5)
        const { checks, measures } = await handledOrStoppedLoudly(world)
        return { checks: [survived(world), ...checks], measures: { ...measures, restarts: world.restarts } }
    }),
}

/**
 * A branch of 2 blocks indexed, then replaced by one of 3, and that one by a branch of 4 while the
 * indexer walks back the first fork: the proxy holds its requests by hash `holdMs`, and answers
 * null for a block reorganised out meanwhile. Returns a snapshot of the fork's base and whether the
 * second reorg came during the walk.
 */
async function reorgDuringForkWalk(world: World, holdMs: number, salt: number): Promise<{ base: string; duringWalk: boolean }> {
    let base = await snapshot(world)
    await branch(world, 2, salt)
    await world.waitForChainHead()
    world.proxy.fault = { kind: 'reorged-out', every: 1, holdMs }
    const byHash = () => world.proxy.calls.get('eth_getBlockByHash') ?? 0
    base = await revert(world, base)
    const walks = byHash()
    await branch(world, 3, salt + 1)
    const duringWalk = await waitFor('the fork walk', async () => byHash() > walks, 10_000, 20).then(() => true, () => false)
    base = await revert(world, base)
    await branch(world, 4, salt + 2)
    return { base, duringWalk }
}

const threeReorgs: Scenario = {
    id: 'reorg-thrice',
    item: 9,
    title: 'three reorgs within 12 s, the second while the indexer walks back the first (its block requests by hash held 1 s)',
    run: () => following(async (world) => {
        const started = Date.now()
        const { base, duringWalk } = await reorgDuringForkWalk(world, 1000, 5)
        await sleep(2000)
        await revert(world, base)
        await branch(world, 5, 8)
        const spanMs = Date.now() - started
        const ms = await convergence(world)
        world.proxy.heal()
        return {
            checks: [
                survived(world),
                { name: 'three reorgs within 12 s', pass: spanMs <= 12_000, detail: `${round(spanMs / 1000)} s` },
                { name: 'the second began while the first was being undone', pass: duringWalk },
                convergedCheck(ms),
                await consistent(world),
            ],
            measures: {
                'reorgs span (s)': round(spanMs / 1000),
                'converged (s)': round(ms / 1000),
                restarts: world.restarts,
                'vanished hashes': world.proxy.faulted.get('reorged-out') ?? 0,
            },
        }
    }),
}

const duringBackfill: Scenario = {
    id: 'reorg-backfill',
    item: 10,
    title: 'mid-backfill, the chain from a height already indexed is replaced by a longer branch (necessarily deeper than finality)',
    run: () => inWorld({}, async (world) => {
        await mineEmptyBlocks(world.chain.client, 600)
        const s = await snapshot(world)
        const fork = await world.head()
        await mineEmptyBlocks(world.chain.client, 1200)
        const oldHead = await world.head()
        world.startIndexer()
        await world.waitForHeight(fork + 1)
        // Requests are held while the branch is built, so that the indexer sees it appear at once,
        // as a node switching branches shows it, rather than a chain shrinking and growing again.
        world.proxy.fault = { kind: 'stall', every: 1 }
        await revert(world, s)
        const atReorg = await world.indexedHeight()
        await branch(world, 1, 9)
        await mineEmptyBlocks(world.chain.client, 1300)
        world.proxy.heal()
        const { checks, measures } = await handledOrStoppedLoudly(world)
        return {
            checks: [
                { name: 'the reorg came mid-backfill, below the indexed height', pass: atReorg > fork && atReorg < oldHead, detail: `fork ${fork}, indexed ${atReorg}, head ${oldHead}` },
                survived(world),
                ...checks,
            ],
            measures: { ...measures, 'fork at': fork, 'indexed at reorg': atReorg, restarts: world.restarts },
        }
    }),
}

const hashVanishes: Scenario = {
    id: 'reorg-hash-vanishes',
    item: 14,
    title: 'a block requested by hash during a fork walk is reorganised away before the answer (answered null)',
    run: () => following(async (world) => {
        const { duringWalk } = await reorgDuringForkWalk(world, 2000, 10)
        const ms = await convergence(world)
        const vanished = world.proxy.faulted.get('reorged-out') ?? 0
        await sleep(3000)
        const later = world.proxy.faulted.get('reorged-out') ?? 0
        world.proxy.heal()
        return {
            checks: [
                survived(world),
                { name: 'a hash vanished mid-request', pass: duringWalk && vanished > 0, detail: `${vanished} null answer(s)` },
                convergedCheck(ms),
                { name: 'not retried once the new branch is indexed', pass: later === vanished, detail: `${later - vanished} more null answers in 3 s` },
                await consistent(world),
            ],
            measures: { 'converged (s)': round(ms / 1000), 'null answers': vanished, restarts: world.restarts },
        }
    }),
}

export const REORG_SCENARIOS: Scenario[] = [
    oneBlockNewValues,
    eventsRemoved,
    deeperThanFinality,
    whileDown,
    whileDownDeep,
    threeReorgs,
    duringBackfill,
    hashVanishes,
]
