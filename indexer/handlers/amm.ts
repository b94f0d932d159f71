import * as amm from '../../abi/codecs/amm'
import * as erc20 from '../../abi/codecs/erc20'
import { quoteValue, unitPrice, wholeText } from '../../common/amm-prices'
import { addToCandle } from '../amm-batch'
import { Batch } from '../batch'
import { logId } from '../../db/row-ids'
import { ZERO_ADDRESS } from '../ids'
import { BlockData, Log } from '../processor'
import { ChainState, PairState } from '../state'
import { ContractVerifier } from '../verification'
import { TokenSightings } from './tokens'

/**
 * The AMM (docs/indexer.md#defi-entities): pairs from the PairCreated of every indexed factory (ours and DEX_FACTORIES); from each pair's
 * Sync its reserves, prices and liquidity; every Swap (a hop) with its volume in the quote token
 * (see ChainState.swapVolume for the rule), grouped into trades; Mint and Burn with the LP tokens
 * the pair's own Transfers moved; all added to the pair's, tokens' and buckets' figures as the
 * block is ingested.
 */
export function indexAmmLog(
    batch: Batch,
    state: ChainState,
    verifier: ContractVerifier,
    block: BlockData,
    log: Log,
    sightings: TokenSightings
): void {
    const topic0 = log.topics[0]
    const height = block.header.height
    const timestamp = block.header.timestamp
    if (topic0 === amm.events.PairCreated.topic && state.amm.factories.has(log.address)) {
        const event = amm.events.PairCreated.decode(log)
        const pair = event.pair.toLowerCase()
        const token0 = event.token0.toLowerCase()
        const token1 = event.token1.toLowerCase()
        // The pair's Token rows are written in the same batch (a token never seen is read as any new token).
        for (const token of [token0, token1]) {
            if (!state.tokens.has(token) && !sightings.has(token)) sightings.set(token, { type: 'ERC-20', firstBlock: height })
            if (!state.prices.has(token)) state.prices.set(token, null)
            batch.amm.tokenFigures(token)
        }
        state.addPair(pair, { token0, token1, reserve0: 0n, reserve1: 0n, reserveQuote: 0n })
        batch.amm.newPairs.set(pair, { createdBlock: height, createdTransaction: log.transactionHash })
        batch.amm.pairFigures(pair)
        setDexDay(batch, state, timestamp)
        const created = batch.touchAddress(pair, height)
        created.isContract = true
        created.creator = log.address
        created.creationTransaction = log.transactionHash
        // Only our factory's pairs are known to be our AmmPair; another DEX's pair has its own code.
        if (log.address === state.amm.ourFactory) verifier.verifyFactoryPair(batch, pair, new Date(timestamp))
        return
    }
    const pairState = state.pairs.get(log.address)
    if (!pairState) return
    if (topic0 === amm.events.Sync.topic) {
        const { reserve0, reserve1 } = amm.events.Sync.decode(log)
        state.sync(pairState, reserve0, reserve1)
        batch.amm.pairFigures(log.address)
        batch.amm.pairBuckets(log.address, pairState, timestamp, token0Price(state, pairState))
        for (const token of [pairState.token0, pairState.token1]) {
            batch.amm.tokenFigures(token)
            const day = batch.amm.tokenDay(token, timestamp)
            const price = state.prices.get(token) ?? null
            day.totalLiquidity = state.liquidity.get(token) ?? 0n
            day.liquidityQuote = quoteValue(day.totalLiquidity, state.decimalsOf(token), price, state.amm.stable === null ? 0 : state.decimalsOf(state.amm.stable))
            addToCandle(day.candle, price)
        }
        setDexDay(batch, state, timestamp)
    } else if (topic0 === amm.events.Swap.topic) {
        indexSwap(batch, state, block, log, pairState)
    } else if (topic0 === erc20.events.Transfer.topic && log.topics.length === 3) {
        // The pair's own LP token: what a Mint minted to its provider, or a Burn burned.
        const { from, to, value } = erc20.events.Transfer.decode(log)
        const moves = liquidityMoves(batch, log)
        if (from === ZERO_ADDRESS && to.toLowerCase() !== ZERO_ADDRESS) {
            moves.mintedTo = to.toLowerCase()
            moves.minted = value
        } else if (to === ZERO_ADDRESS && from.toLowerCase() === log.address) {
            moves.burned += value
        }
    } else if (topic0 === amm.events.Mint.topic || topic0 === amm.events.Burn.topic) {
        const moves = liquidityMoves(batch, log)
        const common = {
            id: logId(height, log.logIndex),
            pair: log.address,
            blockNumber: height,
            timestamp: new Date(timestamp),
            logIndex: log.logIndex,
            transactionHash: log.transactionHash,
        }
        if (topic0 === amm.events.Mint.topic) {
            const { sender, amount0, amount1 } = amm.events.Mint.decode(log)
            const amountQuote = 2n * state.swapVolume(pairState, amount0, amount1)
            batch.amm.mints.push({ ...common, sender: sender.toLowerCase(), to: moves.mintedTo, amount0, amount1, liquidity: moves.minted, amountQuote })
            moves.mintedTo = null
            moves.minted = 0n
        } else {
            const { sender, amount0, amount1, to } = amm.events.Burn.decode(log)
            const amountQuote = 2n * state.swapVolume(pairState, amount0, amount1)
            batch.amm.burns.push({ ...common, sender: sender.toLowerCase(), to: to.toLowerCase(), amount0, amount1, liquidity: moves.burned, amountQuote })
            moves.burned = 0n
        }
    }
}

