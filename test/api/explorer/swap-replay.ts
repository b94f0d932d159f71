import { Address, formatUnits, parseAbi, parseEventLogs, PublicClient } from 'viem'
import { NativeContracts } from '../../../common/config'

/**
 * The test's own account of the DeFi figures: it reads the raw PairCreated, Sync and Swap logs of
 * the chain over JSON-RPC, replays them in order and applies the volume rule of docs/indexer.md, without any
 * of the indexer's or the API's code.
 */

const AMM_EVENTS = parseAbi([
    'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 count)',
    'event Sync(uint112 reserve0, uint112 reserve1)',
    'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
])
const ERC20 = parseAbi(['function symbol() view returns (string)', 'function decimals() view returns (uint8)'])

export interface ReplayedPair {
    address: string
    token0: string
    token1: string
    reserve0: bigint
    reserve1: bigint
    volumeTotal: bigint
    swapsTotal: number
    /** Per hour start (ms): volume and swaps. */
    hours: Map<number, { volume: bigint; swaps: number }>
}

export interface Replay {
    pairs: Map<string, ReplayedPair>
    /** Per UTC day (YYYY-MM-DD): volume and swaps of all pairs. */
    days: Map<string, { volume: bigint; swaps: number }>
    tokens: Map<string, { symbol: string; decimals: number }>
    stable: string
    wnative: string
}

export async function replaySwaps(client: PublicClient, contracts: NativeContracts, head: bigint): Promise<Replay> {
    const stable = contracts.stable.toLowerCase()
    const wnative = contracts.wnative.toLowerCase()
    const logs = []
    // The node answers at most 10,000 blocks per query.
    for (let from = 0n; from <= head; from += 10_000n) {
        const to = from + 9_999n < head ? from + 9_999n : head
        logs.push(...await client.getLogs({ fromBlock: from, toBlock: to }))
    }
    const events = parseEventLogs({ abi: AMM_EVENTS, logs, strict: true })
    const timestamps = new Map<bigint, number>()
    for (const n of new Set(events.filter((e) => e.eventName === 'Swap').map((e) => e.blockNumber))) {
        timestamps.set(n, Number((await client.getBlock({ blockNumber: n })).timestamp) * 1000)
    }

    const pairs = new Map<string, ReplayedPair>()
    const byTokens = new Map<string, ReplayedPair>()
    const days = new Map<string, { volume: bigint; swaps: number }>()
    const tokenKey = (a: string, b: string) => [a, b].sort().join('-')

    const convert = (from: string, to: string, amount: bigint): bigint | undefined => {
        const pool = byTokens.get(tokenKey(from, to))
        if (!pool) return undefined
        const [rFrom, rTo] = pool.token0 === from ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0]
        return rFrom > 0n && rTo > 0n ? (amount * rTo) / rFrom : undefined
    }
    const inQuote = (token: string, amount: bigint): bigint | undefined => {
        const direct = convert(token, stable, amount)
        if (direct !== undefined) return direct
        const viaWnative = token === wnative ? amount : convert(token, wnative, amount)
        return viaWnative === undefined ? undefined : convert(wnative, stable, viaWnative)
    }

    for (const event of events) {
        const address = event.address.toLowerCase()
        if (event.eventName === 'PairCreated') {
            if (address !== contracts.factory.toLowerCase()) continue
            const pair: ReplayedPair = {
                address: event.args.pair.toLowerCase(),
                token0: event.args.token0.toLowerCase(),
                token1: event.args.token1.toLowerCase(),
                reserve0: 0n, reserve1: 0n, volumeTotal: 0n, swapsTotal: 0, hours: new Map(),
            }
            pairs.set(pair.address, pair)
            byTokens.set(tokenKey(pair.token0, pair.token1), pair)
            continue
        }
        const pair = pairs.get(address)
        if (!pair) continue
        if (event.eventName === 'Sync') {
            pair.reserve0 = event.args.reserve0
            pair.reserve1 = event.args.reserve1
        } else if (event.eventName === 'Swap') {
            const amount0 = event.args.amount0In + event.args.amount0Out
            const amount1 = event.args.amount1In + event.args.amount1Out
            const volume = pair.token0 === stable ? amount0
                : pair.token1 === stable ? amount1
                    : inQuote(pair.token0, amount0) ?? inQuote(pair.token1, amount1) ?? 0n
            const at = timestamps.get(event.blockNumber)!
            pair.volumeTotal += volume
            pair.swapsTotal += 1
            const hour = Math.floor(at / 3_600_000) * 3_600_000
            const bucket = pair.hours.get(hour) ?? { volume: 0n, swaps: 0 }
            pair.hours.set(hour, { volume: bucket.volume + volume, swaps: bucket.swaps + 1 })
            const day = new Date(at).toISOString().slice(0, 10)
            const daily = days.get(day) ?? { volume: 0n, swaps: 0 }
            days.set(day, { volume: daily.volume + volume, swaps: daily.swaps + 1 })
        }
    }

    const tokens = new Map<string, { symbol: string; decimals: number }>()
    for (const token of new Set([...pairs.values()].flatMap((p) => [p.token0, p.token1]))) {
        const [symbol, decimals] = await Promise.all([
            client.readContract({ address: token as Address, abi: ERC20, functionName: 'symbol' }),
            client.readContract({ address: token as Address, abi: ERC20, functionName: 'decimals' }),
        ])
        tokens.set(token, { symbol, decimals })
    }
    return { pairs, days, tokens, stable, wnative }
}

