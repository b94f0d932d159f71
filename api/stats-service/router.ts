import { formatUnits } from 'viem'
import { ApiDoc, DocumentedRouter } from '../../common/service/api-doc'
import { errorHandler } from '../../common/service/error-handler'
import { ourContracts } from '../../common/config'
import { Recent } from '../../common/recent'
import { ChainContext, setLiveCaching } from '../chain/context'
import { jsonResponses } from '../chain/json-response'
import { tokenUnits } from '../chain/queries/tokens'
import { readCors } from '../../common/service/cors'
import { contractCounters } from '../chain/routes/smart-contracts'
import { transactionStats } from '../chain/routes/transactions'
import { linePoints } from './chart'
import { COIN, LineDef, NEW_TXNS_WINDOW, QuoteUnits, sections } from './lines'
import { addDays, today as todayOf } from './periods'
import { counterFigures, tokenCount } from './queries'
import {
    chartNotFound, ContractsPageStats, Counter, Counters, invalidArgument, LineChart, LineCharts, LinePath, LineQuery,
    MainPageStats, StatsError, statsErrors, statsOperation, TransactionsPageStats,
} from './schemas'
import type { z } from 'zod'

type CounterBody = z.input<typeof Counter>

const counter = (id: string, title: string, description: string, value: string, units?: string): CounterBody =>
    ({ id, value, title, ...(units ? { units } : {}), description })

/** Token contracts and our contracts' quote token change rarely: read at most this often. */
const SLOW_FIGURES_MS = 5 * 60_000

/**
 * Blockscout's stats service API (blockscout-rs stats, NEXT_PUBLIC_STATS_API_HOST) on the explorer
 * port under /api/v1: counters, line charts at DAY/WEEK/MONTH/YEAR and the three pages' figures,
 * read from the per-day aggregates the indexer keeps (docs/stats-api.md). Its routes are only
 * these paths: the rest of /api/v1 belongs to other routers of the port.
 */
export function statsServiceRouter(ctx: ChainContext, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api/v1', 'stats service', { errorSchema: StatsError })
    const tokens = new Recent<string>(SLOW_FIGURES_MS)
    const quote = new Recent<QuoteUnits | null>(SLOW_FIGURES_MS)
    const quoteUnits = () => quote.get(async () => {
        const contracts = ourContracts(ctx.env)
        if (!contracts) return null
        const units = await tokenUnits(ctx.db, contracts.stable.toLowerCase())
        // Until the indexer has seen STABLE, its deployment facts stand in (contracts/Stable.sol: 6 decimals), as the DeFi routes do.
        return { symbol: units?.symbol ?? 'STABLE', decimals: units?.decimals ?? 6 }
    })
    const lineSections = async () => sections(await quoteUnits())
    const figures = () => {
        const today = todayOf()
        return counterFigures(ctx.db, today, addDays(today, -1))
    }
    const info = (line: LineDef) => ({
        id: line.id, title: line.title, description: line.description, ...(line.units ? { units: line.units } : {}), resolutions: [...line.resolutions],
    })

    // Only on this API's paths: the rest of /api/v1 (DEX pools, CSV exports) passes through untouched.
    router.express.use(['/counters', '/lines', '/pages'], ctx.reads.pin, readCors, jsonResponses)

    router.get('/counters', statsOperation({
        operationId: 'getStatsCounters',
        summary: 'The stats page\'s counters, in the stats service\'s order',
    }, 'The counters', Counters), async (_req, res) => {
        const [f, tx, contracts, tokenTotal] = await Promise.all([figures(), transactionStats(ctx), contractCounters(ctx), tokens.get(() => tokenCount(ctx.db))])
        setLiveCaching(res)
        res.json({
            counters: [
                averageBlockTime(f.average_block_time),
                counter('lastNewContracts', 'Number of contracts today', 'Number of deployed contracts today (UTC)', f.contracts_today),
                counter('lastNewVerifiedContracts', 'Number of verified contracts today', 'Number of contracts verified today (UTC)', f.verified_today),
                counter('totalAccounts', 'Total accounts', 'Number of EOAs that sent at least 1 transaction', f.accounts),
                totalAddresses(f.addresses),
                totalBlocks(f.blocks),
                counter('totalContracts', 'Total contracts', 'Number of contracts', contracts.smart_contracts),
                counter('totalNativeCoinHolders', `Total ${COIN} holders`, `Number of accounts with ${COIN}`, String(f.coin_holders)),
                counter('totalTokens', 'Total tokens', 'Number of all token contracts', tokenTotal),
                totalTxns(f.transactions),
                counter('totalVerifiedContracts', 'Total verified contracts', 'Number of verified contracts', contracts.verified_smart_contracts),
                ...dayCounters(tx),
            ],
        } satisfies z.input<typeof Counters>)
    })

    router.get('/lines', statsOperation({
        operationId: 'listStatsLines',
        summary: 'The line charts, in sections, with their resolutions',
    }, 'The sections', LineCharts), async (_req, res) => {
        const list = await lineSections()
        setLiveCaching(res)
        res.json({ sections: list.map((s) => ({ id: s.id, title: s.title, charts: s.charts.map(info) })) } satisfies z.input<typeof LineCharts>)
    })

    router.get('/lines/:name', statsOperation({
        operationId: 'getStatsLine',
        summary: 'A line chart\'s points from `from` to `to` at a resolution',
        params: LinePath,
        query: LineQuery,
        example: { params: { name: 'newTxns' }, query: { from: '2026-11-01', to: '2026-11-30', resolution: 'WEEK' } },
    }, 'The points and the chart\'s description', LineChart, {
        400: 'A date that is not YYYY-MM-DD, or an unknown resolution',
        404: 'No such line, or not at that resolution',
    }), async (req, res) => {
        const parsed = LineQuery.safeParse(req.query)
        if (!parsed.success) {
            const issue = parsed.error.issues[0]
            throw invalidArgument(`invalid ${String(issue.path[0] ?? 'query')}: ${issue.message}`)
        }
        const { from, to, resolution } = parsed.data
        const name = String(req.params.name)
        const line = (await lineSections()).flatMap((s) => s.charts).find((c) => c.id === name)
        if (!line) throw chartNotFound(name)
        if (!line.resolutions.includes(resolution)) throw chartNotFound(`${name} with resolution ${resolution}`)
        const chart = await linePoints(ctx.db, line, resolution, from, to)
        setLiveCaching(res)
        res.json({ chart, info: info(line) } satisfies z.input<typeof LineChart>)
    })

    router.get('/pages/main', statsOperation({
        operationId: 'getStatsMainPage',
        summary: 'The home page\'s figures and its 30-day transactions chart',
    }, 'The figures', MainPageStats), async (_req, res) => {
        const today = todayOf()
        const window = newTxnsLine()
        const [f, chart] = await Promise.all([
            figures(),
            linePoints(ctx.db, window, 'DAY', addDays(today, -NEW_TXNS_WINDOW.days), addDays(today, -1)),
        ])
        setLiveCaching(res)
        res.json({
            average_block_time: averageBlockTime(f.average_block_time),
            total_addresses: totalAddresses(f.addresses),
            total_blocks: totalBlocks(f.blocks),
            total_transactions: totalTxns(f.transactions),
            yesterday_transactions: counter('yesterdayTxns', 'Yesterday txns', 'Number of transactions yesterday (0:00 - 23:59 UTC)', f.yesterday_transactions),
            daily_new_transactions: { chart, info: info(window) },
        } satisfies z.input<typeof MainPageStats>)
    })

    router.get('/pages/transactions', statsOperation({
        operationId: 'getStatsTransactionsPage',
        summary: 'The transactions page\'s figures of the last 24 hours',
    }, 'The figures', TransactionsPageStats), async (_req, res) => {
        const [newTxns, fee, averageFee] = dayCounters(await transactionStats(ctx))
        setLiveCaching(res)
        res.json({
            transactions_24h: newTxns,
            transactions_fee_24h: fee,
            average_transactions_fee_24h: averageFee,
        } satisfies z.input<typeof TransactionsPageStats>)
    })

    router.get('/pages/contracts', statsOperation({
        operationId: 'getStatsContractsPage',
        summary: 'The verified contracts page\'s figures',
    }, 'The figures', ContractsPageStats), async (_req, res) => {
        const c = await contractCounters(ctx)
        setLiveCaching(res)
        res.json({
            total_contracts: counter('totalContracts', 'Total contracts', 'Number of contracts', c.smart_contracts),
            new_contracts_24h: counter('newContracts24h', 'Number of contracts (24h)', 'Number of deployed contracts within the last 24 hours', c.new_smart_contracts_24h),
            total_verified_contracts: counter('totalVerifiedContracts', 'Total verified contracts', 'Number of verified contracts', c.verified_smart_contracts),
            new_verified_contracts_24h: counter('newVerifiedContracts24h', 'Number of verified contracts (24h)', 'Number of contracts verified within the last 24 hours', c.new_verified_smart_contracts_24h),
        } satisfies z.input<typeof ContractsPageStats>)
    })

    router.use(errorHandler(statsErrors, ctx.log))
    return router
}

