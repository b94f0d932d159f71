import { formatUnits, parseUnits } from '../amounts'
import { ChainAdapter, DepositSeen, DepositWatch, PartialScanError } from '../chains/adapter'
import { Asset } from '../config'
import { inTransaction, LOCK_SWAP } from '../db'
import { EngineContext } from './context'
import { OperatorHoldError } from './hold'
import { gatherDeposit } from './gather'
import {
    insertLateDeposit, LateDeposit, LateColumns, LateState, lateDepositsInProgress, listedLateTransfers, loadLateDeposit, moveLateDeposit,
    noteLateDepositError, redateLateDeposit, swapsWatchedForLateDeposits, WatchedSwap,
} from '../store/late-deposits'
import { loadSwap, Swap } from '../store/swaps'
import { attributeBalance, MAX_LATE_TRANSFERS } from './late-transfers'
import { writeEvent } from './lifecycle'
import { advanceRefundTransfer } from './refund-transfer'

/** Late deposits, reaching the address of a swap that has ended, found, confirmed, gathered and refunded or held: docs/bridge/lifecycle.md#extra-and-late-deposits (a deposit other than the credited one reaching the address while the swap was active is found here too: the gather leaves it) */

/** Ended swaps one cycle watches per chain, newest first. */
const MAX_WATCHED = 50_000
/** Late deposits moved on per worker pass. */
const PER_PASS = 50

/** One monitor cycle's look at the ended swaps of a chain. True when it found a late deposit. */
export async function watchLateDeposits(ctx: EngineContext, adapter: ChainAdapter): Promise<boolean> {
    const days = ctx.config.lateDepositWatchDays
    if (days <= 0) return false
    const watched = await swapsWatchedForLateDeposits(ctx.pool, adapter.chain, days, MAX_WATCHED)
    if (watched.length === 0) return false
    const head = await adapter.head()
    const requests = watched.map((w) => ({ address: w.depositAddress, asset: ctx.asset(w.sourceChain, w.sourceToken) }))
    // Read at the head just read: a late deposit found by its balance is dated there, so that the
    // head being final means the deposit is.
    const balances = adapter.balances ? await adapter.balances(requests, head.number) : await balancesOneByOne(adapter, requests)
    // A network without balances at a block (BITCOIN's coins, read as they are) may show blocks mined
    // after `head`: the transfers making up a balance are looked for, and it is dated, up to a head
    // read after the balances, or a deposit mined meanwhile would be found but not its transfers.
    const asOf = adapter.balances ? head.number : (await adapter.head()).number
    const coin = ctx.coin(adapter.chain)
    let coinThreshold: bigint | undefined
    let found = false
    for (const [i, w] of watched.entries()) {
        const balance = balances[i]
        // An address that cannot be read now is read again next cycle.
        if (balance.status === 'rejected') continue
        const asset = requests[i].asset
        let threshold = parseUnits(w.minAmount, asset.decimals)
        if (threshold < 1n) threshold = 1n
        if (asset.kind === 'coin') {
            coinThreshold ??= 4n * (await adapter.transferFee(coin, w.depositAddress, w.depositAddress)) + 1n
            if (coinThreshold > threshold) threshold = coinThreshold
        }
        if (balance.value < threshold) continue
        try {
            if (await recordLate(ctx, adapter, w, asset, balance.value, asOf)) found = true
        } catch (err) {
            ctx.log.warn({ err, swap: w.id, chain: adapter.chain }, 'late deposit not recorded; looked at again next cycle')
        }
    }
    return found
}

/** Networks without batched reads: a few addresses at a time, so thousands of ended swaps do not flood the node. */
async function balancesOneByOne(adapter: ChainAdapter, requests: { address: string; asset: Asset }[]): Promise<PromiseSettledResult<bigint>[]> {
    const out: PromiseSettledResult<bigint>[] = []
    for (let i = 0; i < requests.length; i += 16) {
        out.push(...await Promise.allSettled(requests.slice(i, i + 16).map((r) => adapter.balance(r.address, r.asset))))
    }
    return out
}

/**
 * Writes a late deposit and its event. The transfers that make up `amount` are looked for in the last
 * scan range (late-transfers.ts): each found is listed on the row; one alone that is the whole amount
 * is also its tx_hash (the gather and the finality check go by it, as before several were listed).
 * The row is dated at the newest transfer's block when they account for the whole amount, else at the
 * head block whose balance showed it: that block being final means every transfer in it is.
 */
