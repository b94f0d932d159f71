import { Pool } from 'pg'
import { Counter, Gauge } from 'prom-client'
import { Recent } from '../common/recent'
import { durationHistogram, registry } from '../common/service/metrics'
import { formatUnits } from './amounts'
import { STATUSES } from './engine/statuses'
import { Reservation, vaultReservations } from './store/reservations'
import { swapCountsByStatus } from './store/swaps'
import { VaultHolds } from './store/vault-holds'

/** The bridge's metrics, beside the kit's on GET /metrics: docs/operations.md#bridge */

const monitorCycle = durationHistogram('bridge_monitor_cycle_duration_seconds',
    'One deposit-monitor cycle of a chain: its head read, deposit scan and late-deposit watch', ['chain'])

const webhookDeliveries = new Counter({
    name: 'bridge_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: `delivered`, `failed` (retried later) or `given_up` (no retry left)',
    labelNames: ['outcome'] as const,
    registers: [registry],
})

/** Times one chain's monitor cycle: call the result when it ends. */
export function startMonitorCycle(chain: string): () => void {
    const end = monitorCycle.startTimer({ chain })
    return () => void end()
}

export function webhookAttempted(outcome: 'delivered' | 'failed' | 'given_up'): void {
    webhookDeliveries.inc({ outcome })
}

/**
 * How long a figure read from the database serves scrapes: /metrics is on the public port, and
 * counting every swap by status is a scan, so callers can ask as often as they like and the
 * database is asked at most this often.
 */
const DATABASE_FIGURES_MS = 10_000
/** The same for vault balances, which are reads of every network's node. */
const VAULT_BALANCES_MS = 30_000

/** A read that settles to undefined when it fails, so one scrape never fails on it. */
const orNothing = <T>(value: Promise<T>): Promise<T | undefined> => value.catch(() => undefined)

/**
 * The gauges read from the database (every replica reports the same shared figures), at most once
 * per DATABASE_FIGURES_MS. While the database does not answer, swaps by status are left out and
 * the queue's figures are NaN; the rest of the scrape still answers.
 */
export function observeBridgeDatabase(pool: Pool): void {
    const swaps = new Recent<{ status: string; count: string }[]>(DATABASE_FIGURES_MS)
    const readSwaps = () => orNothing(swaps.get(() => swapCountsByStatus(pool)))
    new Gauge({
        name: 'bridge_swaps',
        help: 'Swaps by status',
        labelNames: ['status'] as const,
        registers: [registry],
        async collect() {
            this.reset()
            const rows = await readSwaps()
            if (!rows) return
            const counts = new Map(rows.map((r) => [r.status, Number(r.count)]))
            for (const status of new Set([...STATUSES, ...counts.keys()])) this.set({ status }, counts.get(status) ?? 0)
        },
    })
    /** One query for the two queue gauges. */
    const queue = new Recent<{ depth: number; oldestSeconds: number | null }>(DATABASE_FIGURES_MS)
    const readQueue = () => orNothing(queue.get(() => pool.query<{ depth: string; oldest_seconds: number | null }>(
        `SELECT count(*) AS depth, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest_seconds FROM bridge_webhook_delivery
         WHERE state = 'pending' AND subscription_id = ANY (ARRAY(SELECT id FROM bridge_webhook_subscription WHERE active))`
    ).then(({ rows: [r] }) => ({ depth: Number(r.depth), oldestSeconds: r.oldest_seconds }))))
    new Gauge({
        name: 'bridge_webhook_queue_depth',
        help: 'Webhook deliveries waiting to be delivered (to active subscriptions)',
        registers: [registry],
        async collect() {
            this.set((await readQueue())?.depth ?? NaN)
        },
    })
    new Gauge({
        name: 'bridge_webhook_oldest_pending_seconds',
        help: 'Age of the oldest webhook delivery still waiting (0 when none waits)',
        registers: [registry],
        async collect() {
            const queue = await readQueue()
            this.set(queue ? queue.oldestSeconds ?? 0 : NaN)
        },
    })
}

