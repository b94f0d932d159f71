import { Pool } from 'pg'
import { formatUnits, parseUnits } from '../amounts'
import { ChainAdapter, DepositSeen, DepositWatch, InsufficientForFeeError, PartialScanError, UnpayableTransferError } from '../chains/adapter'
import { Asset } from '../config'
import { inTransaction, LOCK_SWAP } from '../db'
import { ChainName } from '../registry'
import { EngineContext } from './context'
import { OperatorHoldError } from './hold'
import { landedTopUpCovers } from './gather'
import { attributeBalance, LateTransfer, MAX_LATE_TRANSFERS } from './late-transfers'
import { loadSwap, Swap, writeEvent } from './lifecycle'
import { MINED, Purpose } from './sender'

/** Late deposits, reaching the address of a swap that has ended, found, confirmed, gathered and refunded or held: docs/bridge/lifecycle.md#extra-and-late-deposits (a deposit other than the credited one reaching the address while the swap was active is found here too: the gather leaves it) */

export type LateState = 'detected' | 'confirmed' | 'gathered' | 'refunded' | 'held' | 'dropped'

const OPEN = `('detected', 'confirmed', 'gathered', 'held')`
/** Ended swaps one cycle watches per chain, newest first. */
const MAX_WATCHED = 50_000
/** Late deposits moved on per worker pass. */
const PER_PASS = 50

interface Watched {
    id: string
    sourceChain: ChainName
    sourceToken: string
    depositAddress: string
    refundAddress: string | null
    minAmount: string
    /** The swap's credited deposit: never one of its late deposits' transfers. */
    depositTxHash: string | null
}

export interface LateDeposit {
    id: string
    swapId: string
    chain: ChainName
    asset: string
    amount: bigint
    /** The one transfer that is the whole amount; null when it is several or not known. */
    txHash: string | null
    /** The transfers found to make up the amount, oldest first (late-transfers.ts). */
    transfers: LateTransfer[]
    /** The part of amount they do not account for. */
    unattributed: bigint
    blockNumber: bigint
    blockHash: string
    state: LateState
    gatherTxHash: string | null
    gatheredAmount: bigint | null
    refundAddress: string | null
    refundTxHash: string | null
    refundAmount: bigint | null
    error: string | null
    createdAt: Date
}

const big = (v: string | null) => (v === null ? null : BigInt(v))

function mapLate(r: any): LateDeposit {
    const transfers: LateTransfer[] = (r.transfers ?? []).map((t: any) => ({
        txHash: t.tx_hash, amount: BigInt(t.amount), blockNumber: BigInt(t.block_number), blockHash: t.block_hash,
    }))
    const amount = BigInt(r.amount)
    return {
        id: String(r.id), swapId: r.swap_id, chain: r.chain, asset: r.asset, amount, txHash: r.tx_hash,
        transfers, unattributed: amount - transfers.reduce((sum, t) => sum + t.amount, 0n),
        blockNumber: BigInt(r.block_number), blockHash: r.block_hash, state: r.state, gatherTxHash: r.gather_tx_hash,
        gatheredAmount: big(r.gathered_amount), refundAddress: r.refund_address, refundTxHash: r.refund_tx_hash,
        refundAmount: big(r.refund_amount), error: r.error, createdAt: r.created_at,
    }
}

export async function lateDepositsOf(pool: Pool, swapId: string): Promise<LateDeposit[]> {
    const { rows } = await pool.query('SELECT * FROM bridge_late_deposit WHERE swap_id = $1 ORDER BY id', [swapId])
    return rows.map(mapLate)
}

