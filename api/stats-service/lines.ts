import { formatUnits } from 'viem'
import { NATIVE_CURRENCY } from '../../common/chain'
import { Resolution, RESOLUTIONS } from './periods'

/**
 * The line charts this API serves, with the stats service's ids, titles and descriptions
 * (blockscout-rs stats/config/blockscout_instance/charts.json) and its layout's sections, and what
 * each is read from: a per-day row the indexer keeps (daily_chain_activity, dex_day_data) or the
 * API's count of verifications (verified_contract_day). docs/stats-api.md lists them.
 */

/**
 * The native coin's symbol in the charts' units and titles (the service's template, ETH by default):
 * this chain's coin, as wallets and the alert mails name it.
 */
export const COIN = NATIVE_CURRENCY.symbol

/**
 * How a period's value comes from its days (the stats service's rules):
 * - sum: the days' figures added (new transactions, fees);
 * - cumulative: everything up to the period's end (growth lines);
 * - average: the days' numerators over their denominators, so a WEEK is weighted by its days' counts;
 * - last: the last day's value that is known, carried over days without one (supply, holders).
 */
export type Aggregate = 'sum' | 'cumulative' | 'average' | 'last'

/**
 * Rows (day text YYYY-MM-DD, num, den) of one per-day table: `day` is its primary key, so a range
 * of days is an index range, and the days of a chain are few (one row per day, never per transaction).
 */
export type Source = string

const activity = (num: string, den = 'NULL::numeric'): Source =>
    `SELECT id AS day, ${num}::numeric AS num, ${den}::numeric AS den FROM daily_chain_activity`
const dexDays = (num: string): Source => `SELECT id AS day, ${num}::numeric AS num, NULL::numeric AS den FROM dex_day_data`
/** The indexer's own verifications (of our artifacts) and the API's, kept apart since they are written apart. */
const VERIFIED: Source = `SELECT id AS day, verified_contracts::numeric AS num, NULL::numeric AS den FROM daily_chain_activity
                          UNION ALL SELECT id, count::numeric, NULL::numeric FROM verified_contract_day`

export interface LineDef {
    id: string
    title: string
    description: string
    units?: string
    resolutions: readonly Resolution[]
    source: Source
    /** Where a resolution is not the sum of the days (distinct senders of a week), its own rows. */
    sourceAt?: Partial<Record<Resolution, Source>>
    aggregate: Aggregate
    /** The point's value from the period's num (and den for averages), as the service writes it. */
    format: (num: bigint, den: bigint) => string
}

export interface SectionDef {
    id: string
    title: string
    charts: LineDef[]
}

const count = (num: bigint) => String(num)
const ether = (num: bigint) => formatUnits(num, 18)
const ratio = (num: bigint, den: bigint) => (den === 0n ? 0n : num / den)
const ALL = RESOLUTIONS

/** The DEX section needs the quote token's symbol and decimals (STABLE's token row). */
export interface QuoteUnits {
    symbol: string
    decimals: number
}