async function recordLate(ctx: EngineContext, adapter: ChainAdapter, w: WatchedSwap, asset: Asset, amount: bigint, head: bigint): Promise<boolean> {
    const from = head + 1n > adapter.maxScanBlocks ? head + 1n - adapter.maxScanBlocks : 0n
    const watch: DepositWatch = { swapId: w.id, address: w.depositAddress, asset, fromBlock: from }
    let found: DepositSeen[]
    try {
        found = adapter.transfersInto ? await adapter.transfersInto(watch, head, MAX_LATE_TRANSFERS) : await adapter.scanDeposits([watch], from, head)
    } catch (err) {
        // What was read still names transfers; the rest of the amount stays unattributed.
        found = err instanceof PartialScanError ? err.seen : []
        ctx.log.warn({ err, swap: w.id, chain: adapter.chain }, 'the transfers of a late deposit could not all be read; the rest of it is listed as unattributed')
    }
    const { transfers, unattributed } = attributeBalance(amount, found, await listedTransfers(ctx, w))
    const single = transfers.length === 1 && unattributed === 0n ? transfers[0] : undefined
    const newest = transfers.at(-1)
    const block = unattributed === 0n && newest ? newest : { blockNumber: head, blockHash: await blockHashOf(adapter, head) }
    return inTransaction(ctx.pool, async (client) => {
        const id = await insertLateDeposit(client, {
            swapId: w.id, chain: adapter.chain, asset: asset.symbol, amount, txHash: single?.txHash ?? null, transfers,
            blockNumber: block.blockNumber, blockHash: block.blockHash, refundAddress: w.refundAddress,
        })
        if (id === undefined) return false
        const swap = (await loadSwap(client, w.id))!
        await writeEvent(client, swap, {
            event: 'late_deposit_detected',
            txHash: single?.txHash ?? null,
            data: {
                late_deposit_id: id, amount: formatUnits(amount, asset.decimals), block_number: block.blockNumber.toString(),
                refund: w.refundAddress ? 'pending' : 'held',
                transfers: transfers.map((t) => ({ tx_hash: t.txHash, amount: formatUnits(t.amount, asset.decimals) })),
            },
        })
        ctx.log.warn({ swap: w.id, chain: adapter.chain, amount: amount.toString(), transfers: transfers.length }, 'late deposit at the address of an ended swap')
        return true
    })
}

/**
 * Transfers to the address that are not this late deposit's: the swap's credited deposit, and those
 * listed on its earlier late deposits (a dropped one's money was never moved, so its transfers may be listed again).
 */
async function listedTransfers(ctx: EngineContext, w: WatchedSwap): Promise<Set<string>> {
    const listed = await listedLateTransfers(ctx.pool, w.id)
    if (w.depositTxHash) listed.add(w.depositTxHash)
    return listed
}

/** The adapter's finality check of a deposit without a transaction goes by block number and hash. */
async function blockHashOf(adapter: ChainAdapter, blockNumber: bigint): Promise<string> {
    if (!adapter.blockHash) throw new Error(`${adapter.chain} cannot name a block's hash, and the late deposit's transfer was not found`)
    return adapter.blockHash(blockNumber)
}

/** Moves every open late deposit on by at most a few steps; called on each engine pass. */
export async function advanceLateDeposits(ctx: EngineContext): Promise<void> {
    for (const late of await lateDepositsInProgress(ctx.pool, PER_PASS)) {
        const release = await ctx.locks.tryLock(LOCK_SWAP, `late:${late.id}`)
        if (!release) continue
        try {
            for (let i = 0; i < 4; i++) {
                const current = await loadLateDeposit(ctx.pool, late.id)
                if (!current || !(await stepLate(ctx, current))) break
            }
        } catch (err) {
            if (err instanceof OperatorHoldError) {
                // Our transaction's nonce went to one that is not ours: nothing is signed again; an operator looks.
                const current = await loadLateDeposit(ctx.pool, late.id)
                if (current) {
                    await move(ctx, current, 'held', { error: err.message }, {
                        event: 'late_deposit_held', data: { late_deposit_id: late.id, reason: err.message, operator_action_required: true, ...err.data },
                    }).catch((e) => ctx.log.error({ err: e, lateDeposit: late.id }, 'cannot hold a late deposit'))
                }
            } else {
                ctx.log.error({ err, lateDeposit: late.id, swap: late.swapId }, 'late deposit step failed; retrying on the next pass')
            }
        } finally {
            await release()
        }
    }
}

/** Moves the row from `from` to `to` with `set`, and writes `event` on its swap; false when another task moved it first. */
async function move(ctx: EngineContext, late: LateDeposit, to: LateState, set: LateColumns, event?: { event: string; txHash?: string | null; data: Record<string, unknown> }): Promise<boolean> {
    return inTransaction(ctx.pool, async (client) => {
        if (!(await moveLateDeposit(client, late.id, late.state, to, set))) return false
        if (event) await writeEvent(client, (await loadSwap(client, late.swapId))!, event)
        return true
    })
}

