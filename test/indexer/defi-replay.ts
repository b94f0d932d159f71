import { Address, formatUnits, parseAbi, parseEventLogs, PublicClient } from 'viem'
import { NativeContracts } from '../../common/config'

/**
 * The test's own account of every DeFi entity (docs/indexer.md#defi-entities): it reads the raw
 * logs of the chain over JSON-RPC and replays PairCreated, Sync, Swap, Mint, Burn and the pairs'
 * LP Transfers in chain order with the documented rules (volume rule, price rule, trade grouping,
 * buckets), without any of the indexer's code. Rows come out as the database shows them as text.
 */

const EVENTS = parseAbi([
    'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 count)',
    'event Sync(uint112 reserve0, uint112 reserve1)',
    'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
    'event Mint(address indexed sender, uint256 amount0, uint256 amount1)',
    'event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)',
    'event Transfer(address indexed from, address indexed to, uint256 value)',
])
const DECIMALS = parseAbi(['function decimals() view returns (uint8)'])
const ZERO = '0x0000000000000000000000000000000000000000'
const ONE = 10n ** 18n
/** docs/indexer.md#defi-price-rule: whole STABLE the whitelisted side must hold. */
const MIN_PRICING_LIQUIDITY = 10n

type Row = Record<string, string | number | null>
interface Pair { id: string; token0: string; token1: string; reserve0: bigint; reserve1: bigint; reserveQuote: bigint; volume0: bigint; volume1: bigint; volume: bigint; swaps: number; supply: bigint }
interface Candle { open: bigint | null; high: bigint | null; low: bigint | null; close: bigint | null }

export interface DefiReplay {
    pairs: Row[]
    tokens: Row[]
    trades: Row[]
    swaps: Row[]
    mints: Row[]
    burns: Row[]
    pairHours: Row[]
    pairDays: Row[]
    tokenDays: Row[]
    dexDays: Row[]
}

const text = (price: bigint | null) => (price === null ? null : formatUnits(price, 18))
const byId = (a: Row, b: Row) => (String(a.id) < String(b.id) ? -1 : 1)
const logId = (block: bigint, index: number) => `${block.toString().padStart(10, '0')}-${index.toString().padStart(6, '0')}`

