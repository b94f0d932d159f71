import { formatUnits } from '../amounts'
import { Asset } from '../config'
import { ChainName } from '../registry'
import { LOCK_VAULT } from '../db'
import { vaultReservations } from '../store/reservations'
import { EngineContext } from './context'
import { Swap } from '../store/swaps'
import { transition } from './lifecycle'

/**
 * Vault locking: before anything is signed on the target chain, the payout amount is reserved
 * against the target vault's balance. Reservations are the locked amounts of the swaps already in
 * vault_locked or payout_processing for the same asset; the check and the move to vault_locked
 * happen under one advisory lock per (chain, token), so two swaps can never both count on the same
 * funds. A payout still counted after it landed (until its swap is marked completed) only makes
 * the check stricter for that moment, never looser.
 */

export const LACKED_RESERVES = 'payout wallet lacked reserves on the target chain'
export const LACKED_GAS = 'payout wallet lacked gas on the target chain'

export type VaultLockResult = { kind: 'locked'; swap: Swap } | { kind: 'failed'; reason: string } | { kind: 'moved' }

export interface ReserveCheck {
    /** Why the target vault cannot pay, when it cannot. */
    failure?: string
    detail: Record<string, string>
}

/**
 * Whether the target vault can pay this swap's payout next to the ones already reserved.
 * `credit` is what will arrive in the payout asset before the payout (a pool trade on the
 * target chain paying that asset). The caller holds the target chain's vault lock when the
 * answer is acted on.
 */
export async function checkReserves(ctx: EngineContext, swap: Swap, credit = 0n): Promise<ReserveCheck> {
    const adapter = ctx.adapter(swap.targetChain)
    const asset = ctx.asset(swap.targetChain, swap.targetToken)
    const coin = ctx.coin(swap.targetChain)
    const amount = swap.lockedTargetAmount!
    const vault = await adapter.deriveAddress({ kind: 'vault' })
    const { reservedOf, payouts: otherPayouts } = await reservations(ctx, swap.targetChain, swap.id)
    const [balance, coinBalance, fee] = await Promise.all([
        adapter.balance(vault, asset),
        adapter.balance(vault, coin),
        adapter.transferFee(asset, vault, swap.targetWallet),
    ])
    const reserved = reservedOf(asset.symbol)
    const detail = {
        vault,
        balance: formatUnits(balance, asset.decimals),
        reserved: formatUnits(reserved, asset.decimals),
        amount: formatUnits(amount, asset.decimals),
    }
    if (balance + credit - reserved < amount) {
        ctx.log.warn({ swap: swap.id, ...detail, chain: swap.targetChain, token: asset.symbol }, LACKED_RESERVES)
        return { failure: LACKED_RESERVES, detail }
    }
    // Gas for this payout and for every other one already reserved on the chain.
    const coinNeeded = fee * BigInt(otherPayouts + 1) + reservedOf(coin.symbol) + (asset.kind === 'coin' ? amount : 0n)
    const coinCredit = asset.kind === 'coin' ? credit : 0n
    if (coinBalance + coinCredit < coinNeeded) {
        ctx.log.warn({ swap: swap.id, vault, chain: swap.targetChain, coinBalance: coinBalance.toString(), coinNeeded: coinNeeded.toString() }, LACKED_GAS)
        return { failure: LACKED_GAS, detail }
    }
    return { detail }
}

/**
 * What a chain's vault has promised (store/reservations.ts): the locked payouts of swaps in
 * vault_locked or payout_processing, and the pool trades in flight that spend its stock (pool.ts),
 * by asset, and how many swaps' payouts are reserved; `except` leaves one swap's own out.
 */
export async function reservations(ctx: EngineContext, chain: ChainName, except: string | null): Promise<{ reservedOf: (symbol: string) => bigint; payouts: number }> {
    const rows = await vaultReservations(ctx.pool, chain, except)
    return {
        reservedOf: (symbol) => {
            const row = rows.find((r) => r.asset === symbol)
            return row ? row.payouts + row.trades : 0n
        },
        payouts: rows.reduce((n, r) => n + r.payoutSwaps, 0),
    }
}

/**
 * What the vault of `asset`'s chain could pay in it now, beyond what it has promised: for a swap
 * being created, which reserves nothing until its rate is locked (creation is refused above it;
 * the vault lock checks again, under its lock, before anything is signed).
 */
export async function vaultCapacity(ctx: EngineContext, asset: Asset): Promise<{ available: bigint; balance: bigint; reserved: bigint }> {
    const adapter = ctx.adapter(asset.chain)
    const vault = await adapter.deriveAddress({ kind: 'vault' })
    const [{ reservedOf }, balance] = await Promise.all([reservations(ctx, asset.chain, null), adapter.balance(vault, asset)])
    const reserved = reservedOf(asset.symbol)
    return { available: balance > reserved ? balance - reserved : 0n, balance, reserved }
}

export async function lockVault(ctx: EngineContext, swap: Swap, eventData: Record<string, unknown> = {}): Promise<VaultLockResult> {
    // One lock per chain: a coin payout and a token payout on the same chain share the coin for gas.
    const release = await ctx.locks.lock(LOCK_VAULT, swap.targetChain)
    try {
        const check = await checkReserves(ctx, swap)
        // A short vault read off one node may be that node lagging behind a refill: fail only when a second look agrees.
        const key = `vault-short:${swap.id}`
        if (check.failure) return (await ctx.secondLook.agrees(key)) ? { kind: 'failed', reason: check.failure } : { kind: 'moved' }
        await ctx.secondLook.forget(key)
        const locked = await transition(ctx.pool, swap.id, 'vault_locking', 'vault_locked', { txHash: swap.gatherTxHash, data: { ...check.detail, ...eventData } })
        return locked ? { kind: 'locked', swap: locked } : { kind: 'moved' }
    } finally {
        await release()
    }
}
