import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, DateTimeColumn as DateTimeColumn_, Index as Index_, IntColumn as IntColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"

/**
 * Per UTC day chain activity, for the transactions chart.
 */
@Entity_()
export class DailyChainActivity {
    constructor(props?: Partial<DailyChainActivity>) {
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

    @IntColumn_({nullable: false})
    blocks!: number

    @IntColumn_({nullable: false})
    transactions!: number

    @BigIntColumn_({nullable: false})
    gasUsed!: bigint

    @BigIntColumn_({nullable: false})
    fees!: bigint
}