export async function replayDefi(client: PublicClient, contracts: NativeContracts, head: bigint): Promise<DefiReplay> {
    const stable = contracts.stable.toLowerCase()
    const wnative = contracts.wnative.toLowerCase()
    const logs = await client.getLogs({ fromBlock: 0n, toBlock: head })
    const events = parseEventLogs({ abi: EVENTS, logs, strict: false })
    const blocks = new Map<bigint, { timestamp: number; senders: Map<string, string> }>()
    const blockOf = async (n: bigint) => {
        if (!blocks.has(n)) {
            const block = await client.getBlock({ blockNumber: n, includeTransactions: true })
            blocks.set(n, { timestamp: Number(block.timestamp) * 1000, senders: new Map(block.transactions.map((t) => [t.hash, t.from.toLowerCase()])) })
        }
        return blocks.get(n)!
    }

    const pairs = new Map<string, Pair>()
    const byTokens = new Map<string, Pair>()
    const key = (a: string, b: string) => [a, b].sort().join('-')
    const decimals = new Map<string, number>()
    const dec = (token: string) => decimals.get(token) ?? 0
    const prices = new Map<string, bigint | null>()
    const liquidity = new Map<string, bigint>()
    const tokenFigures = new Map<string, { volume: bigint; quote: bigint; swaps: number }>()
    let totalReserveQuote = 0n

    const convert = (from: string, to: string, amount: bigint) => {
        const p = byTokens.get(key(from, to))
        if (!p) return undefined
        const [a, b] = p.token0 === from ? [p.reserve0, p.reserve1] : [p.reserve1, p.reserve0]
        return a > 0n && b > 0n ? (amount === 0n ? 0n : (amount * b) / a) : undefined
    }
    const inQuote = (token: string, amount: bigint) => {
        const direct = convert(token, stable, amount)
        if (direct !== undefined) return direct
        const w = token === wnative ? amount : convert(token, wnative, amount)
        return w === undefined ? undefined : convert(wnative, stable, w)
    }
    const volumeRule = (p: Pair, a0: bigint, a1: bigint) =>
        p.token0 === stable ? a0 : p.token1 === stable ? a1 : inQuote(p.token0, a0) ?? inQuote(p.token1, a1) ?? 0n
    const ratio = (num: bigint, dNum: number, den: bigint, dDen: number) =>
        den === 0n ? null : (num * 10n ** BigInt(dDen) * ONE) / (den * 10n ** BigInt(dNum))
    const through = (token: string, base: string, basePrice: bigint): bigint | null => {
        const p = byTokens.get(key(token, base))
        if (!p) return null
        const [rt, rb] = p.token0 === token ? [p.reserve0, p.reserve1] : [p.reserve1, p.reserve0]
        if (rb * basePrice < MIN_PRICING_LIQUIDITY * 10n ** BigInt(dec(base)) * ONE) return null
        const r = ratio(rb, dec(base), rt, dec(token))
        return r === null ? null : (r * basePrice) / ONE
    }
    const price = (token: string): bigint | null => {
        if (token === stable) return ONE
        const direct = through(token, stable, ONE)
        if (token === wnative || direct !== null) return direct
        const w = price(wnative)
        return w === null ? null : through(token, wnative, w)
    }
    const addCandle = (c: Candle, p: bigint | null) => {
        if (p === null) return
        if (c.open === null) c.open = p
        if (c.high === null || p > c.high) c.high = p
        if (c.low === null || p < c.low) c.low = p
        c.close = p
    }
    const candleRow = (c: Candle) => ({ price_open: text(c.open), price_high: text(c.high), price_low: text(c.low), price_close: text(c.close) })

    type PairBucket = { id: string; pair: string; start: number; volume: bigint; swaps: number; v0: bigint; v1: bigint; r0: bigint; r1: bigint; rq: bigint; candle: Candle }
    const pairHours = new Map<string, PairBucket>()
    const pairDays = new Map<string, PairBucket>()
    const tokenDays = new Map<string, { id: string; token: string; start: number; volume: bigint; quote: bigint; swaps: number; candle: Candle; liquidity: bigint; liquidityQuote: bigint }>()
    const dexDays = new Map<string, { id: string; start: number; volume: bigint; swaps: number; tradeVolume: bigint; trades: number; liquidity: bigint; pairCount: number }>()
    const dayOf = (ms: number) => new Date(Math.floor(ms / 86_400_000) * 86_400_000).toISOString().slice(0, 10)
    const bucket = (map: Map<string, PairBucket>, id: string, pair: string, start: number) => {
        if (!map.has(id)) map.set(id, { id, pair, start, volume: 0n, swaps: 0, v0: 0n, v1: 0n, r0: 0n, r1: 0n, rq: 0n, candle: { open: null, high: null, low: null, close: null } })
        return map.get(id)!
    }
    const pairBuckets = (p: Pair, ms: number) => {
        const hour = Math.floor(ms / 3_600_000) * 3600
        const day = dayOf(ms)
        return [bucket(pairHours, `${p.id}-${hour}`, p.id, hour * 1000), bucket(pairDays, `${p.id}-${day}`, p.id, Date.parse(day))].map((b) => {
            b.r0 = p.reserve0
            b.r1 = p.reserve1
            b.rq = p.reserveQuote
            addCandle(b.candle, ratio(p.reserve0, dec(p.token0), p.reserve1, dec(p.token1)))
            return b
        })
    }
    const tokenDay = (token: string, ms: number) => {
        const id = `${token}-${dayOf(ms)}`
        if (!tokenDays.has(id)) tokenDays.set(id, { id, token, start: Date.parse(dayOf(ms)), volume: 0n, quote: 0n, swaps: 0, candle: { open: null, high: null, low: null, close: null }, liquidity: 0n, liquidityQuote: 0n })
        return tokenDays.get(id)!
    }
    const dexDay = (ms: number) => {
        const id = dayOf(ms)
        if (!dexDays.has(id)) dexDays.set(id, { id, start: Date.parse(id), volume: 0n, swaps: 0, tradeVolume: 0n, trades: 0, liquidity: 0n, pairCount: 0 })
        const d = dexDays.get(id)!
        d.liquidity = totalReserveQuote
        d.pairCount = pairs.size
        return d
    }

    const trades: Row[] = []
    const swaps: Row[] = []
    const mints: Row[] = []
    const burns: Row[] = []
    let open: { row: Row; tx: string; lastTo: string; first: bigint; day: { tradeVolume: bigint } } | undefined
    const lp = new Map<string, { tx: string; mintedTo: string | null; minted: bigint; burned: bigint }>()
    const moves = (pair: string, tx: string) => {
        if (lp.get(pair)?.tx !== tx) lp.set(pair, { tx, mintedTo: null, minted: 0n, burned: 0n })
        return lp.get(pair)!
    }

    for (const event of events) {
        const address = event.address.toLowerCase()
        if (event.eventName === 'PairCreated') {
            if (address !== contracts.factory.toLowerCase()) continue
            const p: Pair = { id: event.args.pair!.toLowerCase(), token0: event.args.token0!.toLowerCase(), token1: event.args.token1!.toLowerCase(), reserve0: 0n, reserve1: 0n, reserveQuote: 0n, volume0: 0n, volume1: 0n, volume: 0n, swaps: 0, supply: 0n }
            for (const token of [p.token0, p.token1]) {
                if (!decimals.has(token)) decimals.set(token, await client.readContract({ address: token as Address, abi: DECIMALS, functionName: 'decimals' }))
                if (!prices.has(token)) prices.set(token, null)
                if (!tokenFigures.has(token)) tokenFigures.set(token, { volume: 0n, quote: 0n, swaps: 0 })
            }
            pairs.set(p.id, p)
            byTokens.set(key(p.token0, p.token1), p)
            dexDay((await blockOf(event.blockNumber)).timestamp)
            continue
        }
        const p = pairs.get(address)
        if (!p) continue
        const { timestamp: ms, senders } = await blockOf(event.blockNumber)
        const tx = event.transactionHash
        const common = { id: logId(event.blockNumber, event.logIndex), pair_id: p.id, block_number: Number(event.blockNumber), transaction_hash: tx }
        if (event.eventName === 'Transfer') {
            const { from, to, value } = event.args as { from: string; to: string; value: bigint }
            const m = moves(p.id, tx)
            if (from.toLowerCase() === ZERO) p.supply += value
            else if (to.toLowerCase() === ZERO) p.supply -= value
            if (from.toLowerCase() === ZERO && to.toLowerCase() !== ZERO) [m.mintedTo, m.minted] = [to.toLowerCase(), value]
            else if (to.toLowerCase() === ZERO && from.toLowerCase() === p.id) m.burned += value
        } else if (event.eventName === 'Sync') {
            const { reserve0, reserve1 } = event.args as { reserve0: bigint; reserve1: bigint }
            liquidity.set(p.token0, (liquidity.get(p.token0) ?? 0n) + reserve0 - p.reserve0)
            liquidity.set(p.token1, (liquidity.get(p.token1) ?? 0n) + reserve1 - p.reserve1)
            p.reserve0 = reserve0
            p.reserve1 = reserve1
            const rq = 2n * volumeRule(p, reserve0, reserve1)
            totalReserveQuote += rq - p.reserveQuote
            p.reserveQuote = rq
            prices.set(p.token0, price(p.token0))
            prices.set(p.token1, price(p.token1))
            pairBuckets(p, ms)
            for (const token of [p.token0, p.token1]) {
                const d = tokenDay(token, ms)
                const tp = prices.get(token) ?? null
                d.liquidity = liquidity.get(token) ?? 0n
                d.liquidityQuote = tp === null ? 0n : (d.liquidity * tp * 10n ** BigInt(dec(stable))) / (10n ** BigInt(dec(token)) * ONE)
                addCandle(d.candle, tp)
            }
            dexDay(ms)
        } else if (event.eventName === 'Swap') {
            const a = event.args as { sender: string; amount0In: bigint; amount1In: bigint; amount0Out: bigint; amount1Out: bigint; to: string }
            const a0 = a.amount0In + a.amount0Out
            const a1 = a.amount1In + a.amount1Out
            const volume = volumeRule(p, a0, a1)
            const to = a.to.toLowerCase()
            const [tokenIn, amountIn, tokenOut, amountOut] = a.amount0In > 0n ? [p.token0, a.amount0In, p.token1, a.amount1Out] : [p.token1, a.amount1In, p.token0, a.amount0Out]
            const day = dexDay(ms)
            if (open && open.tx === tx && open.lastTo === p.id) {
                const before = BigInt(open.row.volume_quote as string)
                const now = open.first > 0n ? open.first : volume
                Object.assign(open.row, { hops: Number(open.row.hops) + 1, recipient: to, token_out_id: tokenOut, amount_out: amountOut.toString(), amount_out_decimal: formatUnits(amountOut, dec(tokenOut)), volume_quote: now.toString() })
                day.tradeVolume += now - before
            } else {
                const row = {
                    id: common.id, block_number: common.block_number, transaction_hash: tx, trader: senders.get(tx)!, recipient: to,
                    token_in_id: tokenIn, token_out_id: tokenOut, amount_in: amountIn.toString(), amount_out: amountOut.toString(),
                    amount_in_decimal: formatUnits(amountIn, dec(tokenIn)), amount_out_decimal: formatUnits(amountOut, dec(tokenOut)),
                    volume_quote: volume.toString(), hops: 1,
                }
                trades.push(row)
                open = { row, tx, lastTo: to, first: volume, day }
                day.trades += 1
                day.tradeVolume += volume
            }
            open.lastTo = to
            swaps.push({ id: common.id, pair_id: p.id, trade_id: open.row.id, trader: senders.get(tx)!, volume: volume.toString() })
            p.volume += volume
            p.swaps += 1
            p.volume0 += a0
            p.volume1 += a1
            for (const b of pairBuckets(p, ms)) {
                b.volume += volume
                b.swaps += 1
                b.v0 += a0
                b.v1 += a1
            }
            for (const [token, amount] of [[p.token0, a0], [p.token1, a1]] as const) {
                for (const f of [tokenFigures.get(token)!, tokenDay(token, ms)]) {
                    f.volume += amount
                    f.quote += volume
                    f.swaps += 1
                }
            }
            day.volume += volume
            day.swaps += 1
        } else if (event.eventName === 'Mint' || event.eventName === 'Burn') {
            const a = event.args as { sender: string; amount0: bigint; amount1: bigint; to?: string }
            const m = moves(p.id, tx)
            const row = {
                ...common, sender: a.sender.toLowerCase(), amount0: a.amount0.toString(), amount1: a.amount1.toString(),
                amount_quote: (2n * volumeRule(p, a.amount0, a.amount1)).toString(),
            }
            if (event.eventName === 'Mint') {
                mints.push({ ...row, to: m.mintedTo, liquidity: m.minted.toString() })
                ;[m.mintedTo, m.minted] = [null, 0n]
            } else {
                burns.push({ ...row, to: a.to!.toLowerCase(), liquidity: m.burned.toString() })
                m.burned = 0n
            }
        }
    }

    const whole = (amount: bigint, token: string) => formatUnits(amount, dec(token))
    const pairBucketRow = (b: PairBucket) => {
        const p = pairs.get(b.pair)!
        return {
            id: b.id, pair_id: b.pair, swaps: b.swaps, volume_token0: b.v0.toString(), volume_token1: b.v1.toString(),
            reserve0: b.r0.toString(), reserve1: b.r1.toString(), reserve0_decimal: whole(b.r0, p.token0), reserve1_decimal: whole(b.r1, p.token1),
            reserve_quote: b.rq.toString(), ...candleRow(b.candle),
        }
    }
    return {
        pairs: [...pairs.values()].map((p) => ({
            id: p.id, token0_id: p.token0, token1_id: p.token1, reserve0: p.reserve0.toString(), reserve1: p.reserve1.toString(),
            reserve0_decimal: whole(p.reserve0, p.token0), reserve1_decimal: whole(p.reserve1, p.token1),
            token0_price: text(ratio(p.reserve0, dec(p.token0), p.reserve1, dec(p.token1))),
            token1_price: text(ratio(p.reserve1, dec(p.token1), p.reserve0, dec(p.token0))),
            reserve_quote: p.reserveQuote.toString(), volume_token0: p.volume0.toString(), volume_token1: p.volume1.toString(),
            volume_total: p.volume.toString(), swaps_total: p.swaps, total_supply: p.supply.toString(),
        })).sort(byId),
        tokens: [...tokenFigures].map(([id, f]) => ({
            id, trade_volume: f.volume.toString(), trade_volume_quote: f.quote.toString(), swap_count: f.swaps,
            derived_quote: text(prices.get(id) ?? null), total_liquidity: (liquidity.get(id) ?? 0n).toString(),
        })).sort(byId),
        trades: trades.sort(byId),
        swaps: swaps.sort(byId),
        mints: mints.sort(byId),
        burns: burns.sort(byId),
        pairHours: [...pairHours.values()].map((b) => ({ ...pairBucketRow(b), volume: b.volume.toString(), hour: new Date(b.start).toISOString() })).sort(byId),
        pairDays: [...pairDays.values()].map((b) => ({ ...pairBucketRow(b), volume_quote: b.volume.toString(), date: new Date(b.start).toISOString() })).sort(byId),
        tokenDays: [...tokenDays.values()].map((d) => ({
            id: d.id, token_id: d.token, date: new Date(d.start).toISOString(), volume: d.volume.toString(), volume_quote: d.quote.toString(),
            swaps: d.swaps, ...candleRow(d.candle), total_liquidity: d.liquidity.toString(), liquidity_quote: d.liquidityQuote.toString(),
        })).sort(byId),
        dexDays: [...dexDays.values()].map((d) => ({
            id: d.id, date: new Date(d.start).toISOString(), volume: d.volume.toString(), swaps: d.swaps, trade_volume_quote: d.tradeVolume.toString(),
            trades: d.trades, liquidity_quote: d.liquidity.toString(), pair_count: d.pairCount,
        })).sort(byId),
    }
}
