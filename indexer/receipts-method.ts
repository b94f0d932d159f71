import { EvmRpcDataSource } from '@subsquid/evm-processor/lib/ds-rpc/client'
import { Logger } from '../common/logger'

/** Receipts by block again once the node offers it again: docs/RELIABILITY.md#what-the-indexer-does-about-faults */

/** How long the per-transaction fallback is kept before the node is asked again. */
export const REPROBE_AFTER_MS = 10_000

const FALLBACK = 'eth_getTransactionReceipt'

/** The part of Subsquid's RPC data source (`rpc.props`, an `RpcProps`) that picks the receipts method. */
interface ReceiptsProps {
    receiptsMethod?: string
    getReceiptsMethod(): Promise<string>
}

/**
 * Subsquid asks the node once per data source whether it answers eth_getBlockReceipts, and
 * otherwise reads one receipt per transaction for as long as the data source lives. This makes
 * that answer expire while it is the fallback, so a node that regains the method (a load balancer
 * back on a full backend) is read by block again. It lives across the supervisor's restarts, so
 * each switch is logged once.
 */
export class ReceiptsMethod {
    private method?: string

    constructor(private readonly log: Logger, private readonly now: () => number = Date.now) {}

    /** The method in use, once the node has been asked. */
    get current(): string | undefined {
        return this.method
    }

    /**
     * Wraps the data source's probe. This is the one place that reaches into the SDK for it: if
     * an upgrade moves the cached answer, every batch fails with the error below (and ingestion
     * stalls loudly) instead of the fallback silently never expiring.
     */
    watch(dataSource: EvmRpcDataSource): void {
        const props = (dataSource as unknown as { rpc?: { props?: ReceiptsProps } }).rpc?.props
        if (typeof props?.getReceiptsMethod !== 'function') {
            throw new Error('Subsquid\'s EvmRpcDataSource no longer has rpc.props.getReceiptsMethod(): update indexer/receipts-method.ts')
        }
        const probe = props.getReceiptsMethod.bind(props)
        let probedAt = 0
        props.getReceiptsMethod = async () => {
            if (props.receiptsMethod === FALLBACK && this.now() - probedAt >= REPROBE_AFTER_MS) props.receiptsMethod = undefined
            const asking = props.receiptsMethod === undefined
            const method = await probe()
            if (props.receiptsMethod !== method) {
                throw new Error('Subsquid\'s RpcProps no longer caches its answer in receiptsMethod: update indexer/receipts-method.ts')
            }
            if (asking) {
                probedAt = this.now()
                this.saw(method)
            }
            return method
        }
    }

    private saw(method: string): void {
        const before = this.method
        this.method = method
        if (method === before) return
        if (method === FALLBACK) {
            this.log.warn({ askAgainMs: REPROBE_AFTER_MS }, 'the node does not answer eth_getBlockReceipts: reading receipts one transaction at a time until it does')
        } else if (before !== undefined) {
            this.log.info({ method }, `the node answers ${method} again: reading receipts by block`)
        }
    }
}
