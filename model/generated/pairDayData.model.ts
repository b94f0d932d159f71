import {BigDecimal} from "@subsquid/big-decimal"
import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, ManyToOne as ManyToOne_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_, IntColumn as IntColumn_, BigDecimalColumn as BigDecimalColumn_} from "@subsquid/typeorm-store"
import {Pair} from "./pair.model"

/**
 * Per pair and UTC day, as PairHourData.
 */
@Index_(["pair", "date"], {unique: true})
@Entity_()
export class PairDayData {
    constructor(props?: Partial<PairDayData>) {
        Object.assign(this, props)
    }

    /**
     * pair-YYYY-MM-DD
     */
    @PrimaryColumn_()
    id!: string

    @ManyToOne_(() => Pair, {nullable: true})
    pair!: Pair

    @DateTimeColumn_({nullable: false})
    date!: Date

    @BigIntColumn_({nullable: false})
    volumeQuote!: bigint

    @IntColumn_({nullable: false})
    swaps!: number

    @BigIntColumn_({nullable: false})
    volumeToken0!: bigint

    @BigIntColumn_({nullable: false})
    volumeToken1!: bigint

    @BigIntColumn_({nullable: false})
    reserve0!: bigint

    @BigIntColumn_({nullable: false})
    reserve1!: bigint

    @BigDecimalColumn_({nullable: false})
    reserve0Decimal!: BigDecimal

    @BigDecimalColumn_({nullable: false})
    reserve1Decimal!: BigDecimal

    @BigIntColumn_({nullable: false})
    reserveQuote!: bigint

    @BigDecimalColumn_({nullable: true})
    priceOpen!: BigDecimal | undefined | null

    @BigDecimalColumn_({nullable: true})
    priceHigh!: BigDecimal | undefined | null

    @BigDecimalColumn_({nullable: true})
    priceLow!: BigDecimal | undefined | null

    @BigDecimalColumn_({nullable: true})
    priceClose!: BigDecimal | undefined | null
}