/** One monitor cycle's look at the ended swaps of a chain. True when it found a late deposit. */
export async function watchLateDeposits(ctx: EngineContext, adapter: ChainAdapter): Promise<boolean> {
    const days = ctx.config.lateDepositWatchDays
    if (days <= 0) return false
    const { rows } = await ctx.pool.query(
        `SELECT s.id, s.source_chain, s.source_token, s.deposit_address, s.refund_address, s.route->>'min_amount' AS min_amount, s.deposit_tx_hash
         FROM bridge_swap s
         WHERE s.source_chain = $1 AND s.finished_at > now() - make_interval(secs => $2)
           AND (s.status IN ('completed', 'expired')
                OR (s.status = 'failed' AND s.refund_status IS DISTINCT FROM 'pending' AND (s.gathered_amount IS NOT NULL OR s.deposit_tx_hash IS NULL)))
           AND NOT EXISTS (SELECT 1 FROM bridge_late_deposit l WHERE l.swap_id = s.id AND l.state IN ${OPEN})
         ORDER BY s.finished_at DESC LIMIT $3`,
        [adapter.chain, days * 86_400, MAX_WATCHED]
    )
    if (rows.length === 0) return false
    const watched: Watched[] = rows.map((r) => ({
        id: r.id, sourceChain: r.source_chain, sourceToken: r.source_token, depositAddress: r.deposit_address,
        refundAddress: r.refund_address, minAmount: r.min_amount ?? '0', depositTxHash: r.deposit_tx_hash,
    }))
    const head = await adapter.head()
    const requests = watched.map((w) => ({ address: w.depositAddress, asset: ctx.asset(w.sourceChain, w.sourceToken) }))
    // Read at the head just read: a late deposit found by its balance is dated there, so that the
    // head being final means the deposit is.
    const balances = adapter.balances ? await adapter.balances(requests, head.number) : await balancesOneByOne(adapter, requests)
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
            if (await recordLate(ctx, adapter, w, asset, balance.value, head.number)) found = true
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
async function recordLate(ctx: EngineContext, adapter: ChainAdapter, w: Watched, asset: Asset, amount: bigint, head: bigint): Promise<boolean> {
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
    const { transfers, unattributed } = attributeBalance(amount, found, await listedTransfers(ctx.pool, w))
    const single = transfers.length === 1 && unattributed === 0n ? transfers[0] : undefined
    const newest = transfers.at(-1)
    const block = unattributed === 0n && newest ? newest : { blockNumber: head, blockHash: await blockHashOf(adapter, head) }
    const stored = transfers.map((t) => ({ tx_hash: t.txHash, amount: t.amount.toString(), block_number: t.blockNumber.toString(), block_hash: t.blockHash }))
    return inTransaction(ctx.pool, async (client) => {
        const { rows } = await client.query(
            `INSERT INTO bridge_late_deposit (swap_id, chain, asset, amount, tx_hash, transfers, block_number, block_hash, state, refund_address)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'detected', $9)
             ON CONFLICT (swap_id) WHERE state IN ${OPEN} DO NOTHING RETURNING id`,
            [w.id, adapter.chain, asset.symbol, amount.toString(), single?.txHash ?? null, JSON.stringify(stored), block.blockNumber.toString(), block.blockHash, w.refundAddress]
        )
        if (rows.length === 0) return false
        const swap = (await loadSwap(client, w.id))!
        await writeEvent(client, swap, {
            event: 'late_deposit_detected',
            txHash: single?.txHash ?? null,
            data: {
                late_deposit_id: String(rows[0].id), amount: formatUnits(amount, asset.decimals), block_number: block.blockNumber.toString(),
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
async function listedTransfers(pool: Pool, w: Watched): Promise<Set<string>> {
    const { rows } = await pool.query(
        `SELECT tx_hash, transfers FROM bridge_late_deposit WHERE swap_id = $1 AND state <> 'dropped'`, [w.id])
    const listed = new Set<string>()
    if (w.depositTxHash) listed.add(w.depositTxHash)
    for (const r of rows) {
        if (r.tx_hash) listed.add(r.tx_hash)
        for (const t of r.transfers ?? []) listed.add(t.tx_hash)
    }
    return listed
}

/** The adapter's finality check of a deposit without a transaction goes by block number and hash. */
async function blockHashOf(adapter: ChainAdapter, blockNumber: bigint): Promise<string> {
    if (!adapter.blockHash) throw new Error(`${adapter.chain} cannot name a block's hash, and the late deposit's transfer was not found`)
    return adapter.blockHash(blockNumber)
}

/** Moves every open late deposit on by at most a few steps; called on each engine pass. */
export async function advanceLateDeposits(ctx: EngineContext): Promise<void> {
    const { rows } = await ctx.pool.query(
        `SELECT * FROM bridge_late_deposit WHERE state IN ('detected', 'confirmed', 'gathered') ORDER BY updated_at LIMIT $1`, [PER_PASS])
    for (const late of rows.map(mapLate)) {
        const release = await ctx.locks.tryLock(LOCK_SWAP, `late:${late.id}`)
        if (!release) continue
        try {
            for (let i = 0; i < 4; i++) {
                const current = await reload(ctx.pool, late.id)
                if (!current || !(await stepLate(ctx, current))) break
            }
        } catch (err) {
            if (err instanceof OperatorHoldError) {
                // Our transaction's nonce went to one that is not ours: nothing is signed again; an operator looks.
                const current = await reload(ctx.pool, late.id)
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

async function reload(pool: Pool, id: string): Promise<LateDeposit | undefined> {
    const { rows } = await pool.query('SELECT * FROM bridge_late_deposit WHERE id = $1', [id])
    return rows[0] ? mapLate(rows[0]) : undefined
}

/** Moves the row from `from` to `to` with `set`, and writes `event` on its swap; false when another task moved it first. */
async function move(ctx: EngineContext, late: LateDeposit, to: LateState, set: Record<string, string | bigint | null>, event?: { event: string; txHash?: string | null; data: Record<string, unknown> }): Promise<boolean> {
    const columns = Object.keys(set)
    return inTransaction(ctx.pool, async (client) => {
        const { rowCount } = await client.query(
            `UPDATE bridge_late_deposit SET state = $3, updated_at = now()${columns.map((c, i) => `, "${c}" = $${i + 4}`).join('')} WHERE id = $1 AND state = $2`,
            [late.id, late.state, to, ...Object.values(set).map((v) => (typeof v === 'bigint' ? v.toString() : v))]
        )
        if (!rowCount) return false
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
                await ctx.pool.query(`UPDATE bridge_late_deposit SET block_number = $2, block_hash = $3, updated_at = now() WHERE id = $1 AND state = 'detected'`,
                    [late.id, check.blockNumber.toString(), check.blockHash])
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
            const result = await gatherLate(ctx, adapter, swap, late, asset)
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
            const refund = await refundLate(ctx, adapter, late, asset)
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

/** Moves the late deposit into the vault: a coin swept whole less its fee; a token whole, after a gas top-up where the chain charges fees. */
async function gatherLate(ctx: EngineContext, adapter: ChainAdapter, swap: Swap, late: LateDeposit, asset: Asset): Promise<GatherResult> {
    const purpose: Purpose = `late_gather:${late.id}`
    const vault = await adapter.deriveAddress({ kind: 'vault' })
    const live = await ctx.sender.live(swap.id, purpose)
    if (live) {
        const state = live.status === 'confirmed' ? { kind: 'confirmed' as const } : await ctx.sender.track(adapter, live, MINED)
        if (state.kind === 'confirmed') return { kind: 'done', hash: live.hash, amount: live.amount }
        if (state.kind === 'reverted') return { kind: 'held', reason: `the gather transaction ${live.hash} reverted` }
        return { kind: 'waiting' }
    }
    const from = { kind: 'deposit' as const, index: swap.depositIndex }
    if (asset.kind === 'coin') {
        try {
            // Its own amount (BITCOIN: its own outputs) only: a deposit arriving meanwhile is the next late deposit.
            await ctx.sender.send(adapter, swap.id, purpose, { from, to: vault, asset, amount: 'all', only: { amount: late.amount, txHash: late.txHash } })
        } catch (err) {
            if (err instanceof InsufficientForFeeError || err instanceof UnpayableTransferError) return { kind: 'held', reason: `the late deposit cannot be moved to the vault: ${err.message}` }
            throw err
        }
        return { kind: 'waiting' }
    }
    const coin = ctx.coin(swap.sourceChain)
    const fee = await adapter.transferFee(asset, swap.depositAddress, vault)
    if (fee > 0n) {
        const held = await adapter.balance(swap.depositAddress, coin)
        if (held < fee) {
            const gasPurpose: Purpose = `late_gather_gas:${late.id}`
            const topUp = await ctx.sender.live(swap.id, gasPurpose)
            if (topUp && topUp.status !== 'confirmed') {
                await ctx.sender.track(adapter, topUp, MINED)
                return { kind: 'waiting' }
            }
            if (topUp && landedTopUpCovers(topUp, fee)) {
                await ctx.sender.track(adapter, topUp, MINED)
                return { kind: 'waiting' }
            }
            if (topUp) {
                // One top-up per late deposit (the sender keeps one live transaction per purpose): fees rose past twice the estimate.
                if (!ctx.secondLook.agrees(`late-gas-short:${late.id}`)) return { kind: 'waiting' }
                ctx.log.error({ swap: swap.id, lateDeposit: late.id }, 'the gas sent for a late deposit no longer covers its gather')
                return { kind: 'held', reason: 'network fees rose past the gas sent to the deposit address' }
            }
            const sent = await ctx.sender.send(adapter, swap.id, gasPurpose, { from: { kind: 'vault' }, to: swap.depositAddress, asset: coin, amount: fee * 2n - held })
            if (sent.kind === 'rejected') ctx.log.error({ swap: swap.id, reason: sent.reason }, 'the vault cannot pay the gas of a late deposit\'s gather; will retry')
            return { kind: 'waiting' }
        }
    }
    const balance = await adapter.balance(swap.depositAddress, asset)
    if (balance === 0n) {
        // A node behind the one that showed the deposit reads 0 too: only a second look that agrees holds it.
        if (!ctx.secondLook.agrees(`late-nothing-to-gather:${late.id}`)) return { kind: 'waiting' }
        return { kind: 'held', reason: 'the deposit address holds nothing to gather' }
    }
    await ctx.sender.send(adapter, swap.id, purpose, { from, to: vault, asset, amount: balance < late.amount ? balance : late.amount })
    return { kind: 'waiting' }
}

/** Pays the gathered amount from the vault to the refund address; done once that transfer is final by the chain's rule. */
async function refundLate(ctx: EngineContext, adapter: ChainAdapter, late: LateDeposit, asset: Asset): Promise<{ kind: 'done'; hash: string; amount: bigint } | { kind: 'waiting' }> {
    const purpose: Purpose = `late_refund:${late.id}`
    let tx = await ctx.sender.live(late.swapId, purpose)
    if (!tx) {
        const note = (error: string) => ctx.pool.query('UPDATE bridge_late_deposit SET error = $2, updated_at = now() WHERE id = $1', [late.id, error])
        try {
            const result = await ctx.sender.send(adapter, late.swapId, purpose, { from: { kind: 'vault' }, to: late.refundAddress!, asset, amount: late.gatheredAmount! })
            if (result.kind === 'rejected') {
                await note(`the ${late.chain} node refused the refund: ${result.reason.slice(0, 200)}`)
                return { kind: 'waiting' }
            }
            tx = result.tx
        } catch (err) {
            if (err instanceof InsufficientForFeeError || err instanceof UnpayableTransferError) {
                await note(`the refund cannot be sent now: ${err.message}`)
                return { kind: 'waiting' }
            }
            throw err
        }
    }
    const state = await ctx.sender.track(adapter, tx, ctx.config.networks[late.chain]!.finality)
    if (state.kind === 'confirmed' && state.final) return { kind: 'done', hash: tx.hash, amount: tx.amount }
    if (state.kind === 'reverted' && state.final) {
        // Reverted in a final block: it moved nothing and never will, so the next attempt may sign anew.
        await ctx.pool.query(`UPDATE bridge_tx SET status = 'dead', error = $2, updated_at = now() WHERE id = $1`, [tx.id, `reverted in block ${state.blockNumber}`])
    }
    return { kind: 'waiting' }
}
