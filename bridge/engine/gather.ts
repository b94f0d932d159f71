import { InsufficientForFeeError, UnpayableTransferError } from '../chains/adapter'
import { Asset } from '../config'
import { ChainName } from '../registry'
import { Swap } from '../store/swaps'
import { Purpose, TxRecord } from '../store/transactions'
import { EngineContext } from './context'
import { MINED } from './sender'

/**
 * Gathering: moving a deposit from its single-use address into the source chain's vault.
 * Only the credited deposit moves: anything else that reached the address (a second transfer, before
 * or after this gather) is an extra deposit, left there and refunded on its own by late.ts once the
 * swap ended, so the vault never keeps what the swap does not credit
 * (docs/bridge/lifecycle.md#extra-and-late-deposits).
 * A coin deposit is swept, minus the network fee (BITCOIN: its own outputs). A token needs the
 * deposit address to pay gas: on a chain with fees the vault first sends it enough coin (a top-up,
 * twice the current estimate, so a rising base fee does not strand it), then the address sends the
 * deposited amount.
 * Called again and again until it reports done; each call does at most one step and never signs
 * twice (see sender.ts). A swap's deposit (advanceGather) and a late deposit (late.ts) go the same
 * way; each words its own outcomes.
 */

/** One deposit to gather: where it is, what of it is credited, and the names its transactions are kept under. */
export interface GatherOrder {
    /** The swap the transactions are stored under (bridge_tx.swap_id). */
    swapId: string
    chain: ChainName
    asset: Asset
    /** The deposit address's key index (its signer), and the address. */
    depositIndex: number
    depositAddress: string
    /** The credited amount and the transaction that brought it: only these move, never more. */
    amount: bigint
    txHash: string | null
    /** The purposes of the gather and of its gas top-up. */
    purpose: Purpose
    gasPurpose: Purpose
    /** The second look's key: an address read empty fails the gather only when a second look agrees. */
    emptyKey: string
    /**
     * 'several': a landed top-up that fees rose past is followed by another (the swap's gather_gas,
     * which the sender lets have several); 'one': the step reports 'gas-spent' instead (a late
     * deposit's top-up purpose keeps one live transaction).
     */
    topUps: 'several' | 'one'
}

export type GatherStep =
    | { state: 'waiting'; tx?: TxRecord }
    | { state: 'done'; tx: TxRecord }
    /** The gather reverted, or the address holds nothing to gather (a second look agreeing). */
    | { state: 'failed'; reason: string }
    /** The coin deposit cannot be swept: it does not cover the fee, or the network's rules forbid the transfer. */
    | { state: 'unmovable'; error: InsufficientForFeeError | UnpayableTransferError }
    /** The node refused the vault's gas top-up (its reason); nothing was sent. */
    | { state: 'gas-refused'; reason: string }
    /** topUps 'one': the top-up landed, and fees rose past it. */
    | { state: 'gas-spent' }

