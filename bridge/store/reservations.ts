import { Db } from '../db'

/**
 * What the vaults have promised, the one query over two tables (bridge_swap and bridge_tx) that
 * every reader of it shares: the vault lock (engine/vault.ts), the pool leg's stock check
 * (engine/pool.ts) and the reserved gauge (metrics.ts), so they cannot count differently.
 */

/** What one vault asset is promised to. */
export interface Reservation {
    chain: string
    asset: string
    /** Locked payouts of swaps in vault_locked or payout_processing, and how many swaps they are. */
    payouts: bigint
    payoutSwaps: number
    /** What the pool trades in flight (signed or broadcast) will spend. */
    trades: bigint
    tradeRows: number
}

/**
 * The reservations per chain and asset, of one chain or all (`chain` null); `except` leaves one
 * swap's own out (its payout and its trades). A fee-bump replacement (common/sending) is a second
 * live row at its original's nonce until one of them lands, and only one can: each (sender,
 * nonce) counts once. The replacement copies its original's amount; should two rows at a nonce
 * ever differ, the larger is counted, so the reservation errs on the strict side. A row without a
 * nonce (not an account chain) is its own.
 */
export async function vaultReservations(db: Db, chain: string | null, except: string | null): Promise<Reservation[]> {
    // One chain is a plain equality, which the partial indexes of both tables answer; all chains, no filter.
    const swapChain = chain === null ? '' : 'AND target_chain = $2'
    const txChain = chain === null ? '' : 'AND chain = $2'
    const { rows } = await db.query(
        `SELECT chain, asset, SUM(payouts)::text AS payouts, SUM(payout_swaps)::int AS payout_swaps, SUM(trades)::text AS trades, SUM(trade_rows)::int AS trade_rows FROM (
             SELECT target_chain AS chain, target_token AS asset, COALESCE(locked_target_amount, 0) AS payouts, 1 AS payout_swaps, 0 AS trades, 0 AS trade_rows
             FROM bridge_swap WHERE status IN ('vault_locked', 'payout_processing') AND id IS DISTINCT FROM $1::uuid ${swapChain}
             UNION ALL
             SELECT chain, asset, 0, 0, amount, 1 FROM (
                 SELECT DISTINCT ON (chain, from_address, nonce, CASE WHEN nonce IS NULL THEN id END) chain, asset, amount FROM bridge_tx
                 WHERE purpose = 'pool_swap' AND status IN ('signed', 'broadcast') AND swap_id IS DISTINCT FROM $1::uuid ${txChain}
                 ORDER BY chain, from_address, nonce, CASE WHEN nonce IS NULL THEN id END, amount DESC
             ) live
         ) promised GROUP BY chain, asset`,
        chain === null ? [except] : [except, chain]
    )
    return rows.map((r) => ({
        chain: r.chain, asset: r.asset, payouts: BigInt(r.payouts), payoutSwaps: r.payout_swaps, trades: BigInt(r.trades), tradeRows: r.trade_rows,
    }))
}

/** What the pool trades in flight on a chain will spend, by asset; `except` leaves one swap's own out. */
export async function tradesInFlight(db: Db, chain: string, except: string | null): Promise<Map<string, bigint>> {
    const reservations = await vaultReservations(db, chain, except)
    return new Map(reservations.filter((r) => r.tradeRows > 0).map((r) => [r.asset, r.trades]))
}