/** One step; true when the next may follow at once. */
async function stepLate(ctx: EngineContext, late: LateDeposit): Promise<boolean> {
    const swap = (await loadSwap(ctx.pool, late.swapId))!
    const adapter = ctx.adapter(late.chain)
    const asset = ctx.asset(late.chain, late.asset)
    const finality = ctx.config.networks[late.chain]!.finality
    const units = (v: bigint) => formatUnits(v, asset.decimals)
    switch (late.state) {
        case 'detected': {
            const check = await adapter.checkDeposit({ txHash: late.txHash, blockNumber: late.blockNumber, blockHash: late.blockHash, amount: late.amount }, finality)
            if (check.state === 'moved') {
                await redateLateDeposit(ctx.pool, late.id, check.blockNumber, check.blockHash)
                return false
            }
            if (check.state === 'orphaned') {
                // A reorg took the block it was seen in: the next cycle looks at the address afresh.
                return move(ctx, late, 'dropped', { error: 'the block the late deposit was seen in was reorganised away' })
            }
            if (check.state === 'pending') return false
            if (!late.refundAddress) {
                return move(ctx, late, 'held', {}, {
                    event: 'late_deposit_held', txHash: late.txHash,
                    data: { late_deposit_id: late.id, amount: units(late.amount), reason: 'the swap has no refund_address', operator_action_required: true },
                })
            }
            return move(ctx, late, 'confirmed', {})
        }
        case 'confirmed': {
            const result = await gatherLate(ctx, swap, late, asset)
            if (result.kind === 'held') {
                return move(ctx, late, 'held', { error: result.reason }, {
                    event: 'late_deposit_held', txHash: late.txHash,
                    data: { late_deposit_id: late.id, amount: units(late.amount), reason: result.reason, operator_action_required: true },
                })
            }
            if (result.kind === 'waiting') return false
            return move(ctx, late, 'gathered', { gather_tx_hash: result.hash, gathered_amount: result.amount })
        }
        case 'gathered': {
            const refund = await refundLate(ctx, late, asset)
            if (refund.kind === 'waiting') return false
            return move(ctx, late, 'refunded', { refund_tx_hash: refund.hash, refund_amount: refund.amount, error: null }, {
                event: 'late_deposit_refunded', txHash: refund.hash,
                data: { late_deposit_id: late.id, amount: units(refund.amount), refund_address: late.refundAddress },
            })
        }
        default:
            return false
    }
}

type GatherResult = { kind: 'done'; hash: string; amount: bigint } | { kind: 'waiting' } | { kind: 'held'; reason: string }

/** Moves the late deposit into the vault (gather.ts): a coin swept whole less its fee; a token whole, after a gas top-up where the chain charges fees. */
async function gatherLate(ctx: EngineContext, swap: Swap, late: LateDeposit, asset: Asset): Promise<GatherResult> {
    const step = await gatherDeposit(ctx, {
        swapId: swap.id, chain: late.chain, asset, depositIndex: swap.depositIndex, depositAddress: swap.depositAddress,
        amount: late.amount, txHash: late.txHash, purpose: `late_gather:${late.id}`, gasPurpose: `late_gather_gas:${late.id}`,
        emptyKey: `late-nothing-to-gather:${late.id}`, topUps: 'one',
    })
    switch (step.state) {
        case 'done':
            return { kind: 'done', hash: step.tx.hash, amount: step.tx.amount }
        case 'waiting':
            return { kind: 'waiting' }
        case 'failed':
            return { kind: 'held', reason: step.reason }
        case 'unmovable':
            return { kind: 'held', reason: `the late deposit cannot be moved to the vault: ${step.error.message}` }
        case 'gas-refused':
            ctx.log.error({ swap: swap.id, reason: step.reason }, 'the vault cannot pay the gas of a late deposit\'s gather; will retry')
            return { kind: 'waiting' }
        case 'gas-spent':
            // One top-up per late deposit (the sender keeps one live transaction per purpose): fees rose past twice the estimate.
            if (!(await ctx.secondLook.agrees(`late-gas-short:${late.id}`))) return { kind: 'waiting' }
            ctx.log.error({ swap: swap.id, lateDeposit: late.id }, 'the gas sent for a late deposit no longer covers its gather')
            return { kind: 'held', reason: 'network fees rose past the gas sent to the deposit address' }
    }
}

/** Pays the gathered amount from the vault to the refund address (refund-transfer.ts); done once that transfer is final by the chain's rule. */
async function refundLate(ctx: EngineContext, late: LateDeposit, asset: Asset): Promise<{ kind: 'done'; hash: string; amount: bigint } | { kind: 'waiting' }> {
    const refund = await advanceRefundTransfer(ctx, {
        swapId: late.swapId, purpose: `late_refund:${late.id}`, chain: late.chain, asset, to: late.refundAddress!, amount: late.gatheredAmount!,
    })
    switch (refund.kind) {
        case 'done':
            return { kind: 'done', hash: refund.tx.hash, amount: refund.tx.amount }
        case 'refused':
            await noteLateDepositError(ctx.pool, late.id, `the ${late.chain} node refused the refund: ${refund.reason.slice(0, 200)}`)
            return { kind: 'waiting' }
        case 'unpayable':
            await noteLateDepositError(ctx.pool, late.id, `the refund cannot be sent now: ${refund.error.message}`)
            return { kind: 'waiting' }
        default:
            // A final revert was marked dead: the next pass signs anew.
            return { kind: 'waiting' }
    }
}