/** One step of a deposit's gather. */
export async function gatherDeposit(ctx: EngineContext, order: GatherOrder): Promise<GatherStep> {
    const adapter = ctx.adapter(order.chain)
    const { asset, depositAddress } = order
    const deposit = { kind: 'deposit' as const, index: order.depositIndex }
    const vault = await adapter.deriveAddress({ kind: 'vault' })

    const live = await ctx.sender.live(order.swapId, order.purpose)
    if (live) {
        if (live.status === 'confirmed') return { state: 'done', tx: live }
        // Mined is enough to move on (the vault now holds the funds); the payout is what waits for finality.
        const state = await ctx.sender.track(adapter, live, MINED)
        if (state.kind === 'confirmed') return { state: 'done', tx: await ctx.sender.byId(live.id) }
        if (state.kind === 'reverted') return { state: 'failed', reason: `the gather transaction ${live.hash} reverted` }
        return { state: 'waiting', tx: live }
    }

    if (asset.kind === 'coin') {
        try {
            // Its own amount (BITCOIN: its own outputs) only: a deposit arriving meanwhile is an extra one.
            const result = await ctx.sender.send(adapter, order.swapId, order.purpose, {
                from: deposit, to: vault, asset, amount: 'all', only: { amount: order.amount, txHash: order.txHash },
            })
            return { state: 'waiting', tx: result.tx }
        } catch (err) {
            if (err instanceof InsufficientForFeeError || err instanceof UnpayableTransferError) return { state: 'unmovable', error: err }
            throw err
        }
    }

    const coin = ctx.coin(order.chain)
    const fee = await adapter.transferFee(asset, depositAddress, vault)
    if (fee > 0n) {
        const held = await adapter.balance(depositAddress, coin)
        if (held < fee) {
            const topUp = await ctx.sender.live(order.swapId, order.gasPurpose)
            if (topUp && (topUp.status === 'signed' || topUp.status === 'broadcast')) {
                await ctx.sender.track(adapter, topUp, MINED)
                return { state: 'waiting', tx: topUp }
            }
            if (topUp && landedTopUpCovers(topUp, fee)) {
                await ctx.sender.track(adapter, topUp, MINED)
                return { state: 'waiting', tx: topUp }
            }
            if (topUp && order.topUps === 'one') return { state: 'gas-spent' }
            const result = await ctx.sender.send(adapter, order.swapId, order.gasPurpose, { from: { kind: 'vault' }, to: depositAddress, asset: coin, amount: fee * 2n - held })
            if (result.kind === 'rejected') return { state: 'gas-refused', reason: result.reason }
            return { state: 'waiting' }
        }
        // The address holds the gas: a top-up still recorded as signed or broadcast has landed (or
        // was not needed). Follow it once so that its row says so; a top-up left 'signed' (its
        // broadcast answer lost in a crash) would otherwise be rebroadcast with every later send
        // of the vault, and never leave the list of unfinished transactions.
        const topUp = await ctx.sender.live(order.swapId, order.gasPurpose)
        if (topUp && (topUp.status === 'signed' || topUp.status === 'broadcast')) await ctx.sender.track(adapter, topUp, MINED)
    }
    const balance = await adapter.balance(depositAddress, asset)
    if (balance === 0n) {
        // A node behind the one that showed the deposit reads 0 too: only a second look that agrees fails the gather.
        if (!(await ctx.secondLook.agrees(order.emptyKey))) return { state: 'waiting' }
        return { state: 'failed', reason: 'the deposit address holds nothing to gather' }
    }
    // The credited amount, not the balance: a later transfer of the token is an extra deposit.
    const amount = balance < order.amount ? balance : order.amount
    const result = await ctx.sender.send(adapter, order.swapId, order.purpose, { from: deposit, to: vault, asset, amount })
    return { state: 'waiting', tx: result.tx }
}

export type GatherProgress =
    /** blocked: cannot go on until something changes (the vault cannot pay the gas top-up); the reason. */
    | { state: 'waiting'; tx?: TxRecord; blocked?: string }
    | { state: 'done'; tx: TxRecord }
    | { state: 'failed'; reason: string }

/** One step of the gather of a swap's credited deposit, its outcomes worded for the swap. */
export async function advanceGather(ctx: EngineContext, swap: Swap): Promise<GatherProgress> {
    const step = await gatherDeposit(ctx, {
        swapId: swap.id, chain: swap.sourceChain, asset: ctx.asset(swap.sourceChain, swap.sourceToken),
        depositIndex: swap.depositIndex, depositAddress: swap.depositAddress, amount: swap.depositAmount!, txHash: swap.depositTxHash,
        purpose: 'gather', gasPurpose: 'gather_gas', emptyKey: `nothing-to-gather:${swap.id}`, topUps: 'several',
    })
    switch (step.state) {
        case 'unmovable':
            return {
                state: 'failed',
                reason: step.error instanceof InsufficientForFeeError
                    ? 'the deposit does not cover the network fee of moving it to the vault'
                    : `the deposit cannot be moved to the vault: ${step.error.message}`,
            }
        case 'gas-refused':
            ctx.log.error({ swap: swap.id, chain: swap.sourceChain, reason: step.reason }, 'the vault cannot pay the gas of a gather; will retry')
            return { state: 'waiting', blocked: `the ${swap.sourceChain} vault cannot pay the gas to move the deposit` }
        case 'gas-spent':
            // Not reached: topUps 'several' sends another top-up instead.
            return { state: 'waiting' }
        default:
            return step
    }
}

/**
 * A landed top-up left the deposit address at least its own amount (nothing but our gather spends
 * from it), so while that covers the fee a lower balance is a read from a node behind the one that
 * saw it land: follow the top-up (a reorg that took it makes it broadcast again) and wait, rather
 * than pay the gas twice. Only fees risen past it call for another.
 */
export function landedTopUpCovers(topUp: { status: string; amount: bigint }, fee: bigint): boolean {
    return topUp.status === 'confirmed' && topUp.amount >= fee
}
