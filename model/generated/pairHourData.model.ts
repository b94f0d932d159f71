import {BigDecimal} from "@subsquid/big-decimal"
import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, ManyToOne as ManyToOne_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_, IntColumn as IntColumn_, BigDecimalColumn as BigDecimalColumn_} from "@subsquid/typeorm-store"
import {Pair} from "./pair.model"

/**
 * Per pair and hour (created by the pair's first Sync or Swap of the hour): volume_24h and swaps_24h are summed from it.
 */
@Index_(["pair", "hour"], {unique: true})
@Entity_()
export class PairHourData {
    constructor(props?: Partial<PairHourData>) {
        Object.assign(this, props)
    }

    /**
     * pair-hour start (unix seconds)
     */
    @PrimaryColumn_()
    id!: string

    @ManyToOne_(() => Pair, {nullable: true})
    pair!: Pair

    @DateTimeColumn_({nullable: false})
    hour!: Date

    /**
     * quote-token base units, per hop
     */
    @BigIntColumn_({nullable: false})
    volume!: bigint

    @IntColumn_({nullable: false})
    swaps!: number

    @BigIntColumn_({nullable: false})
    volumeToken0!: bigint

    @BigIntColumn_({nullable: false})
    volumeToken1!: bigint

    /**
     * at the end of the hour (the last event in it)
     */
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

    /**
     * token0Price candle: first, highest, lowest and last value in the hour
     */
    @BigDecimalColumn_({nullable: true})
    priceOpen!: BigDecimal | undefined | null

    @BigDecimalColumn_({nullable: true})
    priceHigh!: BigDecimal | undefined | null

    @BigDecimalColumn_({nullable: true})
    priceLow!: BigDecimal | undefined | null

    @BigDecimalColumn_({nullable: true})
    priceClose!: BigDecimal | undefined | null
}
