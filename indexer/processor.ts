import {
    BlockData as _BlockData,
    DataHandlerContext,
    EvmBatchProcessor,
    Log as _Log,
    Transaction as _Transaction,
} from '@subsquid/evm-processor'
import { MAX_BATCH_CALLS } from './rpc'

/**
 * Every header, transaction and receipt field the chain data API serves that Subsquid's mapping
 * knows; the fields of typed transactions and blob headers it drops are kept by typed-fields.ts.
 */
export const FIELDS = {
    block: {
        timestamp: true,
        miner: true,
        gasUsed: true,
        gasLimit: true,
        baseFeePerGas: true,
        size: true,
        difficulty: true,
        totalDifficulty: true,
        nonce: true,
        extraData: true,
        stateRoot: true,
    },
    transaction: {
        hash: true,
        from: true,
        to: true,
        value: true,
        nonce: true,
        input: true,
        gas: true,
        gasPrice: true,
        maxFeePerGas: true,
        maxPriorityFeePerGas: true,
        type: true,
        status: true,
        gasUsed: true,
        effectiveGasPrice: true,
        contractAddress: true,
    },
    log: {
        address: true,
        topics: true,
        data: true,
        transactionHash: true,
    },
} as const

export type Fields = typeof FIELDS
export type BlockData = _BlockData<Fields>
export type Transaction = _Transaction<Fields>
export type Log = _Log<Fields>
export type Context<Store> = DataHandlerContext<Store, Fields>

/** How often the node's head is polled once the indexer follows it. */
export const HEAD_POLL_INTERVAL_MS = 1000

export interface ProcessorOptions {
    rpcUrl: string
    finalityConfirmation: number
    fromBlock?: number
    toBlock?: number
    /** Requests per second towards the node; undefined means unlimited. */
    rateLimit?: number
}

/**
 * Ingests every block (empty ones too), every transaction with its receipt, and every log. Since
 * receipts are requested, Subsquid takes the logs from them (eth_getBlockReceipts, one block per
 * call, or eth_getTransactionReceipt where a node lacks it) and never calls eth_getLogs, so the
 * node's 10,000-block log-range limit cannot be hit. The indexer's commits are bounded separately
 * (see database.ts).
 */
export function createProcessor(options: ProcessorOptions) {
    return new EvmBatchProcessor()
        .setRpcEndpoint({
            url: options.rpcUrl,
            rateLimit: options.rateLimit,
            requestTimeout: 30_000,
            maxBatchCallSize: MAX_BATCH_CALLS,
        })
        .setRpcDataIngestionSettings({ headPollInterval: HEAD_POLL_INTERVAL_MS })
        .setFinalityConfirmation(options.finalityConfirmation)
        .setBlockRange({ from: options.fromBlock ?? 0, to: options.toBlock })
        .setFields(FIELDS)
        .includeAllBlocks()
        .addTransaction({})
        .addLog({})
}
