import * as amm from '../../abi/codecs/amm'
import { Batch } from '../batch'
import { logId } from '../../db/row-ids'
import { BlockData, Log } from '../processor'
import { ChainState } from '../state'
import { ContractVerifier } from '../verification'

/**
 * The AMM: pairs from the factory's PairCreated, reserves from each pair's Sync, and every Swap
 * with its volume in the quote token (see ChainState.swapVolume for the pricing rule), added to
 * the pair's totals, its hourly bucket and the day's bucket as the block is ingested.
 */
export function indexAmmLog(
    batch: Batch,
    state: ChainState,
    verifier: ContractVerifier,
    block: BlockData,
    log: Log
): void {
    const topic0 = log.topics[0]
    const height = block.header.height
    if (topic0 === amm.events.PairCreated.topic && log.address === state.amm.factory) {
        const event = amm.events.PairCreated.decode(log)
        const pair = event.pair.toLowerCase()
        const token0 = event.token0.toLowerCase()
        const token1 = event.token1.toLowerCase()
        state.addPair(pair, { token0, token1, reserve0: 0n, reserve1: 0n })
        batch.newPairs.set(pair, {
            id: pair,
            token0,
            token1,
            reserve0: 0n,
            reserve1: 0n,
            createdBlock: height,
            createdTransaction: log.transactionHash,
            volumeTotal: 0n,
            swapsTotal: 0,
        })
        batch.pairDelta(pair)
        const created = batch.touchAddress(pair, height)
        created.isContract = true
        created.creator = state.amm.factory
        created.creationTransaction = log.transactionHash
        verifier.verifyFactoryPair(batch, pair, new Date(block.header.timestamp))
        return
    }
    const pairState = state.pairs.get(log.address)
    if (!pairState) return
    if (topic0 === amm.events.Sync.topic) {
        const { reserve0, reserve1 } = amm.events.Sync.decode(log)
        pairState.reserve0 = reserve0
        pairState.reserve1 = reserve1
        batch.pairDelta(log.address)
    } else if (topic0 === amm.events.Swap.topic) {
        const swap = amm.events.Swap.decode(log)
        const volume = state.swapVolume(pairState, swap.amount0In + swap.amount0Out, swap.amount1In + swap.amount1Out)
        batch.swaps.push({
            id: logId(height, log.logIndex),
            pair: log.address,
            blockNumber: height,
            timestamp: new Date(block.header.timestamp),
            logIndex: log.logIndex,
            transactionHash: log.transactionHash,
            sender: swap.sender.toLowerCase(),
            to: swap.to.toLowerCase(),
            amount0In: swap.amount0In,
            amount1In: swap.amount1In,
            amount0Out: swap.amount0Out,
            amount1Out: swap.amount1Out,
            volume,
        })
        batch.addSwapVolume(log.address, block.header.timestamp, volume)
    }
}
