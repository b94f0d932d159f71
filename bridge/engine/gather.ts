import { InsufficientForFeeError, UnpayableTransferError } from '../chains/adapter'
import { Swap } from '../store/swaps'
import { TxRecord } from '../store/transactions'
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
 * twice (see sender.ts).
 */

export type GatherProgress =
    /** blocked: cannot go on until something changes (the vault cannot pay the gas top-up); the reason. */
    | { state: 'waiting'; tx?: TxRecord; blocked?: string }
    | { state: 'done'; tx: TxRecord }
    | { state: 'failed'; reason: string }

export async function advanceGather(ctx: EngineContext, swap: Swap): Promise<GatherProgress> {
    const adapter = ctx.adapter(swap.sourceChain)
    const asset = ctx.asset(swap.sourceChain, swap.sourceToken)
    const deposit = { kind: 'deposit' as const, index: swap.depositIndex }
    const vault = await adapter.deriveAddress({ kind: 'vault' })

    const live = await ctx.sender.live(swap.id, 'gather')
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
            const result = await ctx.sender.send(adapter, swap.id, 'gather', {
                from: deposit, to: vault, asset, amount: 'all', only: { amount: swap.depositAmount!, txHash: swap.depositTxHash },
            })
            return { state: 'waiting', tx: result.tx }
        } catch (err) {
            if (err instanceof InsufficientForFeeError) return { state: 'failed', reason: 'the deposit does not cover the network fee of moving it to the vault' }
            if (err instanceof UnpayableTransferError) return { state: 'failed', reason: `the deposit cannot be moved to the vault: ${err.message}` }
            throw err
        }
    }

    const coin = ctx.coin(swap.sourceChain)
    const fee = await adapter.transferFee(asset, swap.depositAddress, vault)
    if (fee > 0n) {
        const held = await adapter.balance(swap.depositAddress, coin)
        if (held < fee) {
            const topUp = await ctx.sender.live(swap.id, 'gather_gas')
            if (topUp && (topUp.status === 'signed' || topUp.status === 'broadcast')) {
                await ctx.sender.track(adapter, topUp, MINED)
                return { state: 'waiting', tx: topUp }
            }
            if (topUp && landedTopUpCovers(topUp, fee)) {
                await ctx.sender.track(adapter, topUp, MINED)
                return { state: 'waiting', tx: topUp }
            }
            const result = await ctx.sender.send(adapter, swap.id, 'gather_gas', { from: { kind: 'vault' }, to: swap.depositAddress, asset: coin, amount: fee * 2n - held })
            if (result.kind === 'rejected') {
                ctx.log.error({ swap: swap.id, chain: swap.sourceChain, reason: result.reason }, 'the vault cannot pay the gas of a gather; will retry')
                return { state: 'waiting', blocked: `the ${swap.sourceChain} vault cannot pay the gas to move the deposit` }
            }
            return { state: 'waiting' }
        }
        // The address holds the gas: a top-up still recorded as signed or broadcast has landed (or
        // was not needed). Follow it once so that its row says so; a top-up left 'signed' (its
        // broadcast answer lost in a crash) would otherwise be rebroadcast with every later send
        // of the vault, and never leave the list of unfinished transactions.
        const topUp = await ctx.sender.live(swap.id, 'gather_gas')
        if (topUp && (topUp.status === 'signed' || topUp.status === 'broadcast')) await ctx.sender.track(adapter, topUp, MINED)
    }
    const balance = await adapter.balance(swap.depositAddress, asset)
    if (balance === 0n) {
        // A node behind the one that showed the deposit reads 0 too: only a second look that agrees fails the swap.
        if (!(await ctx.secondLook.agrees(`nothing-to-gather:${swap.id}`))) return { state: 'waiting' }
        return { state: 'failed', reason: 'the deposit address holds nothing to gather' }
    }
    // The credited amount, not the balance: a later transfer of the token is an extra deposit.
    const amount = balance < swap.depositAmount! ? balance : swap.depositAmount!
    const result = await ctx.sender.send(adapter, swap.id, 'gather', { from: deposit, to: vault, asset, amount })
    return { state: 'waiting', tx: result.tx }
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
