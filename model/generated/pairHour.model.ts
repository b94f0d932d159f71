import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, StringColumn as StringColumn_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_, IntColumn as IntColumn_} from "@subsquid/typeorm-store"

/**
 * Per pair and hour: the rows volume_24h and swaps_24h are summed from.
 */
@Index_(["pair", "hour"], {unique: true})
@Entity_()
export class PairHour {
    constructor(props?: Partial<PairHour>) {
        Object.assign(this, props)
    }

    /**
     * pair-hour start (unix seconds)
     */
    @PrimaryColumn_()
    id!: string

    @StringColumn_({nullable: false})
    pair!: string

    @DateTimeColumn_({nullable: false})
    hour!: Date

    @BigIntColumn_({nullable: false})
    volume!: bigint

    @IntColumn_({nullable: false})
    swaps!: number
}