/**
 * Vault holds open per chain (1 while the ledger guard, engine/ledger-guard.ts, holds the chain's
 * vault; 0 otherwise), read from the database at most once per DATABASE_FIGURES_MS: what an alert
 * watches, as a held vault signs nothing until an operator acts. Left out while the database does
 * not answer.
 */
export function observeVaultHolds(pool: Pool, chains: string[]): void {
    const holds = new VaultHolds(pool)
    const open = new Recent<string[]>(DATABASE_FIGURES_MS)
    new Gauge({
        name: 'bridge_vault_held',
        help: 'Whether the chain\'s vault is held for an operator by the ledger guard (it sent transactions the ledger does not know): 1 held, 0 not',
        labelNames: ['chain'] as const,
        registers: [registry],
        async collect() {
            this.reset()
            const held = await orNothing(open.get(async () => (await holds.allOpen()).map((h) => h.chain)))
            if (!held) return
            for (const chain of new Set([...chains, ...held])) this.set({ chain }, held.includes(chain) ? 1 : 0)
        },
    })
}

/**
 * Each vault's balance and the part of it already promised, per chain and asset, in whole units of
 * the asset (a gauge is a float: base units of an 18-decimal token would lose their low digits
 * anyway). Reserved is what checkReserves (engine/vault.ts) counts against a new payout: locked
 * payouts not yet completed and pool trades in flight. Balances are node reads, at most every
 * VAULT_BALANCES_MS; a network whose node does not answer is left out of that scrape.
 */
export interface VaultAsset {
    chain: string
    symbol: string
    decimals: number
    /** The vault's balance of it, in base units (a node read). */
    balance(): Promise<bigint>
}

export function observeBridgeVaults(pool: Pool, assets: VaultAsset[]): void {
    const decimalsOf = new Map(assets.map((a) => [`${a.chain}:${a.symbol}`, a.decimals]))
    const whole = (chain: string, symbol: string, amount: bigint) => Number(formatUnits(amount, decimalsOf.get(`${chain}:${symbol}`) ?? 0))

    type Balance = { chain: string; asset: string; amount: bigint }
    const balances = new Recent<Balance[]>(VAULT_BALANCES_MS)
    const readBalances = () => balances.get(async () => {
        const read = await Promise.all(assets.map(async (a): Promise<Balance | undefined> => {
            const amount = await orNothing(a.balance())
            return amount === undefined ? undefined : { chain: a.chain, asset: a.symbol, amount }
        }))
        return read.filter((r): r is Balance => r !== undefined)
    })
    new Gauge({
        name: 'bridge_vault_balance',
        help: "The vault's balance by chain and asset, in whole units of the asset",
        labelNames: ['chain', 'asset'] as const,
        registers: [registry],
        async collect() {
            this.reset()
            for (const r of (await orNothing(readBalances())) ?? []) this.set({ chain: r.chain, asset: r.asset }, whole(r.chain, r.asset, r.amount))
        },
    })

    const reserved = new Recent<Reservation[]>(DATABASE_FIGURES_MS)
    const readReserved = () => orNothing(reserved.get(() => vaultReservations(pool, null, null)))
    new Gauge({
        name: 'bridge_vault_reserved',
        help: "The part of the vault's balance promised to payouts and pool trades in flight, by chain and asset, in whole units of the asset",
        labelNames: ['chain', 'asset'] as const,
        registers: [registry],
        async collect() {
            this.reset()
            const rows = await readReserved()
            if (!rows) return
            for (const a of assets) {
                const row = rows.find((r) => r.chain === a.chain && r.asset === a.symbol)
                this.set({ chain: a.chain, asset: a.symbol }, whole(a.chain, a.symbol, row ? row.payouts + row.trades : 0n))
            }
        },
    })
}