/** token0 per token1 in whole units (Uniswap's token0Price). */
export function token0Price(state: ChainState, pair: PairState): bigint | null {
    return unitPrice(pair.reserve0, state.decimalsOf(pair.token0), pair.reserve1, state.decimalsOf(pair.token1))
}

function liquidityMoves(batch: Batch, log: Log) {
    let moves = batch.amm.liquidityMoves.get(log.address)
    if (!moves || moves.transaction !== log.transactionHash) {
        moves = { transaction: log.transactionHash, mintedTo: null, minted: 0n, burned: 0n }
        batch.amm.liquidityMoves.set(log.address, moves)
    }
    return moves
}

/** The AMM's day bucket, its end-of-day figures (liquidity, pair count) set to the state now. */
function setDexDay(batch: Batch, state: ChainState, timestamp: number) {
    const day = batch.amm.dexDay(timestamp)
    day.liquidityQuote = state.totalReserveQuote
    day.pairCount = state.pairs.size
    return day
}

/** A hop: its row, its pair's and tokens' figures, and its place in a trade. */
function indexSwap(batch: Batch, state: ChainState, block: BlockData, log: Log, pair: PairState): void {
    const height = block.header.height
    const timestamp = block.header.timestamp
    const swap = amm.events.Swap.decode(log)
    const amount0 = swap.amount0In + swap.amount0Out
    const amount1 = swap.amount1In + swap.amount1Out
    const volume = state.swapVolume(pair, amount0, amount1)
    const id = logId(height, log.logIndex)
    const to = swap.to.toLowerCase()
    // Transactions come in block order, so the log's transaction index is (almost always) its position.
    const byPosition = block.transactions[log.transactionIndex]
    const transaction = byPosition?.transactionIndex === log.transactionIndex ? byPosition : block.transactions.find((t) => t.transactionIndex === log.transactionIndex)
    const trader = transaction?.from ?? ''

    // The router sends each hop's output to the next hop's pair: a Swap of the same transaction
    // in the pair the previous hop paid continues that trade.
    const [tokenIn, amountIn, tokenOut, amountOut] = swap.amount0In > 0n
        ? [pair.token0, swap.amount0In, pair.token1, swap.amount1Out]
        : [pair.token1, swap.amount1In, pair.token0, swap.amount0Out]
    const open = batch.amm.openTrade
    let trade: NonNullable<typeof open>
    if (open && open.row.transactionHash === log.transactionHash && open.lastTo === log.address) {
        trade = open
        const before = trade.row.volumeQuote
        trade.row.hops += 1
        trade.row.recipient = to
        trade.row.tokenOut = tokenOut
        trade.row.amountOut = amountOut
        trade.row.amountOutDecimal = wholeText(amountOut, state.decimalsOf(tokenOut))
        trade.row.volumeQuote = trade.firstVolume > 0n ? trade.firstVolume : volume
        trade.day.tradeVolumeQuote += trade.row.volumeQuote - before
    } else {
        const day = setDexDay(batch, state, timestamp)
        trade = {
            row: {
                id, blockNumber: height, timestamp: new Date(timestamp), transactionHash: log.transactionHash, trader, recipient: to,
                tokenIn, tokenOut, amountIn, amountOut,
                amountInDecimal: wholeText(amountIn, state.decimalsOf(tokenIn)),
                amountOutDecimal: wholeText(amountOut, state.decimalsOf(tokenOut)),
                volumeQuote: volume, hops: 1,
            },
            lastTo: to, firstVolume: volume, day,
        }
        batch.amm.trades.push(trade.row)
        batch.amm.openTrade = trade
        day.trades += 1
        day.tradeVolumeQuote += volume
    }
    trade.lastTo = to

    batch.amm.swaps.push({
        id,
        pair: log.address,
        trade: trade.row.id,
        blockNumber: height,
        timestamp: new Date(timestamp),
        logIndex: log.logIndex,
        transactionHash: log.transactionHash,
        trader,
        sender: swap.sender.toLowerCase(),
        to,
        amount0In: swap.amount0In,
        amount1In: swap.amount1In,
        amount0Out: swap.amount0Out,
        amount1Out: swap.amount1Out,
        volume,
    })
    const figures = batch.amm.pairFigures(log.address)
    for (const bucket of [figures, ...batch.amm.pairBuckets(log.address, pair, timestamp, token0Price(state, pair))]) {
        bucket.volume += volume
        bucket.swaps += 1
        bucket.volumeToken0 += amount0
        bucket.volumeToken1 += amount1
    }
    for (const [token, amount] of [[pair.token0, amount0], [pair.token1, amount1]] as const) {
        for (const tokenFigures of [batch.amm.tokenFigures(token), batch.amm.tokenDay(token, timestamp)]) {
            tokenFigures.volume += amount
            tokenFigures.volumeQuote += volume
            tokenFigures.swaps += 1
        }
    }
    const day = setDexDay(batch, state, timestamp)
    day.volume += volume
    day.swaps += 1
}
