import type { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setLiveCaching } from '../context'
import { isoTimestamp, percentage } from '../format'
import { activityTotals, blockGasSince, dailyTransactions, gasPricePercentiles } from '../queries/stats'
import { GAS_ORACLE_TTL_MS, GasOracle } from '../caches'
import { chainOperation, GasPriceTier, MarketChart, Stats, TransactionsChart } from '../schemas'

const TAG = 'stats'

const CENTI_GWEI = 10_000_000n
const ORACLE_BLOCKS = 200
const CHART_DAYS = 30

/**
 * Gas price tiers: the 35th, 60th and 90th percentile of the effective gas price paid over the
 * last 200 blocks (Blockscout's oracle uses the same kind of percentiles). With a zero-fee chain
 * every tier is 0.
 */
function gasOracle(ctx: ChainContext): Promise<GasOracle> {
    return ctx.caches.gasOracle.get(async () => {
        const head = await ctx.head.get()
        const from = Math.max(head.number - ORACLE_BLOCKS + 1, 0)
        const [prices, b] = await Promise.all([gasPricePercentiles(ctx.db, from), blockGasSince(ctx.db, from)])
        const p = prices ?? ['0', '0', '0']
        return {
            tiers: { slow: BigInt(p[0]), average: BigInt(p[1]), fast: BigInt(p[2]) },
            baseFee: BigInt(b.base_fee ?? 0),
            updatedAt: new Date(),
            utilization: percentage(BigInt(b.used), BigInt(b.lim)) ?? 0,
        }
    })
}

/** Blockscout's gwei figures: rounded up to 2 decimals (Float.ceil(2)). */
const gwei = (wei: bigint) => Number((wei + CENTI_GWEI - 1n) / CENTI_GWEI) / 100

export function statsRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    /**
     * Gas price tiers are always Blockscout's tier objects. Blockscout still flattens them to bare
     * gwei numbers for a client that does not send `updated-gas-oracle: true`, but the frontend
     * only reads `gas_prices.*.price`: a request that lost the header on the way (a proxy, a
     * server-side prefetch) would show no gas price at all.
     */
    router.get('/stats', chainOperation(TAG, {
        operationId: 'getStats',
        summary: 'Chain totals and gas price tiers',
    }, 'The figures', Stats), async (_req, res) => {
        const [head, oracle, t] = await Promise.all([ctx.head.get(), gasOracle(ctx), activityTotals(ctx.db)])
        const tier = (wei: bigint): z.input<typeof GasPriceTier> => {
            const priority = wei > oracle.baseFee ? wei - oracle.baseFee : 0n
            return {
                price: gwei(wei),
                time: head.averageBlockTimeMs || null,
                fiat_price: null,
                base_fee: gwei(oracle.baseFee),
                priority_fee: gwei(priority),
                priority_fee_wei: String(priority),
                wei: String(wei),
            }
        }
        setLiveCaching(res)
        res.json({
            total_blocks: String(head.blocks),
            total_addresses: String(head.addresses),
            total_transactions: String(head.transactions),
            total_gas_used: String(t.gas_used),
            transactions_today: String(t.tx_yesterday),
            gas_used_today: String(t.gas_yesterday),
            average_block_time: head.averageBlockTimeMs,
            coin_price: null,
            secondary_coin_price: null,
            coin_price_change_percentage: null,
            coin_image: null,
            secondary_coin_image: null,
            market_cap: '0',
            tvl: null,
            gas_prices: { slow: tier(oracle.tiers.slow), average: tier(oracle.tiers.average), fast: tier(oracle.tiers.fast) },
            gas_prices_update_in: Math.max(GAS_ORACLE_TTL_MS - (Date.now() - oracle.updatedAt.getTime()), 0),
            gas_price_updated_at: isoTimestamp(oracle.updatedAt),
            static_gas_price: null,
            network_utilization_percentage: oracle.utilization,
        } satisfies z.input<typeof Stats>)
    })

    /** Transactions per UTC day, newest first, every one of the last 30 days present. */
    router.get('/stats/charts/transactions', chainOperation(TAG, {
        operationId: 'getTransactionsChart',
        summary: 'Transactions per UTC day of the last 30 days, newest first',
    }, 'The chart', TransactionsChart), async (_req, res) => {
        const rows = await dailyTransactions(ctx.db, CHART_DAYS)
        setLiveCaching(res)
        res.json({ chart_data: rows } satisfies z.input<typeof TransactionsChart>)
    })

    // No price feed: the market chart is empty rather than missing.
    router.get('/stats/charts/market', chainOperation(TAG, {
        operationId: 'getMarketChart',
        summary: 'The market chart (no price feed: always empty)', reads: false,
    }, 'The chart', MarketChart), (_req, res) => {
        res.json({ chart_data: [], available_supply: '0' } satisfies z.input<typeof MarketChart>)
    })
}
