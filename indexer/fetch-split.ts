import { EvmRpcDataSource, EvmRpcDataSourceOptions } from '@subsquid/evm-processor/lib/ds-rpc/client'
import { coldIngest } from '@subsquid/util-internal-ingest-tools'
import { mapRangeRequestList, RangeRequest } from '@subsquid/util-internal-range'

/** Subsquid's RPC data source with the backfill's blocks per request as a setting: docs/indexer.md#blocks-per-request */

/** The members of the SDK's data source that getFinalizedBlocks uses (private in its typings, public in its code). */
interface SdkDataSource {
    rpc: { client: { getConcurrency(): number } }
    headPollInterval: number
    _getColdSplit(req: unknown): Promise<any[]>
    toMappingRequest(req: unknown): unknown
}

/**
 * EvmRpcDataSource whose getFinalizedBlocks is the SDK's (@subsquid/evm-processor 1.27.3) with
 * `splitSize` taken from the constructor instead of the literal 10. The rest is inherited; a test
 * compares the SDK's method with the one this replaces, so an upgrade that changes it is noticed.
 */
export class SplitDataSource extends EvmRpcDataSource {
    constructor(options: EvmRpcDataSourceOptions, private readonly splitSize: number) {
        super(options)
    }

    override getFinalizedBlocks(requests: RangeRequest<any>[], stopOnHead?: boolean): ReturnType<EvmRpcDataSource['getFinalizedBlocks']> {
        const sdk = this as unknown as SdkDataSource
        return coldIngest({
            getFinalizedHeight: () => this.getFinalizedHeight(),
            getSplit: (req) => sdk._getColdSplit(req),
            requests: mapRangeRequestList(requests, (req) => sdk.toMappingRequest(req)),
            splitSize: this.splitSize,
            concurrency: Math.min(5, sdk.rpc.client.getConcurrency()),
            stopOnHead,
            headPollInterval: sdk.headPollInterval,
        }) as ReturnType<EvmRpcDataSource['getFinalizedBlocks']>
    }
}
