import { formatUnits } from '../amounts'
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

export async function lockVault(ctx: EngineContext, swap: Swap): Promise<VaultLockResult> {
    const adapter = ctx.adapter(swap.targetChain)
    const asset = ctx.asset(swap.targetChain, swap.targetToken)
    const coin = ctx.coin(swap.targetChain)
    const amount = swap.lockedTargetAmount!
    const vault = await adapter.deriveAddress({ kind: 'vault' })
    // One lock per chain: a coin payout and a token payout on the same chain share the coin for gas.
    const release = await ctx.locks.lock(LOCK_VAULT, swap.targetChain)
    try {
        const { rows } = await ctx.pool.query(
            `SELECT target_token, COALESCE(SUM(locked_target_amount), 0)::text AS reserved, COUNT(*)::int AS payouts
             FROM bridge_swap WHERE target_chain = $1 AND status IN ('vault_locked', 'payout_processing') AND id <> $2
             GROUP BY target_token`,
            [swap.targetChain, swap.id]
        )
        const reservedOf = (symbol: string) => BigInt(rows.find((r) => r.target_token === symbol)?.reserved ?? '0')
        const otherPayouts = rows.reduce((n, r) => n + r.payouts, 0)
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
        if (balance - reserved < amount) {
            ctx.log.warn({ swap: swap.id, ...detail, chain: swap.targetChain, token: asset.symbol }, LACKED_RESERVES)
            return { kind: 'failed', reason: LACKED_RESERVES }
        }
        // Gas for this payout and for every other one already reserved on the chain.
        const coinNeeded = fee * BigInt(otherPayouts + 1) + reservedOf(coin.symbol) + (asset.kind === 'coin' ? amount : 0n)
        if (coinBalance < coinNeeded) {
            ctx.log.warn({ swap: swap.id, vault, chain: swap.targetChain, coinBalance: coinBalance.toString(), coinNeeded: coinNeeded.toString() }, LACKED_GAS)
            return { kind: 'failed', reason: LACKED_GAS }
        }
        const locked = await transition(ctx.pool, swap.id, 'vault_locking', 'vault_locked', { txHash: swap.gatherTxHash, data: detail })
        return locked ? { kind: 'locked', swap: locked } : { kind: 'moved' }
    } finally {
        await release()
    }
}