/** The indexer's moving average over about the last 100 blocks, in seconds (exact: milliseconds written as seconds). */
const averageBlockTime = (ms: number) =>
    counter('averageBlockTime', 'Average block time', 'Average time taken in seconds for a block to be included in the blockchain', formatUnits(BigInt(ms), 3), 's')
const totalAddresses = (n: number) => counter('totalAddresses', 'Total addresses', 'Number of addresses that participated in the blockchain', String(n))
const totalBlocks = (n: number) => counter('totalBlocks', 'Total blocks', 'Number of blocks over all time', String(n))
const totalTxns = (n: number) => counter('totalTxns', 'Total txns', 'All transactions including pending, dropped, replaced, failed transactions', String(n))

/** The last 24 hours' transactions, fees and average fee (the chain API's transaction stats, in ETH). */
function dayCounters(tx: { transactions_count_24h: string; transaction_fees_sum_24h: string; transaction_fees_avg_24h: string }): [CounterBody, CounterBody, CounterBody] {
    return [
        counter('newTxns24h', 'Transactions (24h)', 'Number of new transactions within the last 24 hours', tx.transactions_count_24h),
        counter('txnsFee24h', 'Transactions fees (24h)', `Sum of ${COIN} spent on gas fees within the last 24 hours`, formatUnits(BigInt(tx.transaction_fees_sum_24h), 18), COIN),
        counter('averageTxnFee24h', 'Avg. transaction fee (24h)', `Average amount of ${COIN} spent on gas fees per transaction within the last 24 hours`,
            formatUnits(BigInt(tx.transaction_fees_avg_24h), 18), COIN),
    ]
}

/** newTxns under the window's id and words. */
function newTxnsLine(): LineDef {
    const newTxns = sections(null).flatMap((s) => s.charts).find((c) => c.id === 'newTxns')!
    return { ...newTxns, id: NEW_TXNS_WINDOW.id, title: NEW_TXNS_WINDOW.title, description: NEW_TXNS_WINDOW.description, resolutions: ['DAY'] }
}
