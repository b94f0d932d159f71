import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, DateTimeColumn as DateTimeColumn_, Index as Index_, BigIntColumn as BigIntColumn_, IntColumn as IntColumn_} from "@subsquid/typeorm-store"

/**
 * Per UTC day, the whole AMM.
 */
@Entity_()
export class DexDayData {
    constructor(props?: Partial<DexDayData>) {
        Object.assign(this, props)
    }

    /**
     * YYYY-MM-DD
     */
    @PrimaryColumn_()
    id!: string

    @Index_({unique: true})
    @DateTimeColumn_({nullable: false})
    date!: Date

    /**
     * quote-token base units summed over hops (a routed trade counts once per pool it crossed)
     */
    @BigIntColumn_({nullable: false})
    volume!: bigint

    /**
     * hops
     */
    @IntColumn_({nullable: false})
    swaps!: number

    /**
     * quote-token base units summed over trades (each trade once)
     */
    @BigIntColumn_({nullable: false})
    tradeVolumeQuote!: bigint

    @IntColumn_({nullable: false})
    trades!: number

    /**
     * at the end of the day: the sum of every pair's reserveQuote as of its last Sync
     */
    @BigIntColumn_({nullable: false})
    liquidityQuote!: bigint

    @IntColumn_({nullable: false})
    pairCount!: number
}