/** The sections in the stats service's layout order (its sections without a chart here are left out). */
export function sections(quote: QuoteUnits | null): SectionDef[] {
    const list: SectionDef[] = [
        {
            id: 'accounts', title: 'Accounts', charts: [
                {
                    id: 'accountsGrowth', title: 'Number of accounts', description: 'Cumulative account growth over time',
                    resolutions: ALL, source: activity('new_accounts'), aggregate: 'cumulative', format: count,
                },
                // The service offers no MONTH or YEAR here: distinct senders do not add up across weeks.
                {
                    id: 'activeAccounts', title: 'Active accounts', description: 'Active accounts number per period',
                    resolutions: ['DAY', 'WEEK'], source: activity('active_accounts'), sourceAt: { WEEK: activity('active_accounts_week') },
                    aggregate: 'sum', format: count,
                },
                {
                    id: 'newAccounts', title: 'New accounts', description: 'Number of newly added accounts',
                    resolutions: ALL, source: activity('new_accounts'), aggregate: 'sum', format: count,
                },
            ],
        },
        {
            id: 'transactions', title: 'Transactions', charts: [
                {
                    id: 'averageTxnFee', title: 'Average transaction fee', units: COIN,
                    description: `Average amount of ${COIN} spent on gas fees per transaction`,
                    resolutions: ALL, source: activity('fees', 'transactions'), aggregate: 'average', format: (n, d) => ether(ratio(n, d)),
                },
                {
                    id: 'newTxns', title: 'New transactions', description: 'Number of new transactions',
                    resolutions: ALL, source: activity('transactions'), aggregate: 'sum', format: count,
                },
                {
                    id: 'txnsFee', title: 'Transaction fees', units: COIN, description: `Sum of ${COIN} spent on gas fees`,
                    resolutions: ALL, source: activity('fees'), aggregate: 'sum', format: ether,
                },
                {
                    id: 'txnsGrowth', title: 'Number of transactions', description: 'Cumulative transaction growth over time',
                    resolutions: ALL, source: activity('transactions'), aggregate: 'cumulative', format: count,
                },
            ],
        },
        {
            id: 'blocks', title: 'Blocks', charts: [
                {
                    id: 'averageBlockSize', title: 'Average block size', units: 'Bytes', description: 'Space (in bytes) taken up by all block fields',
                    resolutions: ALL, source: activity('block_size', 'blocks'), aggregate: 'average',
                    // ROUND(AVG(size)), as the service: half away from zero.
                    format: (n, d) => String(d === 0n ? 0n : (2n * n + d) / (2n * d)),
                },
                {
                    id: 'newBlocks', title: 'New blocks', description: 'Number of new blocks added to the chain',
                    resolutions: ALL, source: activity('blocks'), aggregate: 'sum', format: count,
                },
            ],
        },
        {
            id: 'tokens', title: 'Tokens', charts: [
                {
                    id: 'nativeCoinHoldersGrowth', title: `${COIN} holders`, description: `Number of accounts holding ${COIN}`,
                    resolutions: ALL, source: activity('coin_holders'), aggregate: 'last', format: count,
                },
                {
                    id: 'nativeCoinSupply', title: `${COIN} circulating supply`, units: COIN, description: `Amount of publicly available ${COIN}`,
                    resolutions: ALL, source: activity('coin_supply'), aggregate: 'last', format: ether,
                },
            ],
        },
        {
            id: 'gas', title: 'Gas', charts: [
                {
                    id: 'averageGasPrice', title: 'Average gas price', units: 'Gwei', description: 'Average price (Gwei) per unit of gas',
                    resolutions: ALL, source: activity('gas_price', 'transactions'), aggregate: 'average', format: (n, d) => formatUnits(ratio(n, d), 9),
                },
                {
                    id: 'gasUsedGrowth', title: 'Total gas usage', description: 'Cumulative gas used over time',
                    resolutions: ALL, source: activity('gas_used'), aggregate: 'cumulative', format: count,
                },
            ],
        },
        {
            id: 'contracts', title: 'Contracts', charts: [
                {
                    id: 'contractsGrowth', title: 'Number of contracts', description: 'Cumulative contract growth over time',
                    resolutions: ALL, source: activity('new_contracts'), aggregate: 'cumulative', format: count,
                },
                {
                    id: 'newContracts', title: 'New contracts', description: 'Number of new contracts in the network',
                    resolutions: ALL, source: activity('new_contracts'), aggregate: 'sum', format: count,
                },
                {
                    id: 'newVerifiedContracts', title: 'New verified contracts', description: 'Number of newly verified contracts',
                    resolutions: ALL, source: VERIFIED, aggregate: 'sum', format: count,
                },
                {
                    id: 'verifiedContractsGrowth', title: 'Number of verified contracts', description: 'Cumulative verified contract growth over time',
                    resolutions: ALL, source: VERIFIED, aggregate: 'cumulative', format: count,
                },
            ],
        },
    ]
    if (quote) {
        // Ours (the stats service has no DEX lines): the AMM's trades, each trade once however many pools it crossed.
        list.push({
            id: 'dex', title: 'DEX', charts: [
                {
                    id: 'dexVolume', title: 'DEX volume', units: quote.symbol,
                    description: `Value of the trades on the chain's AMM, in ${quote.symbol}`,
                    resolutions: ALL, source: dexDays('trade_volume_quote'), aggregate: 'sum', format: (n) => formatUnits(n, quote.decimals),
                },
                {
                    id: 'dexSwaps', title: 'DEX swaps', description: 'Number of trades on the chain\'s AMM',
                    resolutions: ALL, source: dexDays('trades'), aggregate: 'sum', format: count,
                },
            ],
        })
    }
    return list
}

/** The main page's window: new transactions of the 30 days before today (the service leaves today out). */
export const NEW_TXNS_WINDOW = {
    id: 'newTxnsWindow', title: 'Daily transactions', description: 'The chart displays daily transactions for the past 30 days', days: 30,
}
