import { internalTransactionId } from '../../db/row-ids'
import { Batch } from '../batch'
import { hexBytes } from '../copy'
import { BlockData } from '../processor'
import { effectiveSuccess } from '../../common/coin-movements'
import { TopFrame } from '../revert-data'
import { Frame } from '../traces'

/** What the call frames tell the transaction rows: which had a failing inner frame, and each one's top-level frame. */
export interface CallOutcomes {
    withErrors: Set<string>
    topFrames: Map<string, TopFrame>
}

/**
 * Every call frame of the block's transactions as an internal_transaction row, and what the frames
 * say about addresses: each caller, callee and created contract is touched (so its balance is read
 * and its row exists), and a contract created by a contract gets its creator and creation
 * transaction like a top-level deployment; a self-destructed contract is marked for its code to be
 * read at the batch's end (docs/indexer.md#self-destructed-contracts). Block rewards are not rows here: they only move coin
 * (see coin-balances.ts). Returns the transactions in which a frame below the top-level call failed,
 * and the error and output of every transaction's top-level frame (its revert data when it reverted).
 */
export function indexCallFrames(batch: Batch, block: BlockData, frames: Frame[]): CallOutcomes {
    const withErrors = new Set<string>()
    const topFrames = new Map<string, TopFrame>()
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
        if (index === 0) {
            // the transaction itself: chain.ts already counted its parties
            topFrames.set(frame.transactionHash, { error: frame.error, output: frame.output })
            return
        }
        if (frame.error !== null) withErrors.add(frame.transactionHash)
        batch.touchAddress(frame.from, height)
        if (frame.to) batch.touchAddress(frame.to, height)
        // Whether the code is gone depends on the hardfork (EIP-6780) and on what else the batch did:
        // the node's code at the batch's end says, so the frame only makes the contract a candidate.
        if (frame.type === 'selfdestruct') batch.touchAddress(frame.from, height).selfDestructed = true
        if (frame.createdContract && stands[i]) {
            const contract = batch.touchAddress(frame.createdContract, height)
            contract.isContract = true
            contract.deployed = true
            batch.activityOf(block.header.timestamp).newContracts += 1
            contract.creator ??= frame.from
            contract.creationTransaction ??= frame.transactionHash
        }
    })
    return { withErrors, topFrames }
}
