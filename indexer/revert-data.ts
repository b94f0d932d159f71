import { RpcClient } from '@subsquid/rpc-client'
import { Logger } from '../common/logger'
import { HexBytes, hexBytes } from './copy'
import { BlockData } from './processor'
import { isMissingStateError } from './rpc'

/**
 * The revert data of failed transactions (docs/indexer.md#revert-data): what the reverting call
 * returned (Error(string), Panic(uint256), a custom error, or nothing), kept on the transaction so
 * that the chain API decodes it without asking the node.
 */

/** What a transaction's top-level frame says of its failure. */
export interface TopFrame {
    error: string | null
    output: string | null
}

/** A failed transaction's revert, as stored: the traced error and the revert data. */
export interface RevertFields {
    error: string | null
    revertData: HexBytes | null
}

export const NO_REVERT: RevertFields = { error: null, revertData: null }

/** Geth and anvil's callTracer say "execution reverted", Parity-style traces "Reverted". */
const REVERTED = /revert/i

/**
 * From the top-level frame: revert data only when the call reverted (a REVERT returns data, which
 * may be empty; the call tracer leaves `output` out when it is); an out-of-gas or invalid-opcode
 * failure returns none.
 */
export function revertFromFrame(frame: TopFrame): RevertFields {
    if (frame.error === null) return NO_REVERT
    return { error: frame.error, revertData: REVERTED.test(frame.error) ? hexBytes(frame.output ?? '0x') : null }
}

/**
 * Failed transactions replayed per slice at most: beyond it, the rest of the slice's failures are
 * stored without revert data (logged). A slice is 100 blocks; a chain whose blocks hold ten
 * failures each stays under it, and one that does not is not worth a replay per failure.
 */
export const MAX_REPLAYS_PER_SLICE = 1000

/**
 * Without call trees: each failed transaction replayed by eth_call against the state before its
 * block (its parent's), in JSON-RPC batches, and the revert data the node answers. The replay does
 * not see the transactions before it in the same block, so it may succeed or fail otherwise than
 * the transaction did: then there is no revert data (null). A node without that state, or an answer
 * that is not a revert, gives none either; connection failures are retried by the client.
 */
export async function replayFailedTransactions(rpc: RpcClient, blocks: BlockData[], log: Logger): Promise<Map<string, HexBytes | null>> {
    const result = new Map<string, HexBytes | null>()
    const failed = blocks.flatMap((b) => b.header.height === 0 ? [] : b.transactions.filter((t) => t.status !== 1).map((t) => ({ tx: t, parent: b.header.height - 1 })))
    if (failed.length === 0) return result
    if (failed.length > MAX_REPLAYS_PER_SLICE) {
        log.warn({ failed: failed.length, replayed: MAX_REPLAYS_PER_SLICE, from: blocks[0].header.height }, 'more failed transactions than replays allowed per slice; the rest are stored without revert data')
    }
    const replayed = failed.slice(0, MAX_REPLAYS_PER_SLICE)
    const answers: (HexBytes | null)[] = await rpc.batchCall(replayed.map(({ tx, parent }) => ({
        method: 'eth_call',
        params: [{
            from: tx.from,
            ...(tx.to ? { to: tx.to } : {}),
            data: tx.input,
            value: '0x' + tx.value.toString(16),
            gas: '0x' + tx.gas.toString(16),
        }, '0x' + parent.toString(16)],
    })), {
        // A call that succeeds now has nothing to say about the failure.
        validateResult: () => null,
        validateError: (info) => {
            if (isMissingStateError(info.message) || !REVERTED.test(info.message)) return null
            return typeof info.data === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(info.data) ? info.data.toLowerCase() : '0x'
        },
    })
    replayed.forEach(({ tx }, i) => result.set(tx.hash, answers[i]))
    return result
}
