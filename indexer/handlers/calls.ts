import { internalTransactionId } from '../../db/row-ids'
import { Batch } from '../batch'
import { hexBytes } from '../copy'
import { BlockData } from '../processor'
import { effectiveSuccess } from '../../common/coin-movements'
import { Frame } from '../traces'

/**
 * Every call frame of the block's transactions as an internal_transaction row, and what the frames
 * say about addresses: each caller, callee and created contract is touched (so its balance is read
 * and its row exists), and a contract created by a contract gets its creator and creation
 * transaction like a top-level deployment. Block rewards are not rows here: they only move coin
 * (see coin-balances.ts). Returns the transactions in which a frame below the top-level call failed.
 */
export function indexCallFrames(batch: Batch, block: BlockData, frames: Frame[]): Set<string> {
    const withErrors = new Set<string>()
    const height = block.header.height
    const timestamp = new Date(block.header.timestamp)
    const positionInTransaction = new Map<string, number>()
    const stands = effectiveSuccess(frames)
    frames.forEach((frame, i) => {
        if (frame.transactionHash === null) return
        const index = positionInTransaction.get(frame.transactionHash) ?? 0
        positionInTransaction.set(frame.transactionHash, index + 1)
        batch.internalTransactions.push({
            id: internalTransactionId(height, frame.transactionIndex, index),
            blockNumber: height,
            blockHash: block.header.hash,
            timestamp,
            transactionHash: frame.transactionHash,
            transactionIndex: frame.transactionIndex,
            index,
            traceAddress: frame.traceAddress,
            type: frame.type,
            from: frame.from,
            to: frame.to,
            createdContract: frame.createdContract,
            value: frame.value,
            gas: frame.gas,
            gasUsed: frame.gasUsed,
            input: frame.input === null ? null : hexBytes(frame.input),
            output: frame.output === null ? null : hexBytes(frame.output),
            error: frame.error,
        })
        if (index === 0) return // the transaction itself: chain.ts already counted its parties
        if (frame.error !== null) withErrors.add(frame.transactionHash)
        batch.touchAddress(frame.from, height)
        if (frame.to) batch.touchAddress(frame.to, height)
        if (frame.createdContract && stands[i]) {
            const contract = batch.touchAddress(frame.createdContract, height)
            contract.isContract = true
            contract.creator ??= frame.from
            contract.creationTransaction ??= frame.transactionHash
        }
    })
    return withErrors
}
