import { Batch } from '../batch'
import { hexBytes } from '../copy'
import { logId } from '../../db/row-ids'
import { BlockData } from '../processor'
import { ContractVerifier } from '../verification'
import { blobFieldsOf, typedFieldsOf } from '../typed-fields'
import { HexBytes } from '../copy'
import { NO_REVERT, revertFromFrame } from '../revert-data'
import { CallOutcomes } from './calls'

/**
 * Blocks, transactions with their receipts, raw logs, and the per-address activity they imply.
 * Runs after the token and AMM handlers of the same block, whose per-transaction transfer counts
 * it records, and after the call frames, whose failures it records (undefined: no call trees).
 * A failed transaction's revert comes from its top-level frame, or without call trees from the
 * eth_call replays of `replays` (docs/indexer.md#revert-data).
 */
export function indexChainBlock(
    batch: Batch,
    verifier: ContractVerifier,
    block: BlockData,
    transfersPerTx: Map<string, number>,
    calls: CallOutcomes | undefined,
    replays: Map<string, HexBytes | null> | undefined
): void {
    const header = block.header
    const height = header.height
    const timestamp = new Date(header.timestamp)
    const logsPerTx = new Map<string, number>()

    for (const log of block.logs) {
        batch.logs.push({
            id: logId(height, log.logIndex),
            blockNumber: height,
            blockHash: header.hash,
            index: log.logIndex,
            transactionHash: log.transactionHash,
            transactionIndex: log.transactionIndex,
            address: log.address,
            topic0: log.topics[0] ?? null,
            topic1: log.topics[1] ?? null,
            topic2: log.topics[2] ?? null,
            topic3: log.topics[3] ?? null,
            data: hexBytes(log.data),
        })
        logsPerTx.set(log.transactionHash, (logsPerTx.get(log.transactionHash) ?? 0) + 1)
        const emitter = batch.touchAddress(log.address, height)
        emitter.logs += 1
        emitter.isContract = true
    }

    let fees = 0n
    let gasPrices = 0n
    let blobGasPrice: bigint | null = null
    for (const tx of block.transactions) {
        const typed = typedFieldsOf(tx)
        blobGasPrice ??= typed.blobGasPrice
        // The authorities' code is read at the batch's end: what the chain shows, whatever each authorization's status.
        for (const auth of typed.authorizationList ?? []) {
            if (!auth.authority) continue
            batch.delegations.add(auth.authority)
            batch.touchAddress(auth.authority, height)
        }
        const fee = tx.gasUsed * tx.effectiveGasPrice
        fees += fee
        gasPrices += tx.effectiveGasPrice
        batch.addSender(header.timestamp, tx.from)
        const created = tx.contractAddress ?? null
        const top = calls?.topFrames.get(tx.hash)
        const revert = tx.status === 1 ? NO_REVERT : top ? revertFromFrame(top) : { error: null, revertData: replays?.get(tx.hash) ?? null }
        batch.transactions.push({
            id: tx.hash,
            blockNumber: height,
            blockHash: header.hash,
            timestamp,
            index: tx.transactionIndex,
            from: tx.from,
            to: tx.to ?? null,
            createdContract: created,
            value: tx.value,
            nonce: tx.nonce,
            type: tx.type ?? null,
            gasLimit: tx.gas,
            gasPrice: tx.gasPrice ?? null,
            maxFeePerGas: tx.maxFeePerGas ?? null,
            maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? null,
            gasUsed: tx.gasUsed,
            effectiveGasPrice: tx.effectiveGasPrice,
            fee,
            status: tx.status,
            input: hexBytes(tx.input),
            methodId: tx.input.length >= 10 ? tx.input.slice(0, 10) : null,
            logCount: logsPerTx.get(tx.hash) ?? 0,
            tokenTransferCount: transfersPerTx.get(tx.hash) ?? 0,
            hasErrorInInternalTransactions: calls ? calls.withErrors.has(tx.hash) : null,
            ...typed,
            ...revert,
        })
        const sender = batch.touchAddress(tx.from, height)
        sender.transactions += 1
        sender.gasUsed += tx.gasUsed
        if (tx.to && tx.to !== tx.from) batch.touchAddress(tx.to, height).transactions += 1
        if (created) {
            const contract = batch.touchAddress(created, height)
            contract.transactions += 1
            contract.isContract = true
            contract.creator = tx.from
            contract.creationTransaction = tx.hash
            if (tx.status === 1) {
                contract.deployed = true
                batch.activityOf(header.timestamp).newContracts += 1
                verifier.verifyCreation(batch, created, tx.input, timestamp)
            }
        }
    }
    // The miner's balance changes with every fee it collects.
    batch.touchAddress(header.miner, height)

    const baseFee = header.baseFeePerGas ?? null
    batch.blocks.push({
        id: header.hash,
        number: height,
        parentHash: header.parentHash,
        timestamp,
        miner: header.miner,
        gasUsed: header.gasUsed,
        gasLimit: header.gasLimit,
        baseFeePerGas: baseFee,
        size: Number(header.size),
        difficulty: header.difficulty,
        totalDifficulty: header.totalDifficulty ?? null,
        nonce: header.nonce,
        extraData: header.extraData,
        stateRoot: header.stateRoot,
        transactionCount: block.transactions.length,
        transactionFees: fees,
        burntFees: (baseFee ?? 0n) * header.gasUsed,
        ...blobFieldsOf(header),
        blobGasPrice,
    })
    batch.addActivity(header.timestamp, {
        transactions: block.transactions.length, gasUsed: header.gasUsed, fees, size: BigInt(header.size), gasPrice: gasPrices,
    })
    batch.addBlockRange(height, header.hash)
}
