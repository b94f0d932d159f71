import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, IntColumn as IntColumn_, DateTimeColumn as DateTimeColumn_, StringColumn as StringColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"

/**
 * Running totals, one row (id 'chain'), kept by the indexer so /stats never counts rows.
 */
@Entity_()
export class ChainCounters {
    constructor(props?: Partial<ChainCounters>) {
        Object.assign(this, props)
    }

    @PrimaryColumn_()
    id!: string

    @IntColumn_({nullable: false})
    blocks!: number

    @IntColumn_({nullable: false})
    transactions!: number

    @IntColumn_({nullable: false})
    addresses!: number

    @IntColumn_({nullable: false})
    tokenTransfers!: number

    @IntColumn_({nullable: false})
    lastBlock!: number

    @DateTimeColumn_({nullable: true})
    lastBlockTimestamp!: Date | undefined | null

    /**
     * milliseconds between blocks, a moving average over about the last 100 blocks
     */
    @IntColumn_({nullable: false})
    averageBlockTime!: number

    /**
     * how the indexer reads call trees: trace_block, debug_traceBlockByHash or none (the node offers neither)
     */
    @StringColumn_({nullable: true})
    tracing!: string | undefined | null

    /**
     * the sum of every indexed address's native balance in wei, changed in the same commit as the balances it sums
     */
    @BigIntColumn_({nullable: false})
    coinSupply!: bigint

    /**
     * addresses whose native balance is above 0, changed in the same commit as the balances
     */
    @IntColumn_({nullable: false})
    coinHolders!: number
}