/** What GET /defi/pools must answer for the 24 hours starting at `since` (ms), in no particular order. */
export function expectedPools(replay: Replay, since: number) {
    const quote = replay.tokens.get(replay.stable)!
    const n = (units: bigint) => Number(formatUnits(units, quote.decimals))
    const exact = (units: bigint) => formatUnits(units, quote.decimals)
    const byTokens = new Map([...replay.pairs.values()].map((p) => [[p.token0, p.token1].sort().join('-'), p]))
    const value = (token: string, amount: bigint): bigint | undefined => {
        const rate = (from: string, to: string, x: bigint) => {
            const p = byTokens.get([from, to].sort().join('-'))
            if (!p) return undefined
            const [a, b] = p.token0 === from ? [p.reserve0, p.reserve1] : [p.reserve1, p.reserve0]
            return a > 0n && b > 0n ? (x * b) / a : undefined
        }
        const direct = rate(token, replay.stable, amount)
        if (direct !== undefined) return direct
        const w = token === replay.wnative ? amount : rate(token, replay.wnative, amount)
        return w === undefined ? undefined : rate(replay.wnative, replay.stable, w)
    }
    return [...replay.pairs.values()].map((p) => {
        const t0 = replay.tokens.get(p.token0)!
        const t1 = replay.tokens.get(p.token1)!
        const recent = [...p.hours.entries()].filter(([hour]) => hour >= since).map(([, b]) => b)
        const recentVolume = recent.reduce((sum, b) => sum + b.volume, 0n)
        const quoteSide = p.token0 === replay.stable ? p.reserve0
            : p.token1 === replay.stable ? p.reserve1
                : value(p.token0, p.reserve0) ?? value(p.token1, p.reserve1) ?? 0n
        return {
            address: p.address,
            name: `${t0.symbol}/${t1.symbol}`,
            reserve0: formatUnits(p.reserve0, t0.decimals),
            reserve1: formatUnits(p.reserve1, t1.decimals),
            liquidity_quote: n(2n * quoteSide),
            liquidity_quote_exact: exact(2n * quoteSide),
            quote_symbol: quote.symbol,
            volume_24h: n(recentVolume),
            volume_24h_exact: exact(recentVolume),
            swaps_24h: recent.reduce((sum, b) => sum + b.swaps, 0),
            volume_total: n(p.volumeTotal),
            volume_total_exact: exact(p.volumeTotal),
            swaps_total: p.swapsTotal,
        }
    })
}

/** What GET /defi/volume?days=N must answer on the UTC day that contains `now` (ms), in its per-hop fields. */
export function expectedVolume(replay: Replay, days: number, now: number) {
    const decimals = replay.tokens.get(replay.stable)!.decimals
    const today = Math.floor(now / 86_400_000) * 86_400_000
    return Array.from({ length: days }, (_, i) => {
        const date = new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10)
        const day = replay.days.get(date)
        return { date, volume: day ? Number(formatUnits(day.volume, decimals)) : 0, volume_exact: formatUnits(day?.volume ?? 0n, decimals), swaps: day?.swaps ?? 0 }
    })
}
