import { formatUnits } from '../amounts'
import { Asset } from '../config'
import { ChainName } from '../registry'
import { LOCK_VAULT } from '../db'
import { EngineContext } from './context'
import { Swap, transition } from './lifecycle'

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
 * What a chain's vault has promised: the locked payouts of swaps in vault_locked or
 * payout_processing, and the pool trades in flight that spend its stock (pool.ts), by asset;
 * `except` leaves one swap's own out.
 */
async function reservations(ctx: EngineContext, chain: ChainName, except: string | null): Promise<{ reservedOf: (symbol: string) => bigint; payouts: number }> {
    const { rows } = await ctx.pool.query(
        `SELECT target_token, COALESCE(SUM(locked_target_amount), 0)::text AS reserved, COUNT(*)::int AS payouts
         FROM bridge_swap WHERE target_chain = $1 AND status IN ('vault_locked', 'payout_processing') AND id IS DISTINCT FROM $2
         GROUP BY target_token`,
        [chain, except]
    )
    const trades = await tradesInFlight(ctx, chain, except)
    return {
        reservedOf: (symbol) => BigInt(rows.find((r) => r.target_token === symbol)?.reserved ?? '0') + (trades.get(symbol) ?? 0n),
        payouts: rows.reduce((n, r) => n + r.payouts, 0),
    }
}

/**
 * What the pool trades in flight on a chain will spend, by asset; `except` leaves one swap's own
 * out. A fee-bump replacement (common/sending) is a second live row at its original's nonce until
 * one of them lands, and only one can: each (sender, nonce) counts once. The replacement copies its
 * original's amount; should two rows at a nonce ever differ, the larger is counted, so the
 * reservation errs on the strict side. A row without a nonce (not an account chain) is its own.
 */
export async function tradesInFlight(ctx: EngineContext, chain: ChainName, except: string | null): Promise<Map<string, bigint>> {
    const { rows } = await ctx.pool.query(
        `SELECT asset, SUM(amount)::text AS amount FROM (
             SELECT DISTINCT ON (from_address, nonce, CASE WHEN nonce IS NULL THEN id END) asset, amount FROM bridge_tx
             WHERE chain = $1 AND purpose = 'pool_swap' AND status IN ('signed', 'broadcast') AND swap_id IS DISTINCT FROM $2
             ORDER BY from_address, nonce, CASE WHEN nonce IS NULL THEN id END, amount DESC
         ) live GROUP BY asset`,
        [chain, except]
    )
    return new Map(rows.map((r) => [r.asset, BigInt(r.amount)]))
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
        if (check.failure) return ctx.secondLook.agrees(key) ? { kind: 'failed', reason: check.failure } : { kind: 'moved' }
        ctx.secondLook.forget(key)
        const locked = await transition(ctx.pool, swap.id, 'vault_locking', 'vault_locked', { txHash: swap.gatherTxHash, data: { ...check.detail, ...eventData } })
        return locked ? { kind: 'locked', swap: locked } : { kind: 'moved' }
    } finally {
        await release()
    }
}
