import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, DateTimeColumn as DateTimeColumn_, Index as Index_, BigIntColumn as BigIntColumn_, IntColumn as IntColumn_} from "@subsquid/typeorm-store"

/**
 * Per UTC day, all pairs together.
 */
@Entity_()
export class DailyVolume {
    constructor(props?: Partial<DailyVolume>) {
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

    @BigIntColumn_({nullable: false})
    volume!: bigint

    @IntColumn_({nullable: false})
    swaps!: number
}
